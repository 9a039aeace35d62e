/* cf_cpu_rowops.c: the row-wise kernels (bias + activation, norms, gating),
 * AVX2+FMA with scalar tails, rows split across the instance's threads. */
#include <math.h>

#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_math.h"
#include "backends/ref/cf_ref_act.h"

/* Below this many floats a parallel region costs more than it saves. */
enum { PARALLEL_MIN_FLOATS = 16384 };

static int threads_for(const cf_cpu_ctx *c, long long floats) {
  return floats >= PARALLEL_MIN_FLOATS ? c->threads : 1;
}

static void bias_act_row(int n, float *y, const float *bias, cf_op_act act) {
  int i = 0;
  if (cf_act_vectorised(act)) {
    for (; i + 8 <= n; i += 8) {
      __m256 v = _mm256_loadu_ps(y + i);
      if (bias) v = _mm256_add_ps(v, _mm256_loadu_ps(bias + i));
      _mm256_storeu_ps(y + i, cf_act256(act, v));
    }
  }
  for (; i < n; i++) y[i] = cf_ref_activate(act, y[i] + (bias ? bias[i] : 0.0f));
}

void cf_cpu_bias_act(const cf_cpu_ctx *c, int rows, int n, float *y, const cf_bweight *bias,
                     cf_op_act act) {
  if (!bias && act == CF_OP_ACT_NONE) return;
  const float *b = bias ? bias->data : NULL;
  int nt = threads_for(c, (long long)rows * n);
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (int r = 0; r < rows; r++) bias_act_row(n, y + (size_t)r * n, b, act);
}

/* v = skip + alpha x into y (y may alias x or skip); returns the sum and
 * sum of squares of v. */
static void combine(int w, const float *x, float alpha, const float *skip, float *y, float *sum,
                    float *sq) {
  __m256 va = _mm256_set1_ps(alpha), s = _mm256_setzero_ps(), q = _mm256_setzero_ps();
  int c = 0;
  for (; c + 8 <= w; c += 8) {
    __m256 v = _mm256_mul_ps(va, _mm256_loadu_ps(x + c));
    if (skip) v = _mm256_add_ps(v, _mm256_loadu_ps(skip + c));
    _mm256_storeu_ps(y + c, v);
    s = _mm256_add_ps(s, v);
    q = _mm256_fmadd_ps(v, v, q);
  }
  float ss = cf_hsum256(s), qq = cf_hsum256(q);
  for (; c < w; c++) {
    float v = (skip ? skip[c] : 0.0f) + alpha * x[c];
    y[c] = v;
    ss += v;
    qq += v * v;
  }
  *sum = ss;
  *sq = qq;
}

/* y = (y - mean) * inv * gamma + beta, beta may be NULL. */
static void scale_row(int w, float *y, float mean, float inv, const float *gamma,
                      const float *beta) {
  __m256 vm = _mm256_set1_ps(mean), vi = _mm256_set1_ps(inv);
  int c = 0;
  for (; c + 8 <= w; c += 8) {
    __m256 v = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(y + c), vm), vi);
    v = _mm256_mul_ps(v, _mm256_loadu_ps(gamma + c));
    if (beta) v = _mm256_add_ps(v, _mm256_loadu_ps(beta + c));
    _mm256_storeu_ps(y + c, v);
  }
  for (; c < w; c++) y[c] = (y[c] - mean) * inv * gamma[c] + (beta ? beta[c] : 0.0f);
}

static void norm_row(cf_norm_kind kind, int w, const float *x, float alpha, const float *skip,
                     const float *gamma, const float *beta, float eps, float *y) {
  float sum, sq;
  combine(w, x, alpha, skip, y, &sum, &sq);
  if (kind == CF_NORM_RMS) {
    scale_row(w, y, 0.0f, 1.0f / sqrtf(sq / (float)w + eps), gamma, NULL);
  } else {
    /* Two-pass variance: E[v^2] - mean^2 cancels badly when |mean| >> std. */
    float mean = sum / (float)w, var = 0.0f;
    for (int c = 0; c < w; c++) var += (y[c] - mean) * (y[c] - mean);
    scale_row(w, y, mean, 1.0f / sqrtf(var / (float)w + eps), gamma, beta);
  }
}

void cf_cpu_norm(void *ctx, cf_norm_kind kind, int rows, int width, const float *x, float alpha,
                 const float *skip, const cf_bweight *gamma, const cf_bweight *beta, float eps,
                 float *y) {
  const cf_cpu_ctx *c = ctx;
  const float *g = gamma->data, *bt = beta ? beta->data : NULL;
  int nt = threads_for(c, (long long)rows * width);
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (int r = 0; r < rows; r++) {
    size_t o = (size_t)r * width;
    norm_row(kind, width, x + o, alpha, skip ? skip + o : NULL, g, bt, eps, y + o);
  }
}

/* x[b][t][c] = x * mult[t][c] + add[t][c] (gates stored token-major). */
void cf_cpu_gate(void *ctx, int batch, int d, float *x, const cf_bweight *mult,
                 const cf_bweight *add) {
  (void)ctx;
  for (int b = 0; b < batch; b++)
    for (int t = 0; t < 64; t++) {
      float *xt = x + ((size_t)b * 64 + t) * d;
      const float *m = mult ? mult->data + (size_t)t * d : NULL;
      const float *a = add ? add->data + (size_t)t * d : NULL;
      for (int c = 0; c < d; c++) {
        if (m) xt[c] *= m[c];
        if (a) xt[c] += a[c];
      }
    }
}
