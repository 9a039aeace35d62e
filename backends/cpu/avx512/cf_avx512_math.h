/* cf_avx512_math.h: AVX-512 building blocks the avx512 kernels share: a
 * 16-wide exp, every activation (tanh and selu included, which the avx2
 * set leaves scalar), horizontal sums and tail masks. Inline on purpose:
 * they sit in the innermost loops. Only for translation units built with
 * the avx512 flags (backends/meson.build), which run only once the
 * dispatch found the CPU and the OS able to. */
#ifndef CF_AVX512_MATH_H
#define CF_AVX512_MATH_H

#if !(defined(__x86_64__) || defined(__i386__)) || !defined(__AVX512F__) || \
    !defined(__AVX512DQ__) || !defined(__AVX512BW__) || !defined(__AVX512VL__)
#error "cf_avx512_math.h needs an x86 target built with -mavx512f -mavx512dq -mavx512bw -mavx512vl"
#endif

#include <immintrin.h>
#include <stdint.h>

#include "backends/cf_backend.h"

/* 32 bytes at p (unaligned) in a register the compiler keeps: left to
 * itself it folds such a load into every instruction that uses the value,
 * and the attention's table runs, each used twice and often across a cache
 * line, were then loaded twice and were what the scores waited on. */
static inline __m256i cf_load256_kept(const void *p) {
  __m256i x = _mm256_loadu_si256((const __m256i *)p);
  __asm__("" : "+v"(x));
  return x;
}

/* The 4 bytes at x (a bf16 pair, an 8-bit quad) in every 32-bit lane. */
static inline __m512i cf_bcast32(const void *x) {
  int32_t w;
  __builtin_memcpy(&w, x, sizeof w);
  return _mm512_set1_epi32(w);
}

/* Lanes i < n set (none for n <= 0, all for n >= 16): the mask of a
 * row's tail. */
static inline __mmask16 cf_tail16(int n) {
  if (n <= 0) return 0;
  return n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1u);
}

/* The bf16 of each lane (nearest even on the integer bits, NaN quieted:
 * the portable set's rounding, which keeps denormals where VCVTNEPS2BF16
 * flushes them) in the lane's low 16 bits, the high bits 0. */
static inline __m512i cf_avx512_bf16_bits(__m512 x) {
  const __m512i u = _mm512_castps_si512(x);
  const __m512i hi = _mm512_srli_epi32(u, 16);
  const __m512i lsb = _mm512_and_si512(hi, _mm512_set1_epi32(1));
  const __m512i r = _mm512_srli_epi32(
      _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), lsb), 16);
  /* NaN (|u| above infinity's bits; a signed compare is right with the
   * sign cleared): its top bits, quieted. */
  const __mmask16 nan = _mm512_cmpgt_epi32_mask(
      _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
  return _mm512_mask_or_epi32(r, nan, hi, _mm512_set1_epi32(0x40));
}

/* e^x for 16 floats: the avx2 set's method (cf_avx2_math.h: x = n ln2 + r,
 * ln2 in two parts, Cephes' degree-5 polynomial, about 1 ulp), with the
 * 2^n scaling done by vscalefps, which also handles the clamped ends. */
static inline __m512 cf_exp512(__m512 x) {
  x = _mm512_min_ps(x, _mm512_set1_ps(88.3762626647949f));
  x = _mm512_max_ps(x, _mm512_set1_ps(-87.3365447504f));
  const __m512 n = _mm512_roundscale_ps(
      _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500E-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507E-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073E-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894E-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459E-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201E-1f));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(p, n);
}

/* The exponentials of a score row's softmax, in registers (one load of
 * the row): v = s * scale + bias (bias a row of 64, or NULL), e[j] =
 * exp(v - max v) for the row's four vectors; returns their sum. The
 * attention cores' softmax steps (float32, bf16 and int8 weights) differ
 * only in what they make of e. s is 64-byte aligned. */
static inline float cf_softmax_exp512(const float *s, float scale, const float *bias,
                                      __m512 e[4]) {
  const __m512 sc = _mm512_set1_ps(scale);
  __m512 v[4];
  for (int j = 0; j < 4; j++) {
    v[j] = _mm512_mul_ps(_mm512_load_ps(s + 16 * j), sc);
    if (bias) v[j] = _mm512_add_ps(v[j], _mm512_loadu_ps(bias + 16 * j));
  }
  const __m512 mx = _mm512_set1_ps(
      _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(v[0], v[1]), _mm512_max_ps(v[2], v[3]))));
  __m512 sum = _mm512_setzero_ps();
  for (int j = 0; j < 4; j++) {
    e[j] = cf_exp512(_mm512_sub_ps(v[j], mx));
    sum = _mm512_add_ps(sum, e[j]);
  }
  return _mm512_reduce_add_ps(sum);
}

/* mish(x) = x n / (n + 2) with n = e^x (e^x + 2) (see ref/cf_ref_act.h);
 * x itself past 20, where n would overflow. */
static inline __m512 cf_mish512(__m512 x) {
  const __m512 e = cf_exp512(_mm512_min_ps(x, _mm512_set1_ps(20.0f)));
  const __m512 n = _mm512_mul_ps(e, _mm512_add_ps(e, _mm512_set1_ps(2.0f)));
  const __m512 m = _mm512_div_ps(_mm512_mul_ps(x, n), _mm512_add_ps(n, _mm512_set1_ps(2.0f)));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(20.0f), _CMP_GT_OQ), m, x);
}

static inline __m512 cf_sigmoid512(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  return _mm512_div_ps(one, _mm512_add_ps(one, cf_exp512(_mm512_sub_ps(_mm512_setzero_ps(), x))));
}

/* tanh(x) = sign(x) (1 - e) / (1 + e) with e = e^(-2|x|) <= 1, so nothing
 * overflows; near 0 the difference 1 - e loses relative precision but its
 * absolute error stays near one float ulp of 1. */
static inline __m512 cf_tanh512(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 ax = _mm512_abs_ps(x);
  const __m512 e = cf_exp512(_mm512_mul_ps(ax, _mm512_set1_ps(-2.0f)));
  const __m512 t = _mm512_div_ps(_mm512_sub_ps(one, e), _mm512_add_ps(one, e));
  /* copy x's sign bit onto t (t >= 0) */
  return _mm512_or_ps(t, _mm512_and_ps(x, _mm512_set1_ps(-0.0f)));
}

static inline __m512 cf_selu512(__m512 x) {
  const __m512 scale = _mm512_set1_ps(1.0507009873554805f);
  const __m512 sa = _mm512_set1_ps(1.0507009873554805f * 1.6732632423543772f);
  const __m512 neg = _mm512_mul_ps(sa, _mm512_sub_ps(cf_exp512(_mm512_min_ps(x, _mm512_setzero_ps())),
                                                      _mm512_set1_ps(1.0f)));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ), neg,
                              _mm512_mul_ps(scale, x));
}

static inline __m512 cf_act512(cf_op_act act, __m512 x) {
  switch (act) {
    case CF_OP_ACT_MISH: return cf_mish512(x);
    case CF_OP_ACT_RELU: return _mm512_max_ps(x, _mm512_setzero_ps());
    case CF_OP_ACT_NONE: return x;
    case CF_OP_ACT_TANH: return cf_tanh512(x);
    case CF_OP_ACT_SIGMOID: return cf_sigmoid512(x);
    case CF_OP_ACT_SELU: return cf_selu512(x);
    case CF_OP_ACT_SWISH: return _mm512_mul_ps(x, cf_sigmoid512(x));
    case CF_OP_ACT_RELU2: {
      const __m512 r = _mm512_max_ps(x, _mm512_setzero_ps());
      return _mm512_mul_ps(r, r);
    }
  }
  return x;
}

#endif /* CF_AVX512_MATH_H */
