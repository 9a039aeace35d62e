/* cf_cpu_attention_bf16.c: the attention op in bf16 (cf_cpu_kernels.h,
 * cf_cpu_attention_bf16_math), the oneDNN backend's precision=bf16. The
 * same (position, head) tasks, head-major with RPE, as the float32 driver
 * (cf_cpu_attention.c); per task the head's q, k and v rows are rounded
 * to bf16 (the projections' rounding) and packed into the pair layouts by
 * the bf16 core's pack_qkv, then the scores (the set's bf16 core),
 * the softmax on the float32 scores straight to unnormalised bf16 weights
 * with one scale per row, and the weighted values (the bf16 core).
 * Plain C: every vector instruction is in the kernel sets. */
#include <stddef.h>
#include <stdint.h>

#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_attention_task.h"
#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_kernels.h"

enum { MAXD = CF_CPU_MAX_FAST_DEPTH };

/* The per-head bf16 tables of one call (NULL: the term is absent). */
typedef struct bf16_tables {
  const uint32_t *q, *k; /* [H][dp][225] reversed pairs */
  const uint32_t *v;     /* [H][225][dh] pair rows */
} bf16_tables;

/* The bf16 table of an RPE weight, false when it has none for this call
 * (an instance without bf16 attention made it, or another head count). */
static bool table_of(const cf_bweight *w, int heads, const uint32_t **out) {
  *out = w ? w->table_bf16 : NULL;
  return !w || (w->table_bf16 && w->heads == heads);
}

/* Prefetches part `part` of 64 of head h's bf16 tables into L2 (the
 * float32 driver's cf_cpu_prefetch_part on the word tables: a q/k table
 * is dp x 225 words per head, a v table 225 x dh). */
static void prefetch_tables(const bf16_tables *t, int h, int dh, int part) {
  const int dp = (dh + 1) / 2;
  cf_cpu_prefetch_part((const float *)(const void *)t->q, h, dp, part, 64);
  cf_cpu_prefetch_part((const float *)(const void *)t->k, h, dp, part, 64);
  cf_cpu_prefetch_part((const float *)(const void *)t->v, h, dh, part, 64);
}

/* What every task of one call shares. */
typedef struct bf16_env {
  const cf_cpu_attention_bf16_math *m;
  bf16_tables t;
} bf16_env;

/* One (b, h) task (a cf_cpu_task_fn). next_h: the thread's next head when
 * it differs (its tables are prefetched during this task's score pass),
 * else -1; next: the task whose rows to prefetch, as the float32 driver
 * (cf_cpu_attention_task.h). */
static void attend(const void *env, const cf_attention_args *a, cf_cpu_task task, int next_h,
                   bool cold, cf_cpu_task next) {
  (void)cold;
  const bf16_env *e = env;
  const cf_cpu_attention_bf16_math *m = e->m;
  const bf16_tables *t = &e->t;
  const int b = task.b, h = task.h;
  const cf_cpu_row_prefetch pfr =
      cf_cpu_row_prefetch_for(a->qkv, a->out, a->heads, a->depth, next.b, next.h);
  const cf_cpu_row_prefetch *pf = &pfr;
  const int H = a->heads, dh = a->depth, dp = (dh + 1) / 2, dm = H * dh, ld = 3 * dm;
  const float *tok = a->qkv + (size_t)b * 64 * ld;
  float *out = a->out + (size_t)b * 64 * dm;
  const size_t tq = (size_t)h * dp * CF_CPU_RPE_TABLE, tv = (size_t)h * CF_CPU_RPE_TABLE * dh;
  const uint32_t *eq = t->q ? t->q + tq : NULL, *ek = t->k ? t->k + tq : NULL;
  const uint32_t *ev = t->v ? t->v + tv : NULL;
  const float *bias = a->bias ? a->bias + ((size_t)b * H + h) * 64 * 64 : NULL;

  _Alignas(64) uint16_t qb[64 * MAXD]; /* rows of 2 dp */
  _Alignas(64) uint32_t kt[MAXD / 2 * 64]; /* [dp][64] */
  _Alignas(64) uint32_t vp[32 * MAXD];     /* [32][dh] */
  m->pack_qkv(dh, tok + h * dh, tok + dm + h * dh, tok + 2 * dm + h * dh, (size_t)ld, qb, kt,
              vp);

  _Alignas(64) float S[64 * 64];
  int step = 0;
  for (int half = 0; half < 2; half++)
    for (int q = 0; q < 64; q = (q & 7) == 7 ? q + 9 : q + 1, step++) { /* ranks 0, 2, 4, 6 */
      if (next_h >= 0) prefetch_tables(t, next_h, dh, step);
      if (pf->qkv) cf_cpu_prefetch_token(pf, step);
      const int c = CF_CPU_RPE_TABLE - 1 - cf_cpu_query_base(q); /* q + 8 is at c - 15 */
      m->scores_pair(dp, qb + q * 2 * dp, qb + (q + 8) * 2 * dp, kt, eq ? eq + c : NULL,
                     ek ? ek + c : NULL, half, S + q * 64, S + (q + 8) * 64);
    }
  _Alignas(64) uint16_t w[2][64];
  float sa[2];
  for (int q = 0; q < 64; q = (q & 7) == 7 ? q + 9 : q + 1) {
    for (int u = 0; u < 2; u++)
      sa[u] = m->softmax_to_bf16(S + (q + 8 * u) * 64, a->scale,
                                 bias ? bias + (q + 8 * u) * 64 : NULL, w[u]);
    m->weighted_values_pair(dh, w[0], w[1], sa[0], sa[1], vp, ev, cf_cpu_query_base(q),
                            cf_cpu_query_base(q + 8), out + (size_t)q * dm + h * dh,
                            out + (size_t)(q + 8) * dm + h * dh);
  }
}

bool cf_cpu_attention_bf16(cf_cpu_ctx *c, const cf_attention_args *a) {
  bf16_env e = {c->attention_bf16, {0}};
  if (!e.m || a->depth > MAXD || !table_of(a->rpe_q, a->heads, &e.t.q) ||
      !table_of(a->rpe_k, a->heads, &e.t.k) || !table_of(a->rpe_v, a->heads, &e.t.v))
    return false;
  cf_cpu_attention_tasks(c->threads, a, attend, &e);
  return true;
}
