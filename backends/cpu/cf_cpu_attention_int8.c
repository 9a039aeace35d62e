/* cf_cpu_attention_int8.c: the attention op in int8 (cf_cpu_kernels.h,
 * cf_cpu_attention_int8_math), the oneDNN backend's precision=int8. The
 * same (position, head) tasks, head-major with RPE, as the float32 and
 * bf16 drivers (cf_cpu_attention_tasks). Per task: the head's q and k rows
 * quantized per token (the int8 core's quantize_qk, the projections'
 * arithmetic), v per depth column (its quantize_values), packed in quads;
 * then the integer scores with the RPE q and k terms (the set's int8 core,
 * on the int8 tables built at upload), the float32 softmax straight to u8
 * weights (one scale per row), and the integer weighted values with the
 * RPE value term. Plain C: every vector instruction is in the kernel
 * sets. */
#include <stddef.h>
#include <stdint.h>

#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_attention_task.h"
#include "backends/cpu/cf_cpu_attention_walk.h"
#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_kernels.h"

enum { MAXD = CF_CPU_MAX_FAST_DEPTH, MAXQ = MAXD / 4, TABLE = CF_CPU_RPE_TABLE };

/* The int8 tables of one RPE weight (all NULL: the term is absent). */
typedef struct int8_table {
  const uint32_t *quads;
  const float *scale;
  const int32_t *corr;
  const uint32_t *joined; /* the joined quads, or NULL */
} int8_table;

/* What every task of one call shares: the tables of the three terms, and
 * whether the scores read the joined quads (the core's scores_file). */
typedef struct int8_env {
  const cf_cpu_attention_int8_math *m;
  int8_table q, k, v;
  bool joined;
} int8_env;

/* The int8 tables of an RPE weight, false when it has none for this call
 * (an instance without int8 attention made it, a value that is not
 * finite, or another head count). */
static bool table_of(const cf_bweight *w, int heads, int8_table *out) {
  *out = (int8_table){0};
  if (!w) return true;
  if (!w->table_int8 || w->heads != heads) return false;
  *out = (int8_table){w->table_int8, w->table_int8_scale, w->table_int8_corr,
                      w->table_int8_joined};
  return true;
}

/* Prefetches part `part` of 64 of head h's int8 tables into L2 (the
 * quads: a q/k table is dq x 225 words per head, a v table 225 x dh). */
static void prefetch_tables(const int8_env *e, int h, int dh, int part) {
  const int dq = (dh + 3) / 4;
  if (!e->joined) { /* the joined blocks are read in order: the hardware follows */
    cf_cpu_prefetch_part((const float *)(const void *)e->q.quads, h, dq, part, 64);
    cf_cpu_prefetch_part((const float *)(const void *)e->k.quads, h, dq, part, 64);
  }
  cf_cpu_prefetch_part((const float *)(const void *)e->v.quads, h, dh, part, 64);
}

/* Head h's query and key tables (a field NULL where the term is absent),
 * not yet offset by a query's c. */
static cf_cpu_int8_rpe head_tables(const int8_env *e, int h, int dq) {
  const size_t quads = (size_t)h * dq * TABLE, entries = (size_t)h * TABLE;
  cf_cpu_int8_rpe t = {0};
  if (e->q.quads) {
    t.eq = e->q.quads + quads;
    t.eqc = e->q.corr + entries;
    t.eqs = e->q.scale + entries;
  }
  if (e->k.quads) t.ek = e->k.quads + quads, t.eks = e->k.scale + entries;
  return t;
}

/* What one task's steps read (cf_cpu_attention_walk.h): the head's
 * quantized q, k and v with their scales, and its tables. */
typedef struct int8_body {
  const int8_env *e;
  const cf_attention_args *a;
  const uint8_t *qb;           /* queries as u8 (q + 128), rows of 4 dq */
  const uint32_t *kt, *vq;     /* keys as s8 quads transposed; values [16][dh] */
  const float *sq, *sk, *sv;   /* per query, key, depth column */
  const int32_t *kc;
  cf_cpu_int8_rpe head;        /* not yet offset by a pair's c */
  const uint32_t *ev;
  const float *evs;
  uint8_t *w;                  /* the softmax's weights [64][64] */
  float *sa;                   /* their scale per row */
  int h, dh, dq;
} int8_body;

/* Always inlined: both score walks call it (see f32_prefetch in
 * cf_cpu_attention_task.c). */
static inline __attribute__((always_inline)) void body_prefetch(const void *body, int h,
                                                               int part) {
  const int8_body *f = body;
  prefetch_tables(f->e, h, f->dh, part);
}

/* A file of queries at once on the joined quads (the core's
 * scores_file). */
static void body_file_scores(const void *body, int f, int step, float *S) {
  (void)step;
  const int8_body *b = body;
  const int8_env *e = b->e;
  const size_t at = ((size_t)b->h * 8 + f) * cf_cpu_joined_block(b->dq);
  e->m->scores_file(b->dq, f, b->qb, b->sq, b->kt, b->kc, b->sk, &b->head,
                    e->q.joined ? e->q.joined + at : NULL, e->k.joined ? e->k.joined + at : NULL,
                    S);
}

static void body_scores(const void *body, int q, int c, int half, int step, float *s0,
                        float *s1) {
  (void)step;
  const int8_body *f = body;
  const int dq = f->dq;
  cf_cpu_int8_rpe t = f->head;
  if (t.eq) t.eq += c, t.eqc += c, t.eqs += c;
  if (t.ek) t.ek += c, t.eks += c;
  f->e->m->scores_pair(dq, f->qb + q * 4 * dq, f->qb + (q + 8) * 4 * dq, f->sq[q], f->sq[q + 8],
                       f->kt, f->kc, f->sk, &t, half, s0, s1);
}

/* The float32 softmax straight to u8 weights (one scale per row), into
 * the task's rows of weights. */
static void body_softmax(const void *body, int q, float *s, const float *bias) {
  const int8_body *f = body;
  f->sa[q] = f->e->m->softmax_to_u8(s, f->a->scale, bias, f->w + 64 * q);
}

/* The integer weighted values of a query pair with the RPE value term. */
static void body_values(const void *body, int q, float *s0, float *s1, float *o0, float *o1) {
  (void)s0, (void)s1;
  const int8_body *f = body;
  f->e->m->weighted_values_pair(f->dh, f->w + 64 * q, f->w + 64 * (q + 8), f->sa[q],
                                f->sa[q + 8], f->vq, f->sv, f->ev, f->evs,
                                cf_cpu_query_base(q), cf_cpu_query_base(q + 8), o0, o1);
}

/* One (b, h) task (a cf_cpu_task_fn; next_h, next as the float32
 * driver's). */
static void attend(const void *env, const cf_attention_args *a, cf_cpu_task task, int next_h,
                   bool cold, cf_cpu_task next) {
  (void)cold;
  const int8_env *e = env;
  const int b = task.b, h = task.h, H = a->heads, dh = a->depth, dq = (dh + 3) / 4;
  const int dm = H * dh, ld = 3 * dm;
  const float *tok = a->qkv + (size_t)b * 64 * ld + (size_t)h * dh;

  /* Queries as u8 (q + 128), keys as s8 quads transposed. */
  _Alignas(64) uint8_t qb[64 * 4 * MAXQ];
  _Alignas(64) uint32_t kt[MAXQ * 64];
  float sq[64], sk[64];
  int32_t kc[64];
  e->m->quantize_qk(dh, tok, tok + dm, (size_t)ld, qb, kt, sq, sk, kc);
  _Alignas(64) uint32_t vq[16 * MAXD];
  float sv[MAXD];
  _Alignas(64) uint8_t w[64 * 64];
  float sa[64];
  const int8_body f = {.e = e, .a = a, .qb = qb, .kt = kt, .vq = vq, .sq = sq, .sk = sk, .sv = sv,
                 .kc = kc, .head = head_tables(e, h, dq), .w = w, .sa = sa, .h = h,
                 .ev = e->v.quads ? e->v.quads + (size_t)h * TABLE * dh : NULL,
                 .evs = e->v.quads ? e->v.scale + (size_t)h * dh : NULL, .dh = dh, .dq = dq};

  _Alignas(64) float S[64 * 64];
  if (e->joined)
    cf_cpu_walk_scores_by_file(&f, a, next_h, next, S, body_prefetch, body_file_scores);
  else
    cf_cpu_walk_scores(&f, a, next_h, next, S, body_prefetch, body_scores);
  /* Values per depth column, in key quads [16][dh]. */
  e->m->quantize_values(dh, tok + 2 * dm, (size_t)ld, vq, sv);
  cf_cpu_walk_values(&f, a, task, S, body_softmax, body_values);
}

bool cf_cpu_attention_int8(cf_cpu_ctx *c, const cf_attention_args *a) {
  int8_env e = {c->attention_int8, {0}, {0}, {0}, false};
  if (!e.m || a->depth > MAXD || !table_of(a->rpe_q, a->heads, &e.q) ||
      !table_of(a->rpe_k, a->heads, &e.k) || !table_of(a->rpe_v, a->heads, &e.v))
    return false;
  /* The joined quads (built at upload where the core reads them), for
   * batches that pay for reading them (cf_cpu_attention_layout.h). */
  e.joined = a->batch >= CF_CPU_JOINED_MIN_BATCH && (e.q.quads || e.k.quads) &&
             (!e.q.quads || e.q.joined) && (!e.k.quads || e.k.joined);
  cf_cpu_attention_tasks(c->threads, a, attend, &e);
  return true;
}
