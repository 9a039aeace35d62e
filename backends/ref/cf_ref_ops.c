/* cf_ref_ops.c: the reference backend's dense ops, one function each. */
#include <math.h>

#include "backends/ref/cf_ref_act.h"
#include "backends/ref/cf_ref_internal.h"

/* y[rows][out] = act(x[rows][in] W^T + b[out]), W stored as wt[in][out].
 * Row by row: y[r] = b + sum over i of x[r][i] * wt[i], which sums every
 * output in the same order as a dot product would, and lets the compiler
 * vectorise across outputs (about 2x evals/s on the parity nets over the
 * dot-product loop on [out][in]). */
void cf_ref_linear(void *ctx, int rows, int in, int out, const float *x, const cf_bweight *w,
                   const cf_bweight *b, cf_op_act act, float *y) {
  (void)ctx;
  for (int r = 0; r < rows; r++) {
    const float *xr = x + (size_t)r * in; /* [in] */
    float *yr = y + (size_t)r * out;      /* [out] */
    for (int o = 0; o < out; o++) yr[o] = b ? b->data[o] : 0.0f;
    for (int i = 0; i < in; i++) {
      const float xi = xr[i], *wi = w->data + (size_t)i * out; /* [out] */
      for (int o = 0; o < out; o++) yr[o] += xi * wi[o];
    }
    for (int o = 0; o < out; o++) yr[o] = cf_ref_activate(act, yr[o]);
  }
}

/* y[rows][width] = Norm(skip + alpha x), row by row. */
void cf_ref_norm(void *ctx, cf_norm_kind kind, int rows, int width, const float *x, float alpha,
                 const float *skip, const cf_bweight *gamma, const cf_bweight *beta, float eps,
                 float *y) {
  (void)ctx;
  for (int r = 0; r < rows; r++) {
    size_t base = (size_t)r * width;
    /* v[width] = skip + alpha x, written into y (y may alias x or skip:
     * each element is read before it is written). */
    float *v = y + base;
    for (int c = 0; c < width; c++) v[c] = (skip ? skip[base + c] : 0.0f) + alpha * x[base + c];

    if (kind == CF_NORM_RMS) {
      float sq = 0.0f;
      for (int c = 0; c < width; c++) sq += v[c] * v[c];
      float inv = 1.0f / sqrtf(sq / (float)width + eps);
      for (int c = 0; c < width; c++) v[c] = v[c] * inv * gamma->data[c];
    } else {
      float mean = 0.0f;
      for (int c = 0; c < width; c++) mean += v[c];
      mean /= (float)width;
      float var = 0.0f;
      for (int c = 0; c < width; c++) var += (v[c] - mean) * (v[c] - mean);
      var /= (float)width;
      float inv = 1.0f / sqrtf(var + eps);
      for (int c = 0; c < width; c++)
        v[c] = (v[c] - mean) * inv * gamma->data[c] + (beta ? beta->data[c] : 0.0f);
    }
  }
}

/* x[batch][64][d] in place: x[t][c] = x[t][c] * mult[c][t] + add[c][t]. */
void cf_ref_gate(void *ctx, int batch, int d, float *x, const cf_bweight *mult,
                 const cf_bweight *add) {
  (void)ctx;
  for (int b = 0; b < batch; b++)
    for (int t = 0; t < 64; t++) {
      float *xt = x + ((size_t)b * 64 + t) * d; /* [d] */
      for (int c = 0; c < d; c++) {
        if (mult) xt[c] *= mult->data[c * 64 + t];
        if (add) xt[c] += add->data[c * 64 + t];
      }
    }
}

/* c[b][m][n] = scale * a[b][m][k] bm[b][n][k]^T */
void cf_ref_matmul_nt(void *ctx, int batch, int m, int n, int k, const float *a, const float *bm,
                      float scale, float *c) {
  (void)ctx;
  for (int b = 0; b < batch; b++) {
    const float *ab = a + (size_t)b * m * k;  /* [m][k] */
    const float *bb = bm + (size_t)b * n * k; /* [n][k] */
    float *cb = c + (size_t)b * m * n;        /* [m][n] */
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) {
        float acc = 0.0f;
        for (int l = 0; l < k; l++) acc += ab[(size_t)i * k + l] * bb[(size_t)j * k + l];
        cb[(size_t)i * n + j] = scale * acc;
      }
  }
}

/* dst[r][c] (row stride ld_dst) = src[r][c] (row stride ld_src) */
void cf_ref_copy_2d(void *ctx, int rows, int cols, const float *src, int ld_src, float *dst,
                    int ld_dst) {
  (void)ctx;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) dst[(size_t)r * ld_dst + c] = src[(size_t)r * ld_src + c];
}
