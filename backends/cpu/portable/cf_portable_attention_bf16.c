/* cf_portable_attention_bf16.c: the bf16 attention core
 * (cf_cpu_attention_bf16_math) in plain C: each bf16 pair widened to two
 * floats (exact), the pair's two products (exact in float32: 8-bit
 * significands) summed, then added to the float32 accumulator, the order
 * of a vdpbf16ps lane. Runs where AVX512_BF16 does not, and is what the
 * tests hold the other sets' bf16 cores to. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_kernels.h"
#include "backends/cpu/portable/cf_portable.h"
#include "backends/cpu/portable/cf_portable_math.h"

enum { TABLE = CF_CPU_RPE_TABLE };

static inline float lo(uint32_t w) {
  const uint32_t u = w << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static inline float hi(uint32_t w) { return lo(w >> 16); }
static inline uint32_t pair16(const uint16_t *x) { return x[0] | (uint32_t)x[1] << 16; }

/* acc + (a.lo b.lo + a.hi b.hi) */
static inline float dp2(float acc, uint32_t a, uint32_t b) {
  return acc + (lo(a) * lo(b) + hi(a) * hi(b));
}

/* One query's scores against the keys of half `half` (see the table's
 * scores_pair); eq, ek offset by this query's c. */
static void scores(int dp, const uint16_t *Q, const uint32_t *kt, const uint32_t *eq,
                   const uint32_t *ek, int half, float *s) {
  for (int r = 4 * half; r < 4 * half + 4; r++) {
    float acc[8] = {0};
    for (int j = 0; j < dp; j++) {
      const uint32_t q = pair16(Q + 2 * j);
      const uint32_t *kr = kt + (size_t)j * 64 + 8 * r;
      const size_t at = (size_t)j * TABLE + 15 * r;
      for (int l = 0; l < 8; l++) {
        acc[l] = dp2(acc[l], q, kr[l]);
        if (eq) acc[l] = dp2(acc[l], q, eq[at + l]);
        if (ek) acc[l] = dp2(acc[l], kr[l], ek[at + l]);
      }
    }
    for (int l = 0; l < 8; l++) s[8 * r + l] = acc[l];
  }
}

static void scores_pair(int dp, const uint16_t *Q0, const uint16_t *Q1, const uint32_t *kt,
                        const uint32_t *eq, const uint32_t *ek, int half, float *s0, float *s1) {
  scores(dp, Q0, kt, eq, ek, half, s0);
  scores(dp, Q1, kt, eq ? eq - 15 : NULL, ek ? ek - 15 : NULL, half, s1); /* c(q0 + 8) */
}

/* One query's weighted values: key pairs (2m, 2m + 1), one rank's pairs
 * at displacements base - off(2m). */
static void weighted_values(int dh, const uint16_t *a, float sa, const uint32_t *vp,
                            const uint32_t *ev, int base, float *o) {
  for (int i = 0; i < dh; i++) {
    float acc = 0.0f;
    for (int mm = 0; mm < 32; mm++) {
      const uint32_t w = pair16(a + 2 * mm);
      acc = dp2(acc, w, vp[(size_t)mm * dh + i]);
      if (ev) acc = dp2(acc, w, ev[(size_t)(base - cf_cpu_key_off(2 * mm)) * dh + i]);
    }
    o[i] = acc * sa;
  }
}

static void weighted_values_pair(int dh, const uint16_t *a0, const uint16_t *a1, float sa0,
                                 float sa1, const uint32_t *vp, const uint32_t *ev, int base0,
                                 int base1, float *o0, float *o1) {
  weighted_values(dh, a0, sa0, vp, ev, base0, o0);
  weighted_values(dh, a1, sa1, vp, ev, base1, o1);
}

static void pack_qkv(int dh, const float *q, const float *k, const float *v, size_t ld,
                     uint16_t *qb, uint32_t *kt, uint32_t *vp) {
  enum { MAXD = CF_CPU_MAX_FAST_DEPTH };
  const int dp = (dh + 1) / 2;
  uint16_t a[MAXD + 1], b[MAXD + 1];
  for (int r = 0; r < 64; r++) {
    a[dh] = 0; /* an odd depth's pad */
    cf_portable_to_bf16_row(dh, q + (size_t)r * ld, a);
    memcpy(qb + (size_t)r * 2 * dp, a, (size_t)2 * dp * sizeof *a);
    cf_portable_to_bf16_row(dh, k + (size_t)r * ld, a);
    for (int j = 0; j < dp; j++) kt[(size_t)j * 64 + r] = pair16(a + 2 * j);
  }
  for (int mm = 0; mm < 32; mm++) {
    cf_portable_to_bf16_row(dh, v + (size_t)(2 * mm) * ld, a);
    cf_portable_to_bf16_row(dh, v + (size_t)(2 * mm + 1) * ld, b);
    for (int i = 0; i < dh; i++) vp[(size_t)mm * dh + i] = a[i] | (uint32_t)b[i] << 16;
  }
}

static float softmax_to_bf16(float *s, float scale, const float *bias, uint16_t *w) {
  for (int k = 0; k < 64; k++) s[k] = s[k] * scale + (bias ? bias[k] : 0.0f);
  const float sum = cf_portable_softmax_exp(s);
  cf_portable_to_bf16_row(64, s, w);
  return 1.0f / sum;
}

CF_CPU_ATTENTION_BF16_MATH(cf_cpu_attention_bf16_portable, "portable");
