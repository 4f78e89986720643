#!/usr/bin/env python3
"""Reference checksums of the PolyBench kernels at MINI_DATASET.

A straightforward, independent Python transcription of each PolyBench/C
4.2.1 kernel (init_array, kernel, then the sum of what PolyBench dumps), in
the same floating-point operation order as the C programs, so the IEEE
double results are bit-identical and the printed "%.17g" strings must match.
deriche is float in C: every float operation is rounded to binary32 here.

    workloads_polybench_ref.py            # prints "name checksum" lines
"""
import math
import struct


def f32(x):
    return struct.unpack('f', struct.pack('f', x))[0]


def cmod(a, b):
    """C's % (truncating) for b > 0."""
    return a % b if a >= 0 else -((-a) % b)


def mat(r, c, v=0.0):
    return [[v] * c for _ in range(r)]


def g(x):
    return '%.17g' % x


def correlation():
    M, N = 28, 32
    float_n = float(N)
    data = [[float(i * j) / M + i for j in range(M)] for i in range(N)]
    corr = mat(M, M)
    mean = [0.0] * M
    stddev = [0.0] * M
    eps = 0.1
    for j in range(M):
        mean[j] = 0.0
        for i in range(N):
            mean[j] += data[i][j]
        mean[j] /= float_n
    for j in range(M):
        stddev[j] = 0.0
        for i in range(N):
            stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j])
        stddev[j] /= float_n
        stddev[j] = math.sqrt(stddev[j])
        stddev[j] = 1.0 if stddev[j] <= eps else stddev[j]
    for i in range(N):
        for j in range(M):
            data[i][j] -= mean[j]
            data[i][j] /= math.sqrt(float_n) * stddev[j]
    for i in range(M - 1):
        corr[i][i] = 1.0
        for j in range(i + 1, M):
            corr[i][j] = 0.0
            for k in range(N):
                corr[i][j] += data[k][i] * data[k][j]
            corr[j][i] = corr[i][j]
    corr[M - 1][M - 1] = 1.0
    s = 0.0
    for i in range(M):
        for j in range(M):
            s += corr[i][j]
    return g(s)


def covariance():
    M, N = 28, 32
    float_n = float(N)
    data = [[float(i) * j / M for j in range(M)] for i in range(N)]
    cov = mat(M, M)
    mean = [0.0] * M
    for j in range(M):
        mean[j] = 0.0
        for i in range(N):
            mean[j] += data[i][j]
        mean[j] /= float_n
    for i in range(N):
        for j in range(M):
            data[i][j] -= mean[j]
    for i in range(M):
        for j in range(i, M):
            cov[i][j] = 0.0
            for k in range(N):
                cov[i][j] += data[k][i] * data[k][j]
            cov[i][j] /= (float_n - 1.0)
            cov[j][i] = cov[i][j]
    return g(sum_rows(cov))


def sum_rows(a):
    s = 0.0
    for row in a:
        for v in row:
            s += v
    return s


def sum_mats(*ms):
    s = 0.0
    for m in ms:
        for row in m:
            for v in row:
                s += v
    return s


def sum_vec(*vs):
    s = 0.0
    for v in vs:
        for x in v:
            s += x
    return s


def gemm():
    NI, NJ, NK = 20, 25, 30
    alpha, beta = 1.5, 1.2
    C = [[float((i * j + 1) % NI) / NI for j in range(NJ)] for i in range(NI)]
    A = [[float(i * (j + 1) % NK) / NK for j in range(NK)] for i in range(NI)]
    B = [[float(i * (j + 2) % NJ) / NJ for j in range(NJ)] for i in range(NK)]
    for i in range(NI):
        for j in range(NJ):
            C[i][j] *= beta
        for k in range(NK):
            for j in range(NJ):
                C[i][j] += alpha * A[i][k] * B[k][j]
    return g(sum_rows(C))


def gemver():
    N = 40
    alpha, beta = 1.5, 1.2
    fn = float(N)
    u1 = [float(i) for i in range(N)]
    u2 = [((i + 1) / fn) / 2.0 for i in range(N)]
    v1 = [((i + 1) / fn) / 4.0 for i in range(N)]
    v2 = [((i + 1) / fn) / 6.0 for i in range(N)]
    y = [((i + 1) / fn) / 8.0 for i in range(N)]
    z = [((i + 1) / fn) / 9.0 for i in range(N)]
    x = [0.0] * N
    w = [0.0] * N
    A = [[float(i * j % N) / N for j in range(N)] for i in range(N)]
    for i in range(N):
        for j in range(N):
            A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j]
    for i in range(N):
        for j in range(N):
            x[i] = x[i] + beta * A[j][i] * y[j]
    for i in range(N):
        x[i] = x[i] + z[i]
    for i in range(N):
        for j in range(N):
            w[i] = w[i] + alpha * A[i][j] * x[j]
    return g(sum_vec(w))


def gesummv():
    N = 30
    alpha, beta = 1.5, 1.2
    x = [float(i % N) / N for i in range(N)]
    A = [[float((i * j + 1) % N) / N for j in range(N)] for i in range(N)]
    B = [[float((i * j + 2) % N) / N for j in range(N)] for i in range(N)]
    tmp = [0.0] * N
    y = [0.0] * N
    for i in range(N):
        tmp[i] = 0.0
        y[i] = 0.0
        for j in range(N):
            tmp[i] = A[i][j] * x[j] + tmp[i]
            y[i] = B[i][j] * x[j] + y[i]
        y[i] = alpha * tmp[i] + beta * y[i]
    return g(sum_vec(y))


def symm():
    M, N = 20, 30
    alpha, beta = 1.5, 1.2
    C = [[float((i + j) % 100) / M for j in range(N)] for i in range(M)]
    B = [[float(cmod(N + i - j, 100)) / M for j in range(N)] for i in range(M)]
    A = mat(M, M)
    for i in range(M):
        for j in range(i + 1):
            A[i][j] = float((i + j) % 100) / M
        for j in range(i + 1, M):
            A[i][j] = -999.0
    for i in range(M):
        for j in range(N):
            temp2 = 0.0
            for k in range(i):
                C[k][j] += alpha * B[i][j] * A[i][k]
                temp2 += B[k][j] * A[i][k]
            C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2
    return g(sum_rows(C))


def syr2k():
    M, N = 20, 30
    alpha, beta = 1.5, 1.2
    A = [[float((i * j + 1) % N) / N for j in range(M)] for i in range(N)]
    B = [[float((i * j + 2) % M) / M for j in range(M)] for i in range(N)]
    C = [[float((i * j + 3) % N) / M for j in range(N)] for i in range(N)]
    for i in range(N):
        for j in range(i + 1):
            C[i][j] *= beta
        for k in range(M):
            for j in range(i + 1):
                C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k]
    return g(sum_rows(C))


def syrk():
    M, N = 20, 30
    alpha, beta = 1.5, 1.2
    A = [[float((i * j + 1) % N) / N for j in range(M)] for i in range(N)]
    C = [[float((i * j + 2) % M) / M for j in range(N)] for i in range(N)]
    for i in range(N):
        for j in range(i + 1):
            C[i][j] *= beta
        for k in range(M):
            for j in range(i + 1):
                C[i][j] += alpha * A[i][k] * A[j][k]
    return g(sum_rows(C))


def trmm():
    M, N = 20, 30
    alpha = 1.5
    A = mat(M, M)
    B = mat(M, N)
    for i in range(M):
        for j in range(i):
            A[i][j] = float((i + j) % M) / M
        A[i][i] = 1.0
        for j in range(N):
            B[i][j] = float(cmod(N + (i - j), N)) / N
    for i in range(M):
        for j in range(N):
            for k in range(i + 1, M):
                B[i][j] += A[k][i] * B[k][j]
            B[i][j] = alpha * B[i][j]
    return g(sum_rows(B))


def k2mm():
    NI, NJ, NK, NL = 16, 18, 22, 24
    alpha, beta = 1.5, 1.2
    A = [[float((i * j + 1) % NI) / NI for j in range(NK)] for i in range(NI)]
    B = [[float(i * (j + 1) % NJ) / NJ for j in range(NJ)] for i in range(NK)]
    C = [[float((i * (j + 3) + 1) % NL) / NL for j in range(NL)]
         for i in range(NJ)]
    D = [[float(i * (j + 2) % NK) / NK for j in range(NL)] for i in range(NI)]
    tmp = mat(NI, NJ)
    for i in range(NI):
        for j in range(NJ):
            tmp[i][j] = 0.0
            for k in range(NK):
                tmp[i][j] += alpha * A[i][k] * B[k][j]
    for i in range(NI):
        for j in range(NL):
            D[i][j] *= beta
            for k in range(NJ):
                D[i][j] += tmp[i][k] * C[k][j]
    return g(sum_rows(D))


def k3mm():
    NI, NJ, NK, NL, NM = 16, 18, 20, 22, 24
    A = [[float((i * j + 1) % NI) / (5 * NI) for j in range(NK)]
         for i in range(NI)]
    B = [[float((i * (j + 1) + 2) % NJ) / (5 * NJ) for j in range(NJ)]
         for i in range(NK)]
    C = [[float(i * (j + 3) % NL) / (5 * NL) for j in range(NM)]
         for i in range(NJ)]
    D = [[float((i * (j + 2) + 2) % NK) / (5 * NK) for j in range(NL)]
         for i in range(NM)]
    E, F, G = mat(NI, NJ), mat(NJ, NL), mat(NI, NL)
    for i in range(NI):
        for j in range(NJ):
            E[i][j] = 0.0
            for k in range(NK):
                E[i][j] += A[i][k] * B[k][j]
    for i in range(NJ):
        for j in range(NL):
            F[i][j] = 0.0
            for k in range(NM):
                F[i][j] += C[i][k] * D[k][j]
    for i in range(NI):
        for j in range(NL):
            G[i][j] = 0.0
            for k in range(NJ):
                G[i][j] += E[i][k] * F[k][j]
    return g(sum_rows(G))


def atax():
    M, N = 38, 42
    fn = float(N)
    x = [1 + (i / fn) for i in range(N)]
    A = [[float((i + j) % N) / (5 * M) for j in range(N)] for i in range(M)]
    y = [0.0] * N
    tmp = [0.0] * M
    for i in range(M):
        tmp[i] = 0.0
        for j in range(N):
            tmp[i] = tmp[i] + A[i][j] * x[j]
        for j in range(N):
            y[j] = y[j] + A[i][j] * tmp[i]
    return g(sum_vec(y))


def bicg():
    M, N = 38, 42
    p = [float(i % M) / M for i in range(M)]
    r = [float(i % N) / N for i in range(N)]
    A = [[float(i * (j + 1) % N) / N for j in range(M)] for i in range(N)]
    s = [0.0] * M
    q = [0.0] * N
    for i in range(N):
        q[i] = 0.0
        for j in range(M):
            s[j] = s[j] + r[i] * A[i][j]
            q[i] = q[i] + A[i][j] * p[j]
    return g(sum_vec(s, q))


def doitgen():
    NQ, NR, NP = 8, 10, 12
    A = [[[float((i * j + k) % NP) / NP for k in range(NP)]
          for j in range(NQ)] for i in range(NR)]
    C4 = [[float(i * j % NP) / NP for j in range(NP)] for i in range(NP)]
    sm = [0.0] * NP
    for r in range(NR):
        for q in range(NQ):
            for p in range(NP):
                sm[p] = 0.0
                for s in range(NP):
                    sm[p] += A[r][q][s] * C4[s][p]
            for p in range(NP):
                A[r][q][p] = sm[p]
    s = 0.0
    for plane in A:
        for row in plane:
            for v in row:
                s += v
    return g(s)


def mvt():
    N = 40
    x1 = [float(i % N) / N for i in range(N)]
    x2 = [float((i + 1) % N) / N for i in range(N)]
    y1 = [float((i + 3) % N) / N for i in range(N)]
    y2 = [float((i + 4) % N) / N for i in range(N)]
    A = [[float(i * j % N) / N for j in range(N)] for i in range(N)]
    for i in range(N):
        for j in range(N):
            x1[i] = x1[i] + A[i][j] * y1[j]
    for i in range(N):
        for j in range(N):
            x2[i] = x2[i] + A[j][i] * y2[j]
    return g(sum_vec(x1, x2))


def psd(N):
    A = mat(N, N)
    for i in range(N):
        for j in range(i + 1):
            A[i][j] = float(cmod(-j, N)) / N + 1
        for j in range(i + 1, N):
            A[i][j] = 0.0
        A[i][i] = 1.0
    B = mat(N, N)
    for t in range(N):
        for r in range(N):
            for s in range(N):
                B[r][s] += A[r][t] * A[s][t]
    for r in range(N):
        for s in range(N):
            A[r][s] = B[r][s]
    return A


def cholesky():
    N = 40
    A = psd(N)
    for i in range(N):
        for j in range(i):
            for k in range(j):
                A[i][j] -= A[i][k] * A[j][k]
            A[i][j] /= A[j][j]
        for k in range(i):
            A[i][i] -= A[i][k] * A[i][k]
        A[i][i] = math.sqrt(A[i][i])
    s = 0.0
    for i in range(N):
        for j in range(i + 1):
            s += A[i][j]
    return g(s)


def durbin():
    N = 40
    r = [float(N + 1 - i) for i in range(N)]
    y = [0.0] * N
    z = [0.0] * N
    y[0] = -r[0]
    beta = 1.0
    alpha = -r[0]
    for k in range(1, N):
        beta = (1 - alpha * alpha) * beta
        sm = 0.0
        for i in range(k):
            sm += r[k - i - 1] * y[i]
        alpha = -(r[k] + sm) / beta
        for i in range(k):
            z[i] = y[i] + alpha * y[k - i - 1]
        for i in range(k):
            y[i] = z[i]
        y[k] = alpha
    return g(sum_vec(y))


def gramschmidt():
    M, N = 20, 30
    A = [[((float((i * j) % M) / M) * 100) + 10 for j in range(N)]
         for i in range(M)]
    Q = mat(M, N)
    R = mat(N, N)
    for k in range(N):
        nrm = 0.0
        for i in range(M):
            nrm += A[i][k] * A[i][k]
        R[k][k] = math.sqrt(nrm)
        for i in range(M):
            Q[i][k] = A[i][k] / R[k][k]
        for j in range(k + 1, N):
            R[k][j] = 0.0
            for i in range(M):
                R[k][j] += Q[i][k] * A[i][j]
            for i in range(M):
                A[i][j] = A[i][j] - Q[i][k] * R[k][j]
    return g(sum_mats(R, Q))


def lu():
    N = 40
    A = psd(N)
    for i in range(N):
        for j in range(i):
            for k in range(j):
                A[i][j] -= A[i][k] * A[k][j]
            A[i][j] /= A[j][j]
        for j in range(i, N):
            for k in range(i):
                A[i][j] -= A[i][k] * A[k][j]
    return g(sum_rows(A))


def ludcmp():
    N = 40
    fn = float(N)
    x = [0.0] * N
    y = [0.0] * N
    b = [(i + 1) / fn / 2.0 + 4 for i in range(N)]
    A = psd(N)
    for i in range(N):
        for j in range(i):
            w = A[i][j]
            for k in range(j):
                w -= A[i][k] * A[k][j]
            A[i][j] = w / A[j][j]
        for j in range(i, N):
            w = A[i][j]
            for k in range(i):
                w -= A[i][k] * A[k][j]
            A[i][j] = w
    for i in range(N):
        w = b[i]
        for j in range(i):
            w -= A[i][j] * y[j]
        y[i] = w
    for i in range(N - 1, -1, -1):
        w = y[i]
        for j in range(i + 1, N):
            w -= A[i][j] * x[j]
        x[i] = w / A[i][i]
    return g(sum_vec(x))


def trisolv():
    N = 40
    x = [-999.0] * N
    b = [float(i) for i in range(N)]
    L = mat(N, N)
    for i in range(N):
        for j in range(i + 1):
            L[i][j] = float(i + N - j + 1) * 2 / N
    for i in range(N):
        x[i] = b[i]
        for j in range(i):
            x[i] -= L[i][j] * x[j]
        x[i] = x[i] / L[i][i]
    return g(sum_vec(x))


def deriche():
    W, H = 64, 64
    alpha = f32(0.25)
    imgIn = [[f32(f32(float((313 * i + 991 * j) % 65536)) / f32(65535.0))
              for j in range(H)] for i in range(W)]
    imgOut = mat(W, H)
    y1 = mat(W, H)
    y2 = mat(W, H)

    def e(x):
        return f32(math.exp(x))

    ema = e(f32(-alpha))
    k = f32(f32(f32(1.0 - ema) * f32(1.0 - ema)) /
            f32(f32(1.0 + f32(f32(2.0 * alpha) * ema)) - e(f32(2.0 * alpha))))
    a1 = a5 = k
    a2 = a6 = f32(f32(k * ema) * f32(alpha - 1.0))
    a3 = a7 = f32(f32(k * ema) * f32(alpha + 1.0))
    a4 = a8 = f32(-k * e(f32(-2.0 * alpha)))
    b1 = f32(math.pow(2.0, -alpha))
    b2 = f32(-e(f32(-2.0 * alpha)))
    c1 = c2 = f32(1.0)

    def lin(p, q, r, s, t, u, v, w):
        return f32(f32(f32(f32(p * q) + f32(r * s)) + f32(t * u)) + f32(v * w))

    for i in range(W):
        ym1 = ym2 = xm1 = 0.0
        for j in range(H):
            y1[i][j] = lin(a1, imgIn[i][j], a2, xm1, b1, ym1, b2, ym2)
            xm1 = imgIn[i][j]
            ym2 = ym1
            ym1 = y1[i][j]
    for i in range(W):
        yp1 = yp2 = xp1 = xp2 = 0.0
        for j in range(H - 1, -1, -1):
            y2[i][j] = lin(a3, xp1, a4, xp2, b1, yp1, b2, yp2)
            xp2 = xp1
            xp1 = imgIn[i][j]
            yp2 = yp1
            yp1 = y2[i][j]
    for i in range(W):
        for j in range(H):
            imgOut[i][j] = f32(c1 * f32(y1[i][j] + y2[i][j]))
    for j in range(H):
        tm1 = ym1 = ym2 = 0.0
        for i in range(W):
            y1[i][j] = lin(a5, imgOut[i][j], a6, tm1, b1, ym1, b2, ym2)
            tm1 = imgOut[i][j]
            ym2 = ym1
            ym1 = y1[i][j]
    for j in range(H):
        tp1 = tp2 = yp1 = yp2 = 0.0
        for i in range(W - 1, -1, -1):
            y2[i][j] = lin(a7, tp1, a8, tp2, b1, yp1, b2, yp2)
            tp2 = tp1
            tp1 = imgOut[i][j]
            yp2 = yp1
            yp1 = y2[i][j]
    for i in range(W):
        for j in range(H):
            imgOut[i][j] = f32(c2 * f32(y1[i][j] + y2[i][j]))
    return g(sum_rows(imgOut))


def floyd_warshall():
    N = 60
    path = mat(N, N, 0)
    for i in range(N):
        for j in range(N):
            path[i][j] = i * j % 7 + 1
            if (i + j) % 13 == 0 or (i + j) % 7 == 0 or (i + j) % 11 == 0:
                path[i][j] = 999
    for k in range(N):
        pk = path[k]
        for i in range(N):
            pi = path[i]
            pik = pi[k]
            for j in range(N):
                if not pi[j] < pik + pk[j]:
                    pi[j] = pik + pk[j]
    return '%d' % sum(sum(r) for r in path)


def nussinov():
    N = 60
    seq = [(i + 1) % 4 for i in range(N)]
    table = mat(N, N, 0)
    for i in range(N - 1, -1, -1):
        for j in range(i + 1, N):
            if j - 1 >= 0:
                table[i][j] = max(table[i][j], table[i][j - 1])
            if i + 1 < N:
                table[i][j] = max(table[i][j], table[i + 1][j])
            if j - 1 >= 0 and i + 1 < N:
                if i < j - 1:
                    m = 1 if seq[i] + seq[j] == 3 else 0
                    table[i][j] = max(table[i][j], table[i + 1][j - 1] + m)
                else:
                    table[i][j] = max(table[i][j], table[i + 1][j - 1])
            for k in range(i + 1, j):
                table[i][j] = max(table[i][j], table[i][k] + table[k + 1][j])
    return '%d' % sum(table[i][j] for i in range(N) for j in range(i, N))


def adi():
    TSTEPS, N = 20, 20
    u = [[float(i + N - j) / N for j in range(N)] for i in range(N)]
    v, p, q = mat(N, N), mat(N, N), mat(N, N)
    DX = 1.0 / N
    DY = 1.0 / N
    DT = 1.0 / TSTEPS
    B1, B2 = 2.0, 1.0
    mul1 = B1 * DT / (DX * DX)
    mul2 = B2 * DT / (DY * DY)
    a = -mul1 / 2.0
    b = 1.0 + mul1
    c = a
    d = -mul2 / 2.0
    e = 1.0 + mul2
    f = d
    for t in range(1, TSTEPS + 1):
        for i in range(1, N - 1):
            v[0][i] = 1.0
            p[i][0] = 0.0
            q[i][0] = v[0][i]
            for j in range(1, N - 1):
                p[i][j] = -c / (a * p[i][j - 1] + b)
                q[i][j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i] -
                           f * u[j][i + 1] - a * q[i][j - 1]) / \
                    (a * p[i][j - 1] + b)
            v[N - 1][i] = 1.0
            for j in range(N - 2, 0, -1):
                v[j][i] = p[i][j] * v[j + 1][i] + q[i][j]
        for i in range(1, N - 1):
            u[i][0] = 1.0
            p[i][0] = 0.0
            q[i][0] = u[i][0]
            for j in range(1, N - 1):
                p[i][j] = -f / (d * p[i][j - 1] + e)
                q[i][j] = (-a * v[i - 1][j] + (1.0 + 2.0 * a) * v[i][j] -
                           c * v[i + 1][j] - d * q[i][j - 1]) / \
                    (d * p[i][j - 1] + e)
            u[i][N - 1] = 1.0
            for j in range(N - 2, 0, -1):
                u[i][j] = p[i][j] * u[i][j + 1] + q[i][j]
    return g(sum_rows(u))


def fdtd_2d():
    TMAX, NX, NY = 20, 20, 30
    fict = [float(i) for i in range(TMAX)]
    ex = [[float(i) * (j + 1) / NX for j in range(NY)] for i in range(NX)]
    ey = [[float(i) * (j + 2) / NY for j in range(NY)] for i in range(NX)]
    hz = [[float(i) * (j + 3) / NX for j in range(NY)] for i in range(NX)]
    for t in range(TMAX):
        for j in range(NY):
            ey[0][j] = fict[t]
        for i in range(1, NX):
            for j in range(NY):
                ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j])
        for i in range(NX):
            for j in range(1, NY):
                ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1])
        for i in range(NX - 1):
            for j in range(NY - 1):
                hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] +
                                             ey[i + 1][j] - ey[i][j])
    return g(sum_mats(ex, ey, hz))


def heat_3d():
    TSTEPS, N = 20, 10
    A = [[[float(i + j + (N - k)) * 10 / N for k in range(N)]
          for j in range(N)] for i in range(N)]
    B = [[[float(i + j + (N - k)) * 10 / N for k in range(N)]
          for j in range(N)] for i in range(N)]
    for t in range(1, TSTEPS + 1):
        for (S, D) in ((A, B), (B, A)):
            for i in range(1, N - 1):
                for j in range(1, N - 1):
                    for k in range(1, N - 1):
                        D[i][j][k] = (
                            0.125 * (S[i + 1][j][k] - 2.0 * S[i][j][k] +
                                     S[i - 1][j][k]) +
                            0.125 * (S[i][j + 1][k] - 2.0 * S[i][j][k] +
                                     S[i][j - 1][k]) +
                            0.125 * (S[i][j][k + 1] - 2.0 * S[i][j][k] +
                                     S[i][j][k - 1]) +
                            S[i][j][k])
    s = 0.0
    for plane in A:
        for row in plane:
            for v in row:
                s += v
    return g(s)


def jacobi_1d():
    TSTEPS, N = 20, 30
    A = [(float(i) + 2) / N for i in range(N)]
    B = [(float(i) + 3) / N for i in range(N)]
    for t in range(TSTEPS):
        for i in range(1, N - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, N - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])
    return g(sum_vec(A))


def jacobi_2d():
    TSTEPS, N = 20, 30
    A = [[(float(i) * (j + 2) + 2) / N for j in range(N)] for i in range(N)]
    B = [[(float(i) * (j + 3) + 3) / N for j in range(N)] for i in range(N)]
    for t in range(TSTEPS):
        for (S, D) in ((A, B), (B, A)):
            for i in range(1, N - 1):
                for j in range(1, N - 1):
                    D[i][j] = 0.2 * (S[i][j] + S[i][j - 1] + S[i][1 + j] +
                                     S[1 + i][j] + S[i - 1][j])
    return g(sum_rows(A))


def seidel_2d():
    TSTEPS, N = 20, 40
    A = [[(float(i) * (j + 2) + 2) / N for j in range(N)] for i in range(N)]
    for t in range(TSTEPS):
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] +
                           A[i][j - 1] + A[i][j] + A[i][j + 1] +
                           A[i + 1][j - 1] + A[i + 1][j] +
                           A[i + 1][j + 1]) / 9.0
    return g(sum_rows(A))


KERNELS = [
    ('correlation', correlation), ('covariance', covariance),
    ('gemm', gemm), ('gemver', gemver), ('gesummv', gesummv),
    ('symm', symm), ('syr2k', syr2k), ('syrk', syrk), ('trmm', trmm),
    ('2mm', k2mm), ('3mm', k3mm), ('atax', atax), ('bicg', bicg),
    ('doitgen', doitgen), ('mvt', mvt),
    ('cholesky', cholesky), ('durbin', durbin),
    ('gramschmidt', gramschmidt), ('lu', lu), ('ludcmp', ludcmp),
    ('trisolv', trisolv),
    ('deriche', deriche), ('floyd-warshall', floyd_warshall),
    ('nussinov', nussinov),
    ('adi', adi), ('fdtd-2d', fdtd_2d), ('heat-3d', heat_3d),
    ('jacobi-1d', jacobi_1d), ('jacobi-2d', jacobi_2d),
    ('seidel-2d', seidel_2d),
]

if __name__ == '__main__':
    for name, fn in KERNELS:
        print(name, fn())
