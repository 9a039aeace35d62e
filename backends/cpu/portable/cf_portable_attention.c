/* cf_portable_attention.c: the attention core for one (position, head) in
 * plain C, on the same tables and in the same gather form as the avx2 set
 * (cf_cpu_attention_layout.h), one query at a time: a query's scores are,
 * per key rank, 8 running sums over depth (small enough to stay in
 * registers) that read 8 consecutive table entries, and its weighted
 * values are running sums over keys of contiguous rows. Both inner loops
 * are unit-stride and branch-free, so the compiler vectorises them on any
 * target. Simpler than the avx2 set (no query pairs, no prefetching): it
 * is the fallback, about 3-4x slower than avx2 at SSE2. */
#include <stddef.h>

#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/portable/cf_portable.h"
#include "backends/cpu/portable/cf_portable_math.h"

enum { TABLE = CF_CPU_RPE_TABLE };

/* s[64] = softmax(s); the sum in 8 partial lanes, as the avx2 set's. */
static void softmax64(float *s) {
  float m = s[0];
  for (int k = 1; k < 64; k++) m = s[k] > m ? s[k] : m;
  float lanes[8] = {0};
  for (int k = 0; k < 64; k += 8)
    for (int l = 0; l < 8; l++) {
      s[k + l] = cf_portable_exp(s[k + l] - m);
      lanes[l] += s[k + l];
    }
  const float sum = ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) +
                    ((lanes[1] + lanes[5]) + (lanes[3] + lanes[7]));
  const float inv = 1.0f / sum;
  for (int k = 0; k < 64; k++) s[k] *= inv;
}

/* s[64] = q.k + q.Eq[p] + k.Ek[p] over depth dh for one query. kt: keys
 * transposed [dh][64]; eq, ek: reversed tables [dh][225] already offset by
 * c(q) (unused when use_q / use_k is 0). Inlined with constant use_q /
 * use_k so each combination is its own branch-free loop. */
static inline __attribute__((always_inline)) void scores(int dh, const float *Q,
                                                         const float *kt, const float *eq,
                                                         const float *ek, int use_q, int use_k,
                                                         float *restrict s) {
  for (int r = 0; r < 8; r++) {
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

/* next_h and cold only steer the avx2 and avx512 sets' table prefetching;
 * unused here. The next task's rows are prefetched as there. */
void cf_portable_attend(const cf_attention_args *a, const cf_cpu_head_tables *t, int b, int h,
                        int next_h, bool cold, cf_cpu_task next) {
  (void)next_h;
  (void)cold;
  const int H = a->heads, dh = a->depth, dm = H * dh, ld = 3 * dm;
  const float *tok = a->qkv + (size_t)b * 64 * ld; /* [64][3*dm] */
  float *out = a->out + (size_t)b * 64 * dm;       /* [64][dm] */
  const float *eq = cf_cpu_head_table(t->q_rev, h, dh);
  const float *ek = cf_cpu_head_table(t->k_rev, h, dh);
  const float *ev = cf_cpu_head_table(t->v_rows, h, dh);
  const float *bias = a->bias ? a->bias + ((size_t)b * H + h) * 64 * 64 : NULL;
  const cf_cpu_row_prefetch pf = cf_cpu_row_prefetch_for(a->qkv, a->out, H, dh, next.b, next.h);

  _Alignas(64) float kt[CF_CPU_MAX_FAST_DEPTH * 64]; /* this head's keys, [dh][64] */
  const float *K0 = tok + dm + h * dh;
  for (int i = 0; i < dh; i++)
    for (int k = 0; k < 64; k++) kt[i * 64 + k] = K0[(size_t)k * ld + i];
  const float *V = tok + 2 * dm + h * dh;
  for (int q = 0; q < 64; q++) {
    const float *Q = tok + (size_t)q * ld + h * dh;
    if (pf.qkv) cf_cpu_prefetch_token(&pf, q);
    const int c = TABLE - 1 - cf_cpu_query_base(q);
    const float *eqc = eq ? eq + c : NULL, *ekc = ek ? ek + c : NULL;
    _Alignas(64) float s[64];
    if (eq && ek) scores(dh, Q, kt, eqc, ekc, 1, 1, s);
    else if (eq) scores(dh, Q, kt, eqc, NULL, 1, 0, s);
    else if (ek) scores(dh, Q, kt, NULL, ekc, 0, 1, s);
    else scores(dh, Q, kt, NULL, NULL, 0, 0, s);
    finish_scores(s, a->scale, bias ? bias + q * 64 : NULL);
    weighted_values(dh, s, V, (size_t)ld, ev, cf_cpu_query_base(q),
                    out + (size_t)q * dm + h * dh);
  }
}

/* Any depth: dot products, one (query, key) pair at a time. */
void cf_portable_attend_plain(const cf_attention_args *a, const float *eq_rows,
                              const float *ek_rows, const float *ev_rows, int b, int h) {
  const int H = a->heads, dh = a->depth, dm = H * dh, ld = 3 * dm;
  const float *tok = a->qkv + (size_t)b * 64 * ld;
  const size_t tab = (size_t)h * TABLE * dh;
  for (int q = 0; q < 64; q++) {
    const float *Q = tok + (size_t)q * ld + h * dh;
    float s[64];
    for (int k = 0; k < 64; k++) {
      const float *K = tok + (size_t)k * ld + dm + h * dh;
      const size_t p = tab + (size_t)(cf_cpu_query_base(q) - cf_cpu_key_off(k)) * dh;
      float acc = 0.0f;
      for (int i = 0; i < dh; i++)
        acc += Q[i] * (K[i] + (eq_rows ? eq_rows[p + i] : 0.0f)) +
               (ek_rows ? K[i] * ek_rows[p + i] : 0.0f);
      s[k] = acc * a->scale;
      if (a->bias) s[k] += a->bias[(((size_t)b * H + h) * 64 + q) * 64 + k];
    }
    softmax64(s);
    weighted_values(dh, s, tok + 2 * dm + h * dh, (size_t)ld, ev_rows ? ev_rows + tab : NULL,
                    cf_cpu_query_base(q), a->out + ((size_t)b * 64 + q) * dm + h * dh);
  }
}
