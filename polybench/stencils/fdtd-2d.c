/* fdtd-2d: 2D finite-difference time-domain electromagnetic kernel.
   PolyBench/C 4.2.1 stencils/fdtd-2d, rewritten for cbana. */
#include "../polybench.h"

#if !defined(TMAX) && !defined(NX) && !defined(NY)
#ifdef MINI_DATASET
#define TMAX 20
#define NX 20
#define NY 30
#endif
#ifdef SMALL_DATASET
#define TMAX 40
#define NX 60
#define NY 80
#endif
#ifdef MEDIUM_DATASET
#define TMAX 100
#define NX 200
#define NY 240
#endif
#ifdef LARGE_DATASET
#define TMAX 500
#define NX 1000
#define NY 1200
#endif
#ifdef EXTRALARGE_DATASET
#define TMAX 1000
#define NX 2000
#define NY 2600
#endif
#endif

static void init_array(int tmax, int nx, int ny, double ex[NX][NY],
                       double ey[NX][NY], double hz[NX][NY],
                       double _fict_[TMAX]) {
  int i, j;

  for (i = 0; i < tmax; i++)
    _fict_[i] = (double)i;
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++) {
      ex[i][j] = ((double)i * (j + 1)) / nx;
      ey[i][j] = ((double)i * (j + 2)) / ny;
      hz[i][j] = ((double)i * (j + 3)) / nx;
    }
}

static void kernel_fdtd_2d(int tmax, int nx, int ny, double ex[NX][NY],
                           double ey[NX][NY], double hz[NX][NY],
                           double _fict_[TMAX]) {
  int t, i, j;

  for (t = 0; t < tmax; t++) {
    for (j = 0; j < ny; j++)
      ey[0][j] = _fict_[t];
    for (i = 1; i < nx; i++)
      for (j = 0; j < ny; j++)
        ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
    for (i = 0; i < nx; i++)
      for (j = 1; j < ny; j++)
        ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
    for (i = 0; i < nx - 1; i++)
      for (j = 0; j < ny - 1; j++)
        hz[i][j] = hz[i][j] -
                   0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
  }
}

/* ex, ey then hz, which is what PolyBench dumps. */
static double checksum(int nx, int ny, double ex[NX][NY], double ey[NX][NY],
                       double hz[NX][NY]) {
  double s = 0.0;
  int i, j;
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++)
      s += ex[i][j];
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++)
      s += ey[i][j];
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++)
      s += hz[i][j];
  return s;
}

int main(void) {
  int tmax = TMAX;
  int nx = NX;
  int ny = NY;
  double(*ex)[NY] = pb_alloc((size_t)NX * NY, sizeof(double));
  double(*ey)[NY] = pb_alloc((size_t)NX * NY, sizeof(double));
  double(*hz)[NY] = pb_alloc((size_t)NX * NY, sizeof(double));
  double *_fict_ = pb_alloc(TMAX, sizeof(double));

  init_array(tmax, nx, ny, ex, ey, hz, _fict_);
  kernel_fdtd_2d(tmax, nx, ny, ex, ey, hz, _fict_);
  printf("%.17g\n", checksum(nx, ny, ex, ey, hz));

  free(ex);
  free(ey);
  free(hz);
  free(_fict_);
  return 0;
}
