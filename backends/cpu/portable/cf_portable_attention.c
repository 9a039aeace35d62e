/* cf_portable_attention.c: the attention core's arithmetic in plain C, on
 * the same tables and in the same gather form as the avx2 set
 * (cf_cpu_attention_layout.h), one query at a time even where the driver
 * (cf_cpu_attention_task.c) hands a pair: a query's scores are, per key
 * rank, 8 running sums over depth (small enough to stay in registers)
 * that read 8 consecutive table entries, and its weighted values are
 * running sums over keys of contiguous rows. Both inner loops are
 * unit-stride and branch-free, so the compiler vectorises them on any
 * target. The fallback, about 3-4x slower than avx2 at SSE2. */
#include <stddef.h>

#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/portable/cf_portable.h"
#include "backends/cpu/portable/cf_portable_math.h"

enum { TABLE = CF_CPU_RPE_TABLE };

/* s[64] = softmax(s). */
static void softmax64(float *s) {
  const float inv = 1.0f / cf_portable_softmax_exp(s);
  for (int k = 0; k < 64; k++) s[k] *= inv;
}

/* s[32 half .. +32] = q.k + q.Eq[p] + k.Ek[p] over depth dh for one query
 * against the keys of ranks 4 half .. 4 half + 3. kt: keys transposed
 * [dh][64]; eq, ek: reversed tables [dh][225] already offset by c(q)
 * (unused when use_q / use_k is 0). Inlined with constant use_q, use_k
 * so each combination is its own branch-free loop. */
static inline __attribute__((always_inline)) void scores(int dh, const float *Q,
                                                         const float *kt, const float *eq,
                                                         const float *ek, int use_q, int use_k,
                                                         int half, float *restrict s) {
  for (int r = 4 * half; r < 4 * half + 4; r++) {
    float acc[8] = {0};
    for (int i = 0; i < dh; i++) {
      const float q = Q[i];
      const float *kr = kt + (size_t)i * 64 + 8 * r;
      const size_t at = (size_t)i * TABLE + 15 * r;
      for (int l = 0; l < 8; l++) {
        const float kv = kr[l];
        acc[l] += q * (use_q ? kv + eq[at + l] : kv);
        if (use_k) acc[l] += kv * ek[at + l];
      }
    }
    for (int l = 0; l < 8; l++) s[8 * r + l] = acc[l];
  }
}

/* o[dh] = sum_k a[k] (v_k + ev[p(q, k)]); v rows at stride ld, ev rows of
 * dh floats (NULL: no value term). */
static void weighted_values(int dh, const float *a, const float *v, size_t ld, const float *ev,
                            int base, float *restrict o) {
  for (int i = 0; i < dh; i++) o[i] = 0.0f;
  for (int k = 0; k < 64; k++) {
    const float ak = a[k];
    const float *restrict vk = v + (size_t)k * ld;
    if (ev) {
      const float *restrict e = ev + (size_t)(base - cf_cpu_key_off(k)) * dh;
      for (int i = 0; i < dh; i++) o[i] += ak * (vk[i] + e[i]);
    } else {
      for (int i = 0; i < dh; i++) o[i] += ak * vk[i];
    }
  }
}

/* Scale, add the bias row (or NULL), softmax. */
static void finish_scores(float *s, float scale, const float *bias) {
  for (int k = 0; k < 64; k++) s[k] *= scale;
  if (bias)
    for (int k = 0; k < 64; k++) s[k] += bias[k];
  softmax64(s);
}

/* One query at a time: q0's tables are offset by c(q0), q0 + 8's by 15
 * less. */
static inline __attribute__((always_inline)) void scores2(
    int dh, const float *Q0, const float *Q1, const float *kt, const float *eq, const float *ek,
    int use_q, int use_k, int half, float *s0, float *s1) {
  scores(dh, Q0, kt, eq, ek, use_q, use_k, half, s0);
  scores(dh, Q1, kt, use_q ? eq - 15 : NULL, use_k ? ek - 15 : NULL, use_q, use_k, half, s1);
}
CF_CPU_DEFINE_SCORES_PAIR(scores2, float, float)

static void weighted_values_pair(int dh, const float *a0, const float *a1, const float *v,
                                 size_t ld, const float *ev, int base0, int base1, float *o0,
                                 float *o1) {
  weighted_values(dh, a0, v, ld, ev, base0, o0);
  weighted_values(dh, a1, v, ld, ev, base1, o1);
}

float cf_portable_dot_rpe(int dh, const float *Q, const float *K, const float *eq,
                          const float *ek) {
  float acc = 0.0f;
  for (int i = 0; i < dh; i++)
    acc += Q[i] * (K[i] + (eq ? eq[i] : 0.0f)) + (ek ? K[i] * ek[i] : 0.0f);
  return acc;
}

const cf_cpu_attention_math cf_portable_attention_math = {
    .scores_pair = scores_pair,
    .finish_scores = finish_scores,
    .weighted_values_pair = weighted_values_pair,
    .dot_rpe = cf_portable_dot_rpe,
};
