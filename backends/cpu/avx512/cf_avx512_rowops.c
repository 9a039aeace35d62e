/* cf_avx512_rowops.c: one row of bias + activation, of the norms and of the
 * gating, 16 floats at a time; a row's tail is one masked step, so no
 * scalar loop is left. Every activation is vectorised (cf_act512). The
 * driver (cf_cpu_rowops.c) splits rows across threads. */
#include <math.h>

#include "backends/cpu/avx512/cf_avx512.h"
#include "backends/cpu/avx512/cf_avx512_math.h"
#include "backends/cpu/cf_cpu_row_steps.h"

void cf_avx512_bias_act_row(int n, float *y, const float *bias, cf_op_act act) {
  for (int i = 0; i < n; i += 16) {
    const __mmask16 m = cf_tail16(n - i);
    __m512 v = _mm512_maskz_loadu_ps(m, y + i);
    if (bias) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, bias + i));
    _mm512_mask_storeu_ps(y + i, m, cf_act512(act, v));
  }
}

/* v = skip + alpha x into y (y may alias x or skip); returns the sum and
 * sum of squares of v. Masked-off lanes load as 0 and add nothing. */
static void combine(int w, const float *x, float alpha, const float *skip, float *y, float *sum,
                    float *sq) {
  const __m512 va = _mm512_set1_ps(alpha);
  __m512 s = _mm512_setzero_ps(), q = _mm512_setzero_ps();
  for (int c = 0; c < w; c += 16) {
    const __mmask16 m = cf_tail16(w - c);
    __m512 v = _mm512_mul_ps(va, _mm512_maskz_loadu_ps(m, x + c));
    if (skip) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, skip + c));
    _mm512_mask_storeu_ps(y + c, m, v);
    s = _mm512_add_ps(s, v);
    q = _mm512_fmadd_ps(v, v, q);
  }
  *sum = _mm512_reduce_add_ps(s);
  *sq = _mm512_reduce_add_ps(q);
}

/* y = (y - mean) * inv * gamma + beta, beta may be NULL. */
static void scale_row(int w, float *y, float mean, float inv, const float *gamma,
                      const float *beta) {
  const __m512 vm = _mm512_set1_ps(mean), vi = _mm512_set1_ps(inv);
  for (int c = 0; c < w; c += 16) {
    const __mmask16 m = cf_tail16(w - c);
    __m512 v = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, y + c), vm), vi);
    v = _mm512_mul_ps(v, _mm512_maskz_loadu_ps(m, gamma + c));
    if (beta) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, beta + c));
    _mm512_mask_storeu_ps(y + c, m, v);
  }
}

/* sum (y - mean)^2, 16 columns at a time (masked-off lanes add 0). */
static float centred_squares(int w, const float *y, float mean) {
  const __m512 vm = _mm512_set1_ps(mean);
  __m512 var = _mm512_setzero_ps();
  for (int c = 0; c < w; c += 16) {
    const __mmask16 m = cf_tail16(w - c);
    const __m512 d = _mm512_maskz_sub_ps(m, _mm512_maskz_loadu_ps(m, y + c), vm);
    var = _mm512_fmadd_ps(d, d, var);
  }
  return _mm512_reduce_add_ps(var);
}

CF_CPU_DEFINE_NORM_ROW(cf_avx512_norm_row)

/* x * mult, then + add, rounded separately (not fused) as the other sets
 * do, so every set gives the same gated embedding. */
void cf_avx512_gate_row(int n, float *x, const float *mult, const float *add) {
  for (int i = 0; i < n; i += 16) {
    const __mmask16 m = cf_tail16(n - i);
    __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    if (mult) v = _mm512_mul_ps(v, _mm512_maskz_loadu_ps(m, mult + i));
    if (add) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, add + i));
    _mm512_mask_storeu_ps(x + i, m, v);
  }
}
