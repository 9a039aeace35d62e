/* cf_avx2_math.h: AVX2+FMA building blocks the avx2 kernels share: a vector
 * exp, the fused activations and a horizontal sum. Inline on purpose: they
 * sit in the innermost loops. Only for translation units built with
 * -mavx2 -mfma (backends/meson.build), which run only once the dispatch
 * found the CPU able to. */
#ifndef CF_AVX2_MATH_H
#define CF_AVX2_MATH_H

#if !(defined(__x86_64__) || defined(__i386__)) || !defined(__AVX2__) || !defined(__FMA__)
#error "cf_avx2_math.h needs an x86 target built with -mavx2 -mfma"
#endif

#include <immintrin.h>

#include "backends/cf_backend.h"

static inline float cf_hsum256(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

static inline float cf_hmax256(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

/* e^x for 8 floats: range reduction x = n ln2 + r with ln2 split in two
 * parts (exact n ln2), a degree-5 minimax polynomial for e^r on
 * |r| <= ln2/2 (Cephes' coefficients, about 1 ulp), then 2^n built in the
 * exponent bits. Inputs are clamped to the float range (e^-88.4 flushes
 * towards 0, which is what a softmax wants). */
static inline __m256 cf_exp256(__m256 x) {
  x = _mm256_min_ps(x, _mm256_set1_ps(88.3762626647949f));
  x = _mm256_max_ps(x, _mm256_set1_ps(-87.3365447504f));
  __m256 n = _mm256_floor_ps(
      _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), _mm256_set1_ps(0.5f)));
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500E-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507E-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073E-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894E-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459E-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201E-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  __m256i e = _mm256_slli_epi32(
      _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

/* mish(x) = x n / (n + 2) with n = e^x (e^x + 2) (see ref/cf_ref_act.h);
 * x itself past 20, where n would overflow. */
static inline __m256 cf_mish256(__m256 x) {
  __m256 e = cf_exp256(_mm256_min_ps(x, _mm256_set1_ps(20.0f)));
  __m256 n = _mm256_mul_ps(e, _mm256_add_ps(e, _mm256_set1_ps(2.0f)));
  __m256 m = _mm256_div_ps(_mm256_mul_ps(x, n), _mm256_add_ps(n, _mm256_set1_ps(2.0f)));
  return _mm256_blendv_ps(m, x, _mm256_cmp_ps(x, _mm256_set1_ps(20.0f), _CMP_GT_OQ));
}

static inline __m256 cf_sigmoid256(__m256 x) {
  __m256 one = _mm256_set1_ps(1.0f);
  return _mm256_div_ps(one, _mm256_add_ps(one, cf_exp256(_mm256_sub_ps(_mm256_setzero_ps(), x))));
}

/* True for the activations cf_act256 computes; the rest (tanh, selu) run
 * through the scalar formulas, which only the small heads use. */
static inline int cf_act_vectorised(cf_op_act act) {
  return act == CF_OP_ACT_MISH || act == CF_OP_ACT_RELU || act == CF_OP_ACT_NONE ||
         act == CF_OP_ACT_SIGMOID || act == CF_OP_ACT_SWISH || act == CF_OP_ACT_RELU2;
}

static inline __m256 cf_act256(cf_op_act act, __m256 x) {
  switch (act) {
    case CF_OP_ACT_MISH: return cf_mish256(x);
    case CF_OP_ACT_RELU: return _mm256_max_ps(x, _mm256_setzero_ps());
    case CF_OP_ACT_SIGMOID: return cf_sigmoid256(x);
    case CF_OP_ACT_SWISH: return _mm256_mul_ps(x, cf_sigmoid256(x));
    case CF_OP_ACT_RELU2: {
      __m256 r = _mm256_max_ps(x, _mm256_setzero_ps());
      return _mm256_mul_ps(r, r);
    }
    default: return x;
  }
}

#endif /* CF_AVX2_MATH_H */
