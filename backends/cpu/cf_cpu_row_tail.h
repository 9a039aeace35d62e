/* cf_cpu_row_tail.h: the scalar tails of the row ops, one copy for every
 * kernel set whose vector body leaves a few columns over (avx2, wasm) and
 * for the portable set's own tail, so each rounds them alike: the same
 * operations in the same order (no fused multiply-add: C11 mode keeps
 * a * b + c two roundings). Inline, so each set compiles them with its
 * own flags as it did when they were written out in its file. */
#ifndef CF_CPU_ROW_TAIL_H
#define CF_CPU_ROW_TAIL_H

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

#endif /* CF_CPU_ROW_TAIL_H */
