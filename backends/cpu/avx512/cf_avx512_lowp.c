/* cf_avx512_lowp.c: the reduced-precision projections' row ops
 * (cf_cpu_kernels.h), 16 floats at a time with a masked tail step; bit for
 * bit the portable set's results (cf_portable_lowp.c).
 *
 * bf16 rounding is done on the integer bits, not with AVX512_BF16's
 * VCVTNEPS2BF16: that instruction flushes denormal inputs to zero, where
 * the portable rounding keeps them, and the integer form is a handful of
 * cheap ops per 16 values on a pass bound by memory anyway. */
#include "backends/cpu/avx512/cf_avx512.h"
#include "backends/cpu/avx512/cf_avx512_math.h"

/* How far ahead the conversions prefetch their input: one row of the
 * model's width. The input comes from L3 or memory (the layer chunk is
 * larger than L2), and a pass that only converts has no arithmetic to hide
 * the loads behind: with the prefetch the bf16 conversion's share of a
 * CF-6M bf16 run fell from 7.4% to 2.9% (batch 256, perf) and bf16 ran
 * 3-8% faster (int8 0-3%); 2 KB ahead did no better. */
enum { PREFETCH_FLOATS = 256 };

void cf_avx512_to_bf16_row(int n, const float *x, uint16_t *y) {
  for (int i = 0; i < n; i += 16) {
    const __mmask16 m = cf_tail16(n - i);
    _mm_prefetch((const char *)(x + i + PREFETCH_FLOATS), _MM_HINT_T0);
    _mm512_mask_cvtepi32_storeu_epi16(y + i, m,
                                      cf_avx512_bf16_bits(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

/* The row's scale, max|x| / 127 (1 for an all-zero row). */
static float row_scale_of(int n, const float *x) {
  /* max |x| as floats: masked-off lanes load 0, and for finite values the
   * float max of |x| is the portable set's bit-pattern max. Two
   * accumulators so the max is not one dependency chain. */
  __m512 m0 = _mm512_setzero_ps(), m1 = _mm512_setzero_ps();
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    _mm_prefetch((const char *)(x + i + PREFETCH_FLOATS), _MM_HINT_T0);
    _mm_prefetch((const char *)(x + i + 16 + PREFETCH_FLOATS), _MM_HINT_T0);
    m0 = _mm512_max_ps(m0, _mm512_abs_ps(_mm512_loadu_ps(x + i)));
    m1 = _mm512_max_ps(m1, _mm512_abs_ps(_mm512_loadu_ps(x + i + 16)));
  }
  for (; i < n; i += 16)
    m0 = _mm512_max_ps(m0, _mm512_abs_ps(_mm512_maskz_loadu_ps(cf_tail16(n - i), x + i)));
  const float amax = _mm512_reduce_max_ps(_mm512_max_ps(m0, m1));
  return amax > 0 ? amax / 127.0f : 1.0f;
}

/* 16 values x * inv rounded to nearest even: vcvtps2dq rounds so in the
 * default MXCSR mode, as the portable set's add-and-subtract does; |v| <=
 * 127 plus an ulp. */
static __m512i rounded16(__mmask16 m, const float *x, __m512 inv) {
  return _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, x), inv));
}

float cf_avx512_quantize_row(int n, const float *x, int8_t *q) {
  const float s = row_scale_of(n, x);
  const __m512 inv = _mm512_set1_ps(1.0f / s);
  for (int i = 0; i < n; i += 16) {
    const __mmask16 m = cf_tail16(n - i);
    /* The saturating narrow never saturates (|v| <= 127). */
    _mm512_mask_cvtsepi32_storeu_epi8(q + i, m, rounded16(m, x + i, inv));
  }
  return s;
}

float cf_avx512_quantize_row_u8(int n, const float *x, uint8_t *q) {
  const float s = row_scale_of(n, x);
  const __m512 inv = _mm512_set1_ps(1.0f / s);
  const __m512i bias = _mm512_set1_epi32(128);
  for (int i = 0; i < n; i += 16) {
    const __mmask16 m = cf_tail16(n - i);
    /* v + 128 is 1 to 255: the unsigned saturating narrow keeps it. */
    _mm512_mask_cvtusepi32_storeu_epi8(q + i, m,
                                       _mm512_add_epi32(rounded16(m, x + i, inv), bias));
  }
  return s;
}

void cf_avx512_dequant_bias_act_row(int n, const int32_t *acc, const int32_t *offset,
                                    float row_scale, const float *col_scale, const float *bias,
                                    cf_op_act act, float *y) {
  const __m512 rs = _mm512_set1_ps(row_scale);
  for (int i = 0; i < n; i += 16) {
    const __mmask16 m = cf_tail16(n - i);
    const __m512i a = _mm512_sub_epi32(_mm512_maskz_loadu_epi32(m, acc + i),
                                       _mm512_maskz_loadu_epi32(m, offset + i));
    const __m512 s = _mm512_mul_ps(rs, _mm512_maskz_loadu_ps(m, col_scale + i));
    /* vcvtdq2ps rounds to nearest even, as C's int-to-float conversion. */
    __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(a), s);
    if (bias) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, bias + i));
    _mm512_mask_storeu_ps(y + i, m, cf_act512(act, v));
  }
}
