/* cf_portable_math.h: scalar forms of the avx2 set's exp and activations
 * (avx2/cf_avx2_math.h), written without calls or branches the vectoriser
 * cannot handle, so loops over them vectorise on any target. libm's expf
 * would be exact but is a call, which stops vectorisation. */
#ifndef CF_PORTABLE_MATH_H
#define CF_PORTABLE_MATH_H

#include <stdint.h>
#include <string.h>

/* e^x: x = n ln2 + r with ln2 in two parts, Cephes' degree-5 polynomial
 * for e^r on |r| <= ln2/2 (about 1 ulp), 2^n built in the exponent bits;
 * inputs clamped to the float range as in cf_exp256. floor is spelled as
 * truncation plus a correction: floorf is a call on baseline x86-64. */
static inline float cf_portable_exp(float x) {
  x = x < 88.3762626647949f ? x : 88.3762626647949f;
  x = x > -87.3365447504f ? x : -87.3365447504f;
  const float t = x * 1.44269504088896341f + 0.5f;
  float n = (float)(int32_t)t;
  n -= n > t ? 1.0f : 0.0f;
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500E-4f;
  p = p * r + 1.3981999507E-3f;
  p = p * r + 8.3334519073E-3f;
  p = p * r + 4.1665795894E-2f;
  p = p * r + 1.6666665459E-1f;
  p = p * r + 5.0000001201E-1f;
  p = p * (r * r) + (r + 1.0f);
  const uint32_t bits = (uint32_t)((int32_t)n + 127) << 23;
  float scale;
  memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

/* mish(x) = x n / (n + 2) with n = e^x (e^x + 2); x itself past 20. */
static inline float cf_portable_mish(float x) {
  const float e = cf_portable_exp(x < 20.0f ? x : 20.0f);
  const float n = e * (e + 2.0f);
  const float m = x * n / (n + 2.0f);
  return x > 20.0f ? x : m;
}

static inline float cf_portable_sigmoid(float x) { return 1.0f / (1.0f + cf_portable_exp(-x)); }

/* s[k] = exp(s[k] - max s) in place; returns their sum, taken in 8
 * partial lanes as the avx2 set's. The attention cores' softmax steps
 * (float32, bf16 and int8 weights) differ only in what they make of it. */
static inline float cf_portable_softmax_exp(float *s) {
  float m = s[0];
  for (int k = 1; k < 64; k++) m = s[k] > m ? s[k] : m;
  float lanes[8] = {0};
  for (int k = 0; k < 64; k += 8)
    for (int l = 0; l < 8; l++) {
      s[k + l] = cf_portable_exp(s[k + l] - m);
      lanes[l] += s[k + l];
    }
  return ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) +
         ((lanes[1] + lanes[5]) + (lanes[3] + lanes[7]));
}

#endif /* CF_PORTABLE_MATH_H */
