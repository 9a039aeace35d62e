/* cf_wasm_math.h: the portable set's exp, mish, sigmoid and softmax step
 * (portable/cf_portable_math.h) four lanes at a time in SIMD128. The
 * compiler vectorises the portable loops itself, but poorly: the float to
 * integer conversions and selects it makes of them cost more than the
 * polynomial. Written here with the same operations in the same order
 * (SIMD128 has no fused multiply-add to change a rounding), so every lane
 * equals the portable function's result bit for bit, which
 * tests/backends/test_cpu_row_ops.c and test_cpu_attention_math.c check. */
#ifndef CF_WASM_MATH_H
#define CF_WASM_MATH_H

#include <wasm_simd128.h>

#define CF_WASM_K(x) wasm_f32x4_splat(x)

/* cf_portable_exp: the clamps are pmin/pmax (x < hi ? x : hi sends a NaN
 * to the bound, as the scalar code does); floor as truncation plus the
 * same correction. */
static inline v128_t cf_wasm_exp(v128_t x) {
  x = wasm_f32x4_pmin(CF_WASM_K(88.3762626647949f), x);
  x = wasm_f32x4_pmax(CF_WASM_K(-87.3365447504f), x);
  const v128_t t =
      wasm_f32x4_add(wasm_f32x4_mul(x, CF_WASM_K(1.44269504088896341f)), CF_WASM_K(0.5f));
  v128_t n = wasm_f32x4_trunc(t);
  n = wasm_f32x4_sub(n, wasm_v128_and(wasm_f32x4_gt(n, t), CF_WASM_K(1.0f)));
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, CF_WASM_K(0.693359375f)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, CF_WASM_K(-2.12194440e-4f)));
  v128_t p = CF_WASM_K(1.9875691500E-4f);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), CF_WASM_K(1.3981999507E-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), CF_WASM_K(8.3334519073E-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), CF_WASM_K(4.1665795894E-2f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), CF_WASM_K(1.6666665459E-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), CF_WASM_K(5.0000001201E-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, wasm_f32x4_mul(r, r)),
                     wasm_f32x4_add(r, CF_WASM_K(1.0f)));
  /* 2^n in the exponent bits; n is whole and within [-127, 128] after
   * the clamps, so n + 127 + 2^23 is exact and its low mantissa bits are
   * n + 127: taking away 2^23's bits gives the integer without
   * i32x4.trunc_sat, which engines expand to a long sequence on x86. */
  const v128_t biased = wasm_i32x4_sub(wasm_f32x4_add(n, CF_WASM_K(8388608.0f + 127.0f)),
                                       wasm_i32x4_splat(0x4B000000));
  const v128_t scale = wasm_i32x4_shl(biased, 23);
  return wasm_f32x4_mul(p, scale);
}

/* cf_portable_mish: x n / (n + 2) with n = e^x (e^x + 2); x past 20. */
static inline v128_t cf_wasm_mish(v128_t x) {
  const v128_t lim = CF_WASM_K(20.0f), two = CF_WASM_K(2.0f);
  const v128_t e = cf_wasm_exp(wasm_f32x4_pmin(lim, x));
  const v128_t n = wasm_f32x4_mul(e, wasm_f32x4_add(e, two));
  const v128_t m = wasm_f32x4_div(wasm_f32x4_mul(x, n), wasm_f32x4_add(n, two));
  return wasm_v128_bitselect(x, m, wasm_f32x4_gt(x, lim));
}

/* cf_portable_sigmoid: 1 / (1 + e^-x). */
static inline v128_t cf_wasm_sigmoid(v128_t x) {
  const v128_t one = CF_WASM_K(1.0f);
  return wasm_f32x4_div(one, wasm_f32x4_add(one, cf_wasm_exp(wasm_f32x4_neg(x))));
}

/* cf_portable_softmax_exp: s[k] = exp(s[k] - max s) over 64 scores in
 * place, returning their sum in the portable set's 8 partial lanes (lanes
 * 0-3 and 4-7 of each group of 8) and its order of adding them. The max
 * is the same whatever the order it is taken in (a NaN aside). */
static inline float cf_wasm_softmax_exp(float *s) {
  v128_t m4 = wasm_v128_load(s);
  for (int k = 4; k < 64; k += 4) m4 = wasm_f32x4_pmax(m4, wasm_v128_load(s + k));
  m4 = wasm_f32x4_pmax(m4, wasm_i32x4_shuffle(m4, m4, 2, 3, 0, 1));
  m4 = wasm_f32x4_pmax(m4, wasm_i32x4_shuffle(m4, m4, 1, 0, 3, 2));
  v128_t lo = CF_WASM_K(0.0f), hi = lo;
  for (int k = 0; k < 64; k += 8) {
    const v128_t a = cf_wasm_exp(wasm_f32x4_sub(wasm_v128_load(s + k), m4));
    const v128_t b = cf_wasm_exp(wasm_f32x4_sub(wasm_v128_load(s + k + 4), m4));
    wasm_v128_store(s + k, a);
    wasm_v128_store(s + k + 4, b);
    lo = wasm_f32x4_add(lo, a);
    hi = wasm_f32x4_add(hi, b);
  }
  const v128_t p = wasm_f32x4_add(lo, hi);
  return (wasm_f32x4_extract_lane(p, 0) + wasm_f32x4_extract_lane(p, 2)) +
         (wasm_f32x4_extract_lane(p, 1) + wasm_f32x4_extract_lane(p, 3));
}

#endif /* CF_WASM_MATH_H */
