/* cf_cpu_row_steps.h: what the kernel sets' row ops share. The norm row
 * from each set's own steps, and the scalar tails, one copy for every set
 * whose vector body leaves a few columns over (avx2, wasm) and for the
 * portable set's own tail, so each rounds them alike: the same operations
 * in the same order (no fused multiply-add: C11 mode keeps a * b + c two
 * roundings). Inline or a macro, so each set compiles them with its own
 * flags, as it did when they were written out in its file. */
#ifndef CF_CPU_ROW_STEPS_H
#define CF_CPU_ROW_STEPS_H

#include <math.h>

#include "backends/cpu/cf_cpu_kernels.h"

/* A kernel set's norm_row (cf_cpu_kernels.h), defined as `void name(...)`
 * from the set's three static steps, which the file defines first:
 *   combine(w, x, alpha, skip, y, &sum, &sq): v = skip + alpha x into y,
 *     its sum and sum of squares;
 *   centred_squares(w, y, mean): sum (v - mean)^2. Two-pass variance:
 *     E[v^2] - mean^2 cancels badly when |mean| >> std;
 *   scale_row(w, y, mean, inv, gamma, beta): (v - mean) * inv * gamma,
 *     + beta unless NULL. */
#define CF_CPU_DEFINE_NORM_ROW(name)                                                             \
  void name(cf_norm_kind kind, int w, const float *x, float alpha, const float *skip,            \
            const float *gamma, const float *beta, float eps, float *y) {                        \
    float sum, sq;                                                                               \
    combine(w, x, alpha, skip, y, &sum, &sq);                                                    \
    if (kind == CF_NORM_RMS) {                                                                   \
      scale_row(w, y, 0.0f, 1.0f / sqrtf(sq / (float)w + eps), gamma, NULL);                     \
    } else {                                                                                     \
      const float mean = sum / (float)w;                                                         \
      scale_row(w, y, mean, 1.0f / sqrtf(centred_squares(w, y, mean) / (float)w + eps), gamma,   \
                beta);                                                                           \
    }                                                                                            \
  }

/* Columns [c, w) of a norm's first step: v = skip + alpha x into y (y may
 * alias x or skip), with v added to *sum and v * v to *sq. */
static inline void cf_cpu_combine_tail(int c, int w, const float *x, float alpha,
                                       const float *skip, float *y, float *sum, float *sq) {
  float ss = *sum, qq = *sq;
  for (; c < w; c++) {
    const float v = (skip ? skip[c] : 0.0f) + alpha * x[c];
    y[c] = v;
    ss += v;
    qq += v * v;
  }
  *sum = ss;
  *sq = qq;
}

/* Items [i, n) of a gate: x * mult, then + add, rounded separately. */
static inline void cf_cpu_gate_tail(int i, int n, float *x, const float *mult, const float *add) {
  for (; i < n; i++) {
    if (mult) x[i] *= mult[i];
    if (add) x[i] += add[i];
  }
}

#endif /* CF_CPU_ROW_STEPS_H */
