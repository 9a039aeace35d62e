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
#include "backends/cpu/cf_cpu_attention_walk.h"
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

/* What one task's steps read (cf_cpu_attention_walk.h): the head's packed
 * q, k and v and its tables. */
typedef struct bf16_body {
  const bf16_env *e;
  const cf_attention_args *a;
  const uint16_t *qb;       /* rows of 2 dp */
  const uint32_t *kt, *vp;  /* [dp][64]; [32][dh] */
  const uint32_t *eq, *ek, *ev;
  uint16_t *w;              /* the softmax's weights [64][64] */
  float *sa;                /* their scale per row */
  int dh, dp;
} bf16_body;

static void body_prefetch(const void *body, int h, int part) {
  const bf16_body *f = body;
  prefetch_tables(&f->e->t, h, f->dh, part);
}

static void body_scores(const void *body, int q, int c, int half, int step, float *s0,
                        float *s1) {
  (void)step;
  const bf16_body *f = body;
  const int dp = f->dp;
  f->e->m->scores_pair(dp, f->qb + q * 2 * dp, f->qb + (q + 8) * 2 * dp, f->kt,
                       f->eq ? f->eq + c : NULL, f->ek ? f->ek + c : NULL, half, s0, s1);
}

/* The softmax on the float32 scores straight to unnormalised bf16
 * weights, one scale per row, into the task's rows of weights. */
static void body_softmax(const void *body, int q, float *s, const float *bias) {
  const bf16_body *f = body;
  f->sa[q] = f->e->m->softmax_to_bf16(s, f->a->scale, bias, f->w + 64 * q);
}

/* The weighted values of a query pair from its bf16 weights. */
static void body_values(const void *body, int q, float *s0, float *s1, float *o0, float *o1) {
  (void)s0, (void)s1;
  const bf16_body *f = body;
  f->e->m->weighted_values_pair(f->dh, f->w + 64 * q, f->w + 64 * (q + 8), f->sa[q],
                                f->sa[q + 8], f->vp, f->ev, cf_cpu_query_base(q),
                                cf_cpu_query_base(q + 8), o0, o1);
}

/* One (b, h) task (a cf_cpu_task_fn). next_h: the thread's next head when
 * it differs (its tables are prefetched during this task's score pass),
 * else -1; next: the task whose rows to prefetch, as the float32 driver
 * (cf_cpu_attention_task.h). */
static void attend(const void *env, const cf_attention_args *a, cf_cpu_task task, int next_h,
                   bool cold, cf_cpu_task next) {
  (void)cold;
  const bf16_env *e = env;
  const bf16_tables *t = &e->t;
  const int b = task.b, h = task.h;
  const int H = a->heads, dh = a->depth, dp = (dh + 1) / 2, dm = H * dh, ld = 3 * dm;
  const float *tok = a->qkv + (size_t)b * 64 * ld;
  const size_t tq = (size_t)h * dp * CF_CPU_RPE_TABLE, tv = (size_t)h * CF_CPU_RPE_TABLE * dh;

  _Alignas(64) uint16_t qb[64 * MAXD]; /* rows of 2 dp */
  _Alignas(64) uint32_t kt[MAXD / 2 * 64]; /* [dp][64] */
  _Alignas(64) uint32_t vp[32 * MAXD];     /* [32][dh] */
  e->m->pack_qkv(dh, tok + h * dh, tok + dm + h * dh, tok + 2 * dm + h * dh, (size_t)ld, qb, kt,
                 vp);
  _Alignas(64) uint16_t w[64 * 64];
  float sa[64];
  const bf16_body f = {.e = e, .a = a, .qb = qb, .kt = kt, .vp = vp, .w = w, .sa = sa,
                       .eq = t->q ? t->q + tq : NULL, .ek = t->k ? t->k + tq : NULL,
                       .ev = t->v ? t->v + tv : NULL, .dh = dh, .dp = dp};
  _Alignas(64) float S[64 * 64];
  cf_cpu_walk_scores(&f, a, next_h, next, S, body_prefetch, body_scores);
  cf_cpu_walk_values(&f, a, task, S, body_softmax, body_values);
}

bool cf_cpu_attention_bf16(cf_cpu_ctx *c, const cf_attention_args *a) {
  bf16_env e = {c->attention_bf16, {0}};
  if (!e.m || a->depth > MAXD || !table_of(a->rpe_q, a->heads, &e.t.q) ||
      !table_of(a->rpe_k, a->heads, &e.t.k) || !table_of(a->rpe_v, a->heads, &e.t.v))
    return false;
  cf_cpu_attention_tasks(c->threads, a, attend, &e);
  return true;
}
