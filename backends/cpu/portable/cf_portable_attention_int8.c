/* cf_portable_attention_int8.c: the int8 attention core
 * (cf_cpu_attention_int8_math) in plain C: each lane's four u8 x s8
 * products summed into an int32, the arithmetic of one vpdpbusd lane, so
 * every integer sum is exact and the same as the VNNI core's; the
 * conversion to float32 is the same two roundings in the same order. The
 * tests hold the VNNI core to this one bit for bit. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/cf_cpu_kernels.h"

/* acc + the four products of an u8 quad and an s8 quad (one vpdpbusd
 * lane; no saturation). */
static inline int32_t dot4(int32_t acc, uint32_t u, uint32_t s) {
  for (int b = 0; b < 4; b++)
    acc += (int32_t)(uint8_t)(u >> 8 * b) * (int32_t)(int8_t)(uint8_t)(s >> 8 * b);
  return acc;
}

static inline uint32_t quad(const uint8_t *x) {
  uint32_t w;
  memcpy(&w, x, sizeof w); /* little endian as the vector loads */
  return w;
}

/* One query's scores against the keys of half `half`. */
static void scores(int dq, const uint8_t *Q, float sq, const uint32_t *kt, const int32_t *kc,
                   const float *sk, int half, float *s) {
  for (int k = 32 * half; k < 32 * half + 32; k++) {
    int32_t acc = 0;
    for (int j = 0; j < dq; j++) acc = dot4(acc, quad(Q + 4 * j), kt[(size_t)j * 64 + k]);
    s[k] = (float)(acc - kc[k]) * (sq * sk[k]);
  }
}

static void scores_pair(int dq, const uint8_t *Q0, const uint8_t *Q1, float sq0, float sq1,
                        const uint32_t *kt, const int32_t *kc, const float *sk, int half,
                        float *s0, float *s1) {
  scores(dq, Q0, sq0, kt, kc, sk, half, s0);
  scores(dq, Q1, sq1, kt, kc, sk, half, s1);
}

static void weighted_values(int dh, const uint8_t *a, float sa, const uint32_t *vq,
                            const float *sv, float *o) {
  for (int i = 0; i < dh; i++) {
    int32_t acc = 0;
    for (int m = 0; m < 16; m++) acc = dot4(acc, quad(a + 4 * m), vq[(size_t)m * dh + i]);
    o[i] = (float)acc * (sa * sv[i]);
  }
}

static void weighted_values_pair(int dh, const uint8_t *a0, const uint8_t *a1, float sa0,
                                 float sa1, const uint32_t *vq, const float *sv, float *o0,
                                 float *o1) {
  weighted_values(dh, a0, sa0, vq, sv, o0);
  weighted_values(dh, a1, sa1, vq, sv, o1);
}

static float weights_to_u8(const float *s, uint8_t *w) {
  float mx = 0.0f;
  for (int k = 0; k < 64; k++) mx = s[k] > mx ? s[k] : mx;
  const float inv = 255.0f / mx;
  for (int k = 0; k < 64; k++) {
    const float p = s[k] * inv; /* its own statement: rounded before the add */
    w[k] = (uint8_t)(int)(p + 0.5f);
  }
  return mx / 255.0f;
}

static void quantize_values(int dh, const float *v, size_t ld, uint32_t *vq, float *sv) {
  enum { MAXD = CF_CPU_MAX_FAST_DEPTH };
  float inv[MAXD];
  for (int i = 0; i < dh; i++) {
    float mx = 0.0f;
    for (int k = 0; k < 64; k++) {
      const float a = fabsf(v[(size_t)k * ld + i]);
      mx = a > mx ? a : mx;
    }
    sv[i] = mx > 0 ? mx / 127.0f : 1.0f;
    inv[i] = 1.0f / sv[i];
  }
  const float magic = 12582912.0f; /* nearest even, as quantize_row */
  for (int mm = 0; mm < 16; mm++)
    for (int i = 0; i < dh; i++) {
      uint32_t w = 0;
      for (int b = 0; b < 4; b++) {
        const float p = v[(size_t)(4 * mm + b) * ld + i] * inv[i];
        const float r = (p + magic) - magic;
        w |= (uint32_t)(uint8_t)(int8_t)(int)r << 8 * b;
      }
      vq[(size_t)mm * dh + i] = w;
    }
}

const cf_cpu_attention_int8_math cf_cpu_attention_int8_portable = {
    .name = "portable",
    .scores_pair = scores_pair,
    .weighted_values_pair = weighted_values_pair,
    .weights_to_u8 = weights_to_u8,
    .quantize_values = quantize_values,
};
