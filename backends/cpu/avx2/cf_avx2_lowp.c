/* cf_avx2_lowp.c: the reduced-precision projections' row ops
 * (cf_cpu_kernels.h), AVX2 with scalar tails; bit for bit the portable
 * set's results (cf_portable_lowp.c). */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "backends/cpu/avx2/cf_avx2.h"
#include "backends/cpu/avx2/cf_avx2_math.h"
#include "backends/ref/cf_ref_act.h"

/* The portable rounding for one value (the tails). */
static uint16_t bf16_one(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* 8 floats' bf16 bits, one per 32-bit lane. */
static __m256i bf16_8(__m256i u) {
  const __m256i hi = _mm256_srli_epi32(u, 16);
  const __m256i r = _mm256_srli_epi32(
      _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)),
                       _mm256_and_si256(hi, _mm256_set1_epi32(1))),
      16);
  /* NaN: |u| above infinity's bits (a signed compare is right with the
   * sign cleared); its top bits, quieted. */
  const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)),
                                         _mm256_set1_epi32(0x7f800000));
  return _mm256_blendv_epi8(r, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)), nan);
}

void cf_avx2_to_bf16_row(int n, const float *x, uint16_t *y) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i a = bf16_8(_mm256_castps_si256(_mm256_loadu_ps(x + i)));
    const __m256i b = bf16_8(_mm256_castps_si256(_mm256_loadu_ps(x + i + 8)));
    /* Values fit 16 bits unsigned, so packus keeps them; it interleaves
     * the 128-bit halves, which the permute puts back in order. */
    const __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
    _mm256_storeu_si256((__m256i *)(y + i), p);
  }
  for (; i < n; i++) y[i] = bf16_one(x[i]);
}

/* The row's scale, max|x| / 127 (1 for an all-zero row). */
static float row_scale_of(int n, const float *x) {
  /* For finite values the float max of |x| is the portable set's
   * bit-pattern max. */
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  __m256 m0 = _mm256_setzero_ps(), m1 = _mm256_setzero_ps();
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    m0 = _mm256_max_ps(m0, _mm256_and_ps(abs_mask, _mm256_loadu_ps(x + i)));
    m1 = _mm256_max_ps(m1, _mm256_and_ps(abs_mask, _mm256_loadu_ps(x + i + 8)));
  }
  float amax = cf_hmax256(_mm256_max_ps(m0, m1));
  for (; i < n; i++) {
    const float a = fabsf(x[i]);
    amax = a > amax ? a : amax;
  }
  return amax > 0 ? amax / 127.0f : 1.0f;
}

/* The portable rounding of one value (the tails); the product its own
 * statement so that no compiler fuses it with the add (this file has
 * FMA). */
static int rounded_one(float x, float inv) {
  const float magic = 12582912.0f;
  const float p = x * inv;
  return (int)((p + magic) - magic);
}

/* 32 values x * inv rounded to nearest even, plus `add`, as 16-bit lanes
 * in two registers: vcvtps2dq rounds so in the default MXCSR mode, as the
 * portable add-and-subtract does; |v| <= 127 plus an ulp, so the
 * saturating pack never saturates. packs interleaves the 128-bit halves;
 * the callers' final permute puts the 32 bytes back in order. */
static void rounded32(const float *x, __m256 inv, __m256i add, __m256i *lo, __m256i *hi) {
  const __m256i a = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x), inv));
  const __m256i b = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + 8), inv));
  const __m256i c = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + 16), inv));
  const __m256i d = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + 24), inv));
  *lo = _mm256_packs_epi32(_mm256_add_epi32(a, add), _mm256_add_epi32(b, add));
  *hi = _mm256_packs_epi32(_mm256_add_epi32(c, add), _mm256_add_epi32(d, add));
}

/* quantize_row (u8 false) or quantize_row_u8 (true): the two differ only
 * in the 128 added and the pack's signedness; inlined into each with u8 a
 * constant. */
static inline __attribute__((always_inline)) float quantize_bytes(int n, const float *x,
                                                                  uint8_t *q, bool u8) {
  const float s = row_scale_of(n, x);
  const float inv = 1.0f / s;
  const __m256 vinv = _mm256_set1_ps(inv);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  const int add = u8 ? 128 : 0;
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i lo, hi;
    rounded32(x + i, vinv, _mm256_set1_epi32(add), &lo, &hi);
    /* s8: -127 to 127, the signed pack; u8: v + 128 is 1 to 255, the
     * unsigned one. */
    const __m256i p = u8 ? _mm256_packus_epi16(lo, hi) : _mm256_packs_epi16(lo, hi);
    _mm256_storeu_si256((__m256i *)(q + i), _mm256_permutevar8x32_epi32(p, order));
  }
  for (; i < n; i++) q[i] = (uint8_t)(rounded_one(x[i], inv) + add);
  return s;
}

float cf_avx2_quantize_row(int n, const float *x, int8_t *q) {
  return quantize_bytes(n, x, (uint8_t *)q, false);
}

float cf_avx2_quantize_row_u8(int n, const float *x, uint8_t *q) {
  return quantize_bytes(n, x, q, true);
}

void cf_avx2_dequant_bias_act_row(int n, const int32_t *acc, const int32_t *offset,
                                  float row_scale, const float *col_scale, const float *bias,
                                  cf_op_act act, float *y) {
  int i = 0;
  if (cf_act_vectorised(act)) {
    const __m256 rs = _mm256_set1_ps(row_scale);
    for (; i + 8 <= n; i += 8) {
      const __m256i a = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(acc + i)),
                                         _mm256_loadu_si256((const __m256i *)(offset + i)));
      const __m256 s = _mm256_mul_ps(rs, _mm256_loadu_ps(col_scale + i));
      /* vcvtdq2ps rounds to nearest even, as C's int-to-float conversion. */
      __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(a), s);
      if (bias) v = _mm256_add_ps(v, _mm256_loadu_ps(bias + i));
      _mm256_storeu_ps(y + i, cf_act256(act, v));
    }
  }
  /* Product and sum as separate statements (no FMA contraction), and no
   * + 0.0f without a bias (it would turn -0 into +0). */
  for (; i < n; i++) {
    float v = (float)(acc[i] - offset[i]) * (row_scale * col_scale[i]);
    if (bias) v += bias[i];
    y[i] = cf_ref_activate(act, v);
  }
}
