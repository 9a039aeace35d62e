/* cf_avx512_attention_int8.c: the int8 attention core
 * (cf_cpu_attention_int8_math) with AVX512_VNNI: vpdpbusd adds to each
 * int32 lane the four products of an u8 quad and an s8 quad, so one
 * instruction does four depths (scores) or four keys (values) of the
 * float32 core's FMA. Queries go in pairs sharing each key load, keys in
 * vectors of 16 lanes (two ranks); values 32 depths a step with even and
 * odd key quads in separate accumulators, as the float32 and bf16 cores.
 * Built with the avx512 flags plus -mavx512vnni; chosen only by
 * cf_cpu_attention_int8_select on a CPU with AVX512_VNNI. The integer
 * sums equal the portable core's exactly (int32 adds wrap, in any order);
 * the conversion is the same two float32 products. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/cpu/avx512/cf_avx512_math.h"
#include "backends/cpu/cf_cpu_kernels.h"

static void scores_pair(int dq, const uint8_t *Q0, const uint8_t *Q1, float sq0, float sq1,
                        const uint32_t *kt, const int32_t *kc, const float *sk, int half,
                        float *s0, float *s1) {
  __m512i a0[2], a1[2];
  for (int r = 0; r < 2; r++) a0[r] = a1[r] = _mm512_setzero_si512();
  for (int j = 0; j < dq; j++) {
    const __m512i q0 = cf_bcast32(Q0 + 4 * j), q1 = cf_bcast32(Q1 + 4 * j);
    const uint32_t *kr = kt + (size_t)j * 64 + 32 * half;
    for (int r = 0; r < 2; r++) {
      const __m512i kv = _mm512_load_si512(kr + 16 * r);
      a0[r] = _mm512_dpbusd_epi32(a0[r], q0, kv);
      a1[r] = _mm512_dpbusd_epi32(a1[r], q1, kv);
    }
  }
  const __m512 v0 = _mm512_set1_ps(sq0), v1 = _mm512_set1_ps(sq1);
  for (int r = 0; r < 2; r++) {
    const int k = 32 * half + 16 * r;
    const __m512i c = _mm512_loadu_si512(kc + k);
    const __m512 s = _mm512_loadu_ps(sk + k);
    _mm512_store_ps(s0 + k, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(a0[r], c)),
                                          _mm512_mul_ps(v0, s)));
    _mm512_store_ps(s1 + k, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(a1[r], c)),
                                          _mm512_mul_ps(v1, s)));
  }
}

static void weighted_values_pair(int dh, const uint8_t *a0, const uint8_t *a1, float sa0,
                                 float sa1, const uint32_t *vq, const float *sv, float *o0,
                                 float *o1) {
  const __m512 w0 = _mm512_set1_ps(sa0), w1 = _mm512_set1_ps(sa1);
  for (int i0 = 0; i0 < dh; i0 += 32) {
    const __mmask16 m[2] = {cf_tail16(dh - i0), cf_tail16(dh - i0 - 16)};
    const int nv = dh - i0 > 16 ? 2 : 1;
    __m512i c0[2][2], c1[2][2]; /* [quad parity][depth half] */
    for (int u = 0; u < 2; u++)
      for (int j = 0; j < 2; j++) c0[u][j] = c1[u][j] = _mm512_setzero_si512();
    for (int mm = 0; mm < 16; mm += 2)
      for (int u = 0; u < 2; u++) {
        const __m512i x0 = cf_bcast32(a0 + 4 * (mm + u)), x1 = cf_bcast32(a1 + 4 * (mm + u));
        const uint32_t *vk = vq + (size_t)(mm + u) * dh + i0;
        for (int j = 0; j < nv; j++) {
          const __m512i v = _mm512_maskz_loadu_epi32(m[j], vk + 16 * j);
          c0[u][j] = _mm512_dpbusd_epi32(c0[u][j], x0, v);
          c1[u][j] = _mm512_dpbusd_epi32(c1[u][j], x1, v);
        }
      }
    for (int j = 0; j < nv; j++) {
      const __m512 s = _mm512_maskz_loadu_ps(m[j], sv + i0 + 16 * j);
      const __m512 f0 = _mm512_cvtepi32_ps(_mm512_add_epi32(c0[0][j], c0[1][j]));
      const __m512 f1 = _mm512_cvtepi32_ps(_mm512_add_epi32(c1[0][j], c1[1][j]));
      _mm512_mask_storeu_ps(o0 + i0 + 16 * j, m[j], _mm512_mul_ps(f0, _mm512_mul_ps(w0, s)));
      _mm512_mask_storeu_ps(o1 + i0 + 16 * j, m[j], _mm512_mul_ps(f1, _mm512_mul_ps(w1, s)));
    }
  }
}

static float weights_to_u8(const float *s, uint8_t *w) {
  __m512 v[4];
  for (int j = 0; j < 4; j++) v[j] = _mm512_loadu_ps(s + 16 * j);
  const float mx = _mm512_reduce_max_ps(
      _mm512_max_ps(_mm512_max_ps(v[0], v[1]), _mm512_max_ps(v[2], v[3])));
  const __m512 inv = _mm512_set1_ps(255.0f / mx), half = _mm512_set1_ps(0.5f);
  for (int j = 0; j < 4; j++) /* truncating: the portable (int) cast */
    _mm_storeu_si128((__m128i *)(w + 16 * j),
                     _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(
                         _mm512_add_ps(_mm512_mul_ps(v[j], inv), half))));
  return mx / 255.0f;
}

/* Column maxima over the 64 rows, then each quad of rows rounded (vcvtps2dq:
 * nearest even) and its four low bytes merged into the words of 16
 * depths. */
static void quantize_values(int dh, const float *v, size_t ld, uint32_t *vq, float *sv) {
  for (int i0 = 0; i0 < dh; i0 += 16) {
    const __mmask16 m = cf_tail16(dh - i0);
    __m512 mx[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
    for (int k = 0; k < 64; k++)
      mx[k & 1] = _mm512_max_ps(mx[k & 1],
                                _mm512_abs_ps(_mm512_maskz_loadu_ps(m, v + (size_t)k * ld + i0)));
    const __m512 amax = _mm512_max_ps(mx[0], mx[1]);
    const __m512 s = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(amax, _mm512_setzero_ps(), _CMP_GT_OQ),
                                          _mm512_set1_ps(1.0f),
                                          _mm512_div_ps(amax, _mm512_set1_ps(127.0f)));
    const __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.0f), s);
    _mm512_mask_storeu_ps(sv + i0, m, s);
    for (int mm = 0; mm < 16; mm++) {
      __m512i w = _mm512_setzero_si512();
      for (int b = 0; b < 4; b++) {
        const __m512 x = _mm512_maskz_loadu_ps(m, v + (size_t)(4 * mm + b) * ld + i0);
        const __m512i q = _mm512_and_si512(_mm512_cvtps_epi32(_mm512_mul_ps(x, inv)),
                                           _mm512_set1_epi32(0xFF));
        w = _mm512_or_si512(w, _mm512_slli_epi32(q, 8 * b));
      }
      _mm512_mask_storeu_epi32(vq + (size_t)mm * dh + i0, m, w);
    }
  }
}

const cf_cpu_attention_int8_math cf_cpu_attention_int8_avx512 = {
    .name = "avx512_vnni",
    .scores_pair = scores_pair,
    .weighted_values_pair = weighted_values_pair,
    .weights_to_u8 = weights_to_u8,
    .quantize_values = quantize_values,
};
