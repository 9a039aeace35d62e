/* cf_avx2_rowops.c: one row of bias + activation and of the norms, AVX2 +
 * FMA with scalar tails. The driver (cf_cpu_rowops.c) splits rows across
 * threads. */
#include <math.h>

#include "backends/cpu/avx2/cf_avx2.h"
#include "backends/cpu/avx2/cf_avx2_math.h"
#include "backends/cpu/cf_cpu_row_steps.h"
#include "backends/ref/cf_ref_act.h"

void cf_avx2_bias_act_row(int n, float *y, const float *bias, cf_op_act act) {
  int i = 0;
  if (cf_act_vectorised(act)) {
    for (; i + 8 <= n; i += 8) {
      __m256 v = _mm256_loadu_ps(y + i);
      if (bias) v = _mm256_add_ps(v, _mm256_loadu_ps(bias + i));
      _mm256_storeu_ps(y + i, cf_act256(act, v));
    }
  }
  /* No + 0.0f without a bias: it would turn -0 into +0, where the other
   * sets keep the sign. */
  for (; i < n; i++) y[i] = cf_ref_activate(act, bias ? y[i] + bias[i] : y[i]);
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
  *sum = cf_hsum256(s);
  *sq = cf_hsum256(q);
  cf_cpu_combine_tail(c, w, x, alpha, skip, y, sum, sq);
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

/* sum (y - mean)^2, one column at a time. */
static float centred_squares(int w, const float *y, float mean) {
  float var = 0.0f;
  for (int c = 0; c < w; c++) var += (y[c] - mean) * (y[c] - mean);
  return var;
}

CF_CPU_DEFINE_NORM_ROW(cf_avx2_norm_row)

/* x * mult, then + add, rounded separately as the portable set does. */
void cf_avx2_gate_row(int n, float *x, const float *mult, const float *add) {
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    if (mult) v = _mm256_mul_ps(v, _mm256_loadu_ps(mult + i));
    if (add) v = _mm256_add_ps(v, _mm256_loadu_ps(add + i));
    _mm256_storeu_ps(x + i, v);
  }
  cf_cpu_gate_tail(i, n, x, mult, add);
}
