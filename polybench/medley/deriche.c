/* deriche: Deriche recursive edge detection filter on a W x H image.
   PolyBench/C 4.2.1 medley/deriche, rewritten for cbana. As in PolyBench
   the data type is float (and expf/powf). */
#include "../polybench.h"

#if !defined(W) && !defined(H)
#ifdef MINI_DATASET
#define W 64
#define H 64
#endif
#ifdef SMALL_DATASET
#define W 192
#define H 128
#endif
#ifdef MEDIUM_DATASET
#define W 720
#define H 480
#endif
#ifdef LARGE_DATASET
#define W 4096
#define H 2160
#endif
#ifdef EXTRALARGE_DATASET
#define W 7680
#define H 4320
#endif
#endif

static void init_array(int w, int h, float *alpha, float imgIn[W][H],
                       float imgOut[W][H]) {
  int i, j;
  (void)imgOut;

  *alpha = 0.25; /* parameter of the filter */

  /* grayscale pixels in [0, 1] */
  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++)
      imgIn[i][j] = (float)((313 * i + 991 * j) % 65536) / 65535.0f;
}

static void kernel_deriche(int w, int h, float alpha, float imgIn[W][H],
                           float imgOut[W][H], float y1[W][H], float y2[W][H]) {
  int i, j;
  float xm1, tm1, ym1, ym2;
  float xp1, xp2;
  float tp1, tp2;
  float yp1, yp2;

  float k;
  float a1, a2, a3, a4, a5, a6, a7, a8;
  float b1, b2, c1, c2;

  k = (1.0f - expf(-alpha)) * (1.0f - expf(-alpha)) /
      (1.0f + 2.0f * alpha * expf(-alpha) - expf(2.0f * alpha));
  a1 = a5 = k;
  a2 = a6 = k * expf(-alpha) * (alpha - 1.0f);
  a3 = a7 = k * expf(-alpha) * (alpha + 1.0f);
  a4 = a8 = -k * expf(-2.0f * alpha);
  b1 = powf(2.0f, -alpha);
  b2 = -expf(-2.0f * alpha);
  c1 = c2 = 1;

  for (i = 0; i < w; i++) {
    ym1 = 0.0f;
    ym2 = 0.0f;
    xm1 = 0.0f;
    for (j = 0; j < h; j++) {
      y1[i][j] = a1 * imgIn[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
      xm1 = imgIn[i][j];
      ym2 = ym1;
      ym1 = y1[i][j];
    }
  }

  for (i = 0; i < w; i++) {
    yp1 = 0.0f;
    yp2 = 0.0f;
    xp1 = 0.0f;
    xp2 = 0.0f;
    for (j = h - 1; j >= 0; j--) {
      y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
      xp2 = xp1;
      xp1 = imgIn[i][j];
      yp2 = yp1;
      yp1 = y2[i][j];
    }
  }

  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++) {
      imgOut[i][j] = c1 * (y1[i][j] + y2[i][j]);
    }

  for (j = 0; j < h; j++) {
    tm1 = 0.0f;
    ym1 = 0.0f;
    ym2 = 0.0f;
    for (i = 0; i < w; i++) {
      y1[i][j] = a5 * imgOut[i][j] + a6 * tm1 + b1 * ym1 + b2 * ym2;
      tm1 = imgOut[i][j];
      ym2 = ym1;
      ym1 = y1[i][j];
    }
  }

  for (j = 0; j < h; j++) {
    tp1 = 0.0f;
    tp2 = 0.0f;
    yp1 = 0.0f;
    yp2 = 0.0f;
    for (i = w - 1; i >= 0; i--) {
      y2[i][j] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2;
      tp2 = tp1;
      tp1 = imgOut[i][j];
      yp2 = yp1;
      yp1 = y2[i][j];
    }
  }

  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++)
      imgOut[i][j] = c2 * (y1[i][j] + y2[i][j]);
}

static double checksum(int w, int h, float imgOut[W][H]) {
  double s = 0.0;
  int i, j;
  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++)
      s += imgOut[i][j];
  return s;
}

int main(void) {
  int w = W;
  int h = H;
  float alpha;
  float(*imgIn)[H] = pb_alloc((size_t)W * H, sizeof(float));
  float(*imgOut)[H] = pb_alloc((size_t)W * H, sizeof(float));
  float(*y1)[H] = pb_alloc((size_t)W * H, sizeof(float));
  float(*y2)[H] = pb_alloc((size_t)W * H, sizeof(float));

  init_array(w, h, &alpha, imgIn, imgOut);
  kernel_deriche(w, h, alpha, imgIn, imgOut, y1, y2);
  printf("%.17g\n", checksum(w, h, imgOut));

  free(imgIn);
  free(imgOut);
  free(y1);
  free(y2);
  return 0;
}
