/* cf_wasm_rowops.c: one row of bias + activation, of the norms and of the
 * gates in SIMD128. The sums keep the portable set's 8 partial lanes (two
 * vectors, lanes 0-3 and 4-7) and add them in its order, so a norm comes
 * out as the portable set's does. Mish, sigmoid and swish are the
 * portable set's formulas in SIMD128 (cf_wasm_math.h), bit for bit; tanh
 * and selu are the portable set's loops (libm's formulas). */
#include <math.h>
#include <wasm_simd128.h>

#include "backends/cpu/cf_cpu_row_steps.h"
#include "backends/cpu/portable/cf_portable.h"
#include "backends/cpu/wasm/cf_wasm.h"
#include "backends/cpu/wasm/cf_wasm_math.h"

void cf_wasm_bias_act_row(int n, float *y, const float *bias, cf_op_act act) {
  const v128_t zero = wasm_f32x4_splat(0.0f);
  int i = 0;
  switch (act) {
    case CF_OP_ACT_NONE:
    case CF_OP_ACT_RELU:
    case CF_OP_ACT_RELU2:
      for (; i + 4 <= n; i += 4) {
        v128_t v = wasm_v128_load(y + i);
        if (bias) v = wasm_f32x4_add(v, wasm_v128_load(bias + i));
        if (act != CF_OP_ACT_NONE) {
          /* x > 0 ? x : 0, as the portable set (a NaN becomes 0). */
          v = wasm_v128_and(v, wasm_f32x4_gt(v, zero));
          if (act == CF_OP_ACT_RELU2) v = wasm_f32x4_mul(v, v);
        }
        wasm_v128_store(y + i, v);
      }
      /* The tail: no + 0.0f without a bias (it would turn -0 into +0). */
      for (; i < n; i++) {
        float v = bias ? y[i] + bias[i] : y[i];
        if (act != CF_OP_ACT_NONE) v = v > 0.0f ? v : 0.0f;
        y[i] = act == CF_OP_ACT_RELU2 ? v * v : v;
      }
      return;
    case CF_OP_ACT_MISH:
    case CF_OP_ACT_SIGMOID:
    case CF_OP_ACT_SWISH:
      for (; i + 4 <= n; i += 4) {
        v128_t v = wasm_v128_load(y + i);
        if (bias) v = wasm_f32x4_add(v, wasm_v128_load(bias + i));
        if (act == CF_OP_ACT_MISH)
          v = cf_wasm_mish(v);
        else if (act == CF_OP_ACT_SIGMOID)
          v = cf_wasm_sigmoid(v);
        else
          v = wasm_f32x4_mul(v, cf_wasm_sigmoid(v));
        wasm_v128_store(y + i, v);
      }
      cf_portable_bias_act_row(n - i, y + i, bias ? bias + i : NULL, act);
      return;
    default: /* tanh, selu: libm's formulas in the portable set */
      cf_portable_bias_act_row(n, y, bias, act);
      return;
  }
}

/* The portable set's order: ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)). */
static float sum_lanes(v128_t lo, v128_t hi) {
  const v128_t p = wasm_f32x4_add(lo, hi);
  return (wasm_f32x4_extract_lane(p, 0) + wasm_f32x4_extract_lane(p, 2)) +
         (wasm_f32x4_extract_lane(p, 1) + wasm_f32x4_extract_lane(p, 3));
}

/* v = skip + alpha x into y (y may alias x or skip); the sum and the sum
 * of squares of v. */
static void combine(int w, const float *x, float alpha, const float *skip, float *y, float *sum,
                    float *sq) {
  const v128_t va = wasm_f32x4_splat(alpha);
  v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0, q0 = s0, q1 = s0;
  int c = 0;
  for (; c + 8 <= w; c += 8) {
    v128_t v0 = wasm_f32x4_mul(va, wasm_v128_load(x + c));
    v128_t v1 = wasm_f32x4_mul(va, wasm_v128_load(x + c + 4));
    if (skip) {
      v0 = wasm_f32x4_add(v0, wasm_v128_load(skip + c));
      v1 = wasm_f32x4_add(v1, wasm_v128_load(skip + c + 4));
    }
    wasm_v128_store(y + c, v0);
    wasm_v128_store(y + c + 4, v1);
    s0 = wasm_f32x4_add(s0, v0);
    s1 = wasm_f32x4_add(s1, v1);
    q0 = wasm_f32x4_add(q0, wasm_f32x4_mul(v0, v0));
    q1 = wasm_f32x4_add(q1, wasm_f32x4_mul(v1, v1));
  }
  *sum = sum_lanes(s0, s1);
  *sq = sum_lanes(q0, q1);
  cf_cpu_combine_tail(c, w, x, alpha, skip, y, sum, sq);
}

static float centred_squares(int w, const float *y, float mean) {
  const v128_t vm = wasm_f32x4_splat(mean);
  v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0;
  int c = 0;
  for (; c + 8 <= w; c += 8) {
    const v128_t d0 = wasm_f32x4_sub(wasm_v128_load(y + c), vm);
    const v128_t d1 = wasm_f32x4_sub(wasm_v128_load(y + c + 4), vm);
    s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(d0, d0));
    s1 = wasm_f32x4_add(s1, wasm_f32x4_mul(d1, d1));
  }
  float t = sum_lanes(s0, s1);
  for (; c < w; c++) t += (y[c] - mean) * (y[c] - mean);
  return t;
}

/* y = (y - mean) * inv * gamma (+ beta), rounded as the portable set. */
static void scale_row(int w, float *y, float mean, float inv, const float *gamma,
                      const float *beta) {
  const v128_t vm = wasm_f32x4_splat(mean), vi = wasm_f32x4_splat(inv);
  int c = 0;
  for (; c + 4 <= w; c += 4) {
    v128_t v = wasm_f32x4_mul(wasm_f32x4_sub(wasm_v128_load(y + c), vm), vi);
    v = wasm_f32x4_mul(v, wasm_v128_load(gamma + c));
    if (beta) v = wasm_f32x4_add(v, wasm_v128_load(beta + c));
    wasm_v128_store(y + c, v);
  }
  for (; c < w; c++) {
    y[c] = (y[c] - mean) * inv * gamma[c];
    if (beta) y[c] += beta[c];
  }
}

CF_CPU_DEFINE_NORM_ROW(cf_wasm_norm_row)

void cf_wasm_gate_row(int n, float *x, const float *mult, const float *add) {
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    v128_t v = wasm_v128_load(x + i);
    if (mult) v = wasm_f32x4_mul(v, wasm_v128_load(mult + i));
    if (add) v = wasm_f32x4_add(v, wasm_v128_load(add + i));
    wasm_v128_store(x + i, v);
  }
  cf_cpu_gate_tail(i, n, x, mult, add);
}
