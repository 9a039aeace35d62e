/* cf_portable_rowops.c: one row of bias + activation and of the norms in
 * plain C. Each loop has one job and no loop-invariant branch inside, so
 * the compiler vectorises it; sums keep 8 partial lanes, as the avx2 set
 * does, both for speed (a float reduction only vectorises when split by
 * hand) and to round alike. */
#include <math.h>

#include "backends/cpu/cf_cpu_row_steps.h"
#include "backends/cpu/portable/cf_portable.h"
#include "backends/cpu/portable/cf_portable_math.h"
#include "backends/ref/cf_ref_act.h"

enum { LANES = 8 };

void cf_portable_bias_act_row(int n, float *restrict y, const float *restrict bias,
                              cf_op_act act) {
  if (bias)
    for (int i = 0; i < n; i++) y[i] += bias[i];
  switch (act) {
    case CF_OP_ACT_NONE: return;
    case CF_OP_ACT_MISH:
      for (int i = 0; i < n; i++) y[i] = cf_portable_mish(y[i]);
      return;
    case CF_OP_ACT_RELU:
      for (int i = 0; i < n; i++) y[i] = y[i] > 0.0f ? y[i] : 0.0f;
      return;
    case CF_OP_ACT_SIGMOID:
      for (int i = 0; i < n; i++) y[i] = cf_portable_sigmoid(y[i]);
      return;
    case CF_OP_ACT_SWISH:
      for (int i = 0; i < n; i++) y[i] *= cf_portable_sigmoid(y[i]);
      return;
    case CF_OP_ACT_RELU2:
      for (int i = 0; i < n; i++) {
        const float r = y[i] > 0.0f ? y[i] : 0.0f;
        y[i] = r * r;
      }
      return;
    case CF_OP_ACT_TANH:
    case CF_OP_ACT_SELU:
      /* libm's formulas, as the avx2 set does: only small heads use them. */
      for (int i = 0; i < n; i++) y[i] = cf_ref_activate(act, y[i]);
      return;
  }
}

static float sum_lanes(const float *l) {
  return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}

/* v = skip + alpha x into y (y may alias x or skip); returns the sum and
 * the sum of squares of v. */
static void combine(int w, const float *x, float alpha, const float *skip, float *y, float *sum,
                    float *sq) {
  float s[LANES] = {0}, q[LANES] = {0};
  int c = 0;
  for (; c + LANES <= w; c += LANES)
    for (int l = 0; l < LANES; l++) {
      float v = alpha * x[c + l];
      if (skip) v += skip[c + l];
      y[c + l] = v;
      s[l] += v;
      q[l] += v * v;
    }
  *sum = sum_lanes(s);
  *sq = sum_lanes(q);
  cf_cpu_combine_tail(c, w, x, alpha, skip, y, sum, sq);
}

/* sum (y - mean)^2. Two-pass variance: E[v^2] - mean^2 cancels badly when
 * |mean| >> std. */
static float centred_squares(int w, const float *y, float mean) {
  float s[LANES] = {0};
  int c = 0;
  for (; c + LANES <= w; c += LANES)
    for (int l = 0; l < LANES; l++) s[l] += (y[c + l] - mean) * (y[c + l] - mean);
  float t = sum_lanes(s);
  for (; c < w; c++) t += (y[c] - mean) * (y[c] - mean);
  return t;
}

/* y = (y - mean) * inv * gamma + beta, beta may be NULL. */
static void scale_row(int w, float *restrict y, float mean, float inv, const float *restrict gamma,
                      const float *restrict beta) {
  for (int c = 0; c < w; c++) y[c] = (y[c] - mean) * inv * gamma[c];
  if (beta)
    for (int c = 0; c < w; c++) y[c] += beta[c];
}

CF_CPU_DEFINE_NORM_ROW(cf_portable_norm_row)

/* One loop per case, so each vectorises without a branch inside. */
void cf_portable_gate_row(int n, float *restrict x, const float *restrict mult,
                          const float *restrict add) {
  if (mult)
    for (int i = 0; i < n; i++) x[i] *= mult[i];
  if (add)
    for (int i = 0; i < n; i++) x[i] += add[i];
}
