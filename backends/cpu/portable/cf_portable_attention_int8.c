/* cf_portable_attention_int8.c: the int8 attention core
 * (cf_cpu_attention_int8_math) in plain C: each lane's four u8 x s8
 * products summed into an int32, the arithmetic of one vpdpbusd lane, so
 * every integer sum is exact and the same as the VNNI core's; the
 * conversion to float32 is the same two roundings in the same order. The
 * tests hold the VNNI core to this one bit for bit. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_kernels.h"
#include "backends/cpu/portable/cf_portable.h"
#include "backends/cpu/portable/cf_portable_math.h"

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

/* One query's scores against the keys of half `half`; t's tables (NULL:
 * none) offset by c(q0), this query's entries `shift` further (0 for q0,
 * -15 for q0 + 8). */
static void scores(int dq, const uint8_t *Q, float sq, const uint32_t *kt, const int32_t *kc,
                   const float *sk, const cf_cpu_int8_rpe *t, int shift, int half, float *s) {
  const bool use_q = t && t->eq, use_k = t && t->ek;
  for (int k = 32 * half; k < 32 * half + 32; k++) {
    const int jj = shift + cf_cpu_key_off(k);
    int32_t acc = 0, acc_q = 0, acc_k = 0;
    for (int j = 0; j < dq; j++) {
      const uint32_t key = kt[(size_t)j * 64 + k];
      const ptrdiff_t at = (ptrdiff_t)j * CF_CPU_RPE_TABLE + jj; /* jj < 0 for q0 + 8 */
      acc = dot4(acc, quad(Q + 4 * j), key);
      if (use_q) acc_q = dot4(acc_q, quad(Q + 4 * j), t->eq[at]);
      if (use_k) acc_k = dot4(acc_k, t->ek[at], key);
    }
    float x = (float)(acc - kc[k]) * (sq * sk[k]);
    if (use_q) x = x + (float)(acc_q - t->eqc[jj]) * (sq * t->eqs[jj]);
    if (use_k) x = x + (float)(acc_k - kc[k]) * (sk[k] * t->eks[jj]);
    s[k] = x;
  }
}

static void scores_pair(int dq, const uint8_t *Q0, const uint8_t *Q1, float sq0, float sq1,
                        const uint32_t *kt, const int32_t *kc, const float *sk,
                        const cf_cpu_int8_rpe *t, int half, float *s0, float *s1) {
  scores(dq, Q0, sq0, kt, kc, sk, t, 0, half, s0);
  scores(dq, Q1, sq1, kt, kc, sk, t, -15, half, s1);
}

static void weighted_values(int dh, const uint8_t *a, float sa, const uint32_t *vq,
                            const float *sv, const uint32_t *ev, const float *evs, int base,
                            float *o) {
  for (int i = 0; i < dh; i++) {
    int32_t acc = 0, acc_e = 0;
    for (int m = 0; m < 16; m++) {
      acc = dot4(acc, quad(a + 4 * m), vq[(size_t)m * dh + i]);
      if (ev)
        acc_e = dot4(acc_e, quad(a + 4 * m),
                     ev[(size_t)(base - cf_cpu_key_off(4 * m)) * dh + i]);
    }
    float x = (float)acc * (sa * sv[i]);
    if (ev) x = x + (float)acc_e * (sa * evs[i]);
    o[i] = x;
  }
}

static void weighted_values_pair(int dh, const uint8_t *a0, const uint8_t *a1, float sa0,
                                 float sa1, const uint32_t *vq, const float *sv,
                                 const uint32_t *ev, const float *evs, int base0, int base1,
                                 float *o0, float *o1) {
  weighted_values(dh, a0, sa0, vq, sv, ev, evs, base0, o0);
  weighted_values(dh, a1, sa1, vq, sv, ev, evs, base1, o1);
}

static float softmax_to_u8(float *s, float scale, const float *bias, uint8_t *w) {
  for (int k = 0; k < 64; k++) s[k] = s[k] * scale + (bias ? bias[k] : 0.0f);
  const float sum = cf_portable_softmax_exp(s);
  for (int k = 0; k < 64; k++) {
    const float p = s[k] * 255.0f; /* its own statement: rounded before the add */
    w[k] = (uint8_t)(int)(p + 0.5f);
  }
  return 1.0f / (255.0f * sum);
}

static void quantize_qk(int dh, const float *q, const float *k, size_t ld, uint8_t *qb,
                        uint32_t *kt, float *sq, float *sk, int32_t *kc) {
  enum { MAXD = CF_CPU_MAX_FAST_DEPTH };
  const int dq = (dh + 3) / 4;
  int8_t row[MAXD];
  for (int r = 0; r < 64; r++) {
    memset(row, 0, sizeof row);
    sq[r] = cf_portable_quantize_row(dh, q + (size_t)r * ld, row);
    for (int i = 0; i < 4 * dq; i++) qb[(size_t)r * 4 * dq + i] = (uint8_t)(row[i] + 128);
    memset(row, 0, sizeof row);
    sk[r] = cf_portable_quantize_row(dh, k + (size_t)r * ld, row);
    int32_t sum = 0;
    for (int i = 0; i < dh; i++) sum += row[i];
    kc[r] = 128 * sum;
    for (int j = 0; j < dq; j++) kt[(size_t)j * 64 + r] = quad((const uint8_t *)row + 4 * j);
  }
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

CF_CPU_ATTENTION_INT8_MATH(cf_cpu_attention_int8_portable, "portable");
