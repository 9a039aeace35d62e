/* cf_cpu_attention_task.c: the loops of one attention task, shared by
 * every kernel set (see the header). Plain C for the target's baseline;
 * every vector instruction is in the set's arithmetic. */
#include "backends/cpu/cf_cpu_attention_task.h"

#include <stddef.h>

#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_attention_walk.h"

/* What the float32 task's steps read (cf_cpu_attention_walk.h). */
typedef struct f32_body {
  const cf_cpu_attention_math *m;
  const cf_cpu_head_tables *t;
  const cf_attention_args *a;
  const float *tok, *V;     /* the position's q/k/v rows; this head's values */
  const float *eq, *ek, *ev; /* this head's tables (NULL: absent) */
  const float *kt;           /* this head's keys, [dh][64] */
  int h, dh, ld;
  bool cold;
} f32_body;

/* Always inlined: both score walks call it, and left to itself GCC kept
 * it out of line, an indirect call at every step (CF-6M's shape at batch
 * 1 took 7% longer). */
static inline __attribute__((always_inline)) void f32_prefetch(const void *body, int h,
                                                              int part) {
  const f32_body *f = body;
  if (!f->t->q_joined && !f->t->k_joined) { /* joined blocks: read in order, the hardware follows */
    cf_cpu_prefetch_part(f->t->q_rev, h, f->dh, part, 64);
    cf_cpu_prefetch_part(f->t->k_rev, h, f->dh, part, 64);
  }
  cf_cpu_prefetch_part(f->t->v_rows, h, f->dh, part, 64);
}

static void f32_scores(const void *body, int q, int c, int half, int step, float *s0, float *s1) {
  const f32_body *f = body;
  const float *Q0 = f->tok + (size_t)q * f->ld + f->h * f->dh, *Q1 = Q0 + (size_t)8 * f->ld;
  if (f->cold) cf_cpu_prefetch_part(f->t->v_rows, f->h, f->dh, step, 64);
  f->m->scores_pair(f->dh, Q0, Q1, f->kt, f->eq ? f->eq + c : NULL, f->ek ? f->ek + c : NULL,
                    half, s0, s1);
}

/* A file of queries at once on the joined tables (the set's scores_file),
 * the value table's part prefetched as f32_scores does when cold. */
static void f32_file_scores(const void *body, int f, int step, float *S) {
  const f32_body *b = body;
  if (b->cold)
    for (int part = step; part < step + 8; part++)
      cf_cpu_prefetch_part(b->t->v_rows, b->h, b->dh, part, 64);
  const size_t block = cf_cpu_joined_block(b->dh), at = ((size_t)b->h * 8 + f) * block;
  b->m->scores_file(b->dh, f, b->tok + b->h * b->dh, (size_t)b->ld, b->kt,
                    b->t->q_joined ? b->t->q_joined + at : NULL,
                    b->t->k_joined ? b->t->k_joined + at : NULL, S);
}

static void f32_softmax(const void *body, int q, float *s, const float *bias) {
  (void)q;
  const f32_body *f = body;
  f->m->finish_scores(s, f->a->scale, bias);
}

static void f32_values(const void *body, int q, float *s0, float *s1, float *o0, float *o1) {
  const f32_body *f = body;
  f->m->weighted_values_pair(f->dh, s0, s1, f->V, (size_t)f->ld, f->ev, cf_cpu_query_base(q),
                             cf_cpu_query_base(q + 8), o0, o1);
}

void cf_cpu_attend(const cf_cpu_attention_math *m, const cf_attention_args *a,
                   const cf_cpu_head_tables *t, cf_cpu_task task, int next_h, bool cold,
                   cf_cpu_task next) {
  const int b = task.b, h = task.h;
  const int H = a->heads, dh = a->depth, dm = H * dh, ld = 3 * dm;
  const float *tok = a->qkv + (size_t)b * 64 * ld; /* [64][3*dm] */
  if (cold) {
    cf_cpu_prefetch_part(t->q_rev, h, dh, 0, 1);
    cf_cpu_prefetch_part(t->k_rev, h, dh, 0, 1);
  }

  _Alignas(64) float kt[CF_CPU_MAX_FAST_DEPTH * 64]; /* this head's keys, [dh][64] */
  /* Depth-outer: contiguous stores; the strided loads stay in L1 (64 key
   * rows of dh floats). The other order spent 10% of the kernel in
   * store-forwarding stalls. */
  const float *K0 = tok + dm + h * dh;
  if (m->transpose_keys)
    m->transpose_keys(dh, K0, (size_t)ld, kt);
  else
    for (int i = 0; i < dh; i++)
      for (int k = 0; k < 64; k++) kt[i * 64 + k] = K0[(size_t)k * ld + i];
  const f32_body f = {.m = m, .t = t, .a = a, .tok = tok, .V = tok + 2 * dm + h * dh,
                      .eq = cf_cpu_head_table(t->q_rev, h, dh),
                      .ek = cf_cpu_head_table(t->k_rev, h, dh),
                      .ev = cf_cpu_head_table(t->v_rows, h, dh), .kt = kt, .h = h, .dh = dh,
                      .ld = ld, .cold = cold};
  /* All scores first, one key half (4 ranks) at a time over every query:
   * a half touches about 68 of the 225 table columns per query, so the two
   * tables' working set (~17 KB at dh 32) stays in L1 while the queries
   * slide across it; both halves at once overflowed L1 into L2. */
  _Alignas(64) float S[64 * 64];
  if (t->q_joined || t->k_joined)
    cf_cpu_walk_scores_by_file(&f, a, next_h, next, S, f32_prefetch, f32_file_scores);
  else
    cf_cpu_walk_scores(&f, a, next_h, next, S, f32_prefetch, f32_scores);
  cf_cpu_walk_values(&f, a, task, S, f32_softmax, f32_values);
}

void cf_cpu_attend_plain(const cf_cpu_attention_math *m, const cf_attention_args *a,
                         const cf_cpu_head_tables *t, cf_cpu_task task) {
  const int b = task.b, h = task.h;
  const int H = a->heads, dh = a->depth, dm = H * dh, ld = 3 * dm;
  const float *tok = a->qkv + (size_t)b * 64 * ld;
  const size_t tab = (size_t)h * CF_CPU_RPE_TABLE * dh;
  const float *V = tok + 2 * dm + h * dh;
  const float *ev = t->v_rows ? t->v_rows + tab : NULL;
  for (int q = 0; q < 64; q += 2) { /* q, q + 1: weighted_values_pair takes pairs */
    _Alignas(64) float s[2][64];
    for (int u = 0; u < 2; u++) {
      const float *Q = tok + (size_t)(q + u) * ld + h * dh;
      for (int k = 0; k < 64; k++) {
        const float *K = tok + (size_t)k * ld + dm + h * dh;
        const size_t p = tab + (size_t)(cf_cpu_query_base(q + u) - cf_cpu_key_off(k)) * dh;
        s[u][k] = m->dot_rpe(dh, Q, K, t->q_rows ? t->q_rows + p : NULL,
                             t->k_rows ? t->k_rows + p : NULL);
      }
      m->finish_scores(s[u], a->scale,
                       a->bias ? a->bias + (((size_t)b * H + h) * 64 + q + u) * 64 : NULL);
    }
    m->weighted_values_pair(dh, s[0], s[1], V, (size_t)ld, ev, cf_cpu_query_base(q),
                            cf_cpu_query_base(q + 1), a->out + ((size_t)b * 64 + q) * dm + h * dh,
                            a->out + ((size_t)b * 64 + q + 1) * dm + h * dh);
  }
}

void cf_cpu_attention_tasks(int threads, const cf_attention_args *a, cf_cpu_task_fn fn,
                            const void *env) {
  const int tasks = a->batch * a->heads;
  const size_t qkv_bytes = (size_t)a->batch * 64 * 3 * a->heads * a->depth * sizeof(float);
  const bool head_major = a->rpe_q || a->rpe_k || a->rpe_v;
  const int nt = threads < tasks ? threads : tasks;
  (void)nt; /* read only by OpenMP: unused without it (WebAssembly) */
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    bool first = true;
#pragma omp for schedule(static)
    for (int i = 0; i < tasks; i++) {
      /* With RPE tables, head-major: consecutive tasks share one head's
       * tables (86 KB at dh 32), which then stay in L2 across the batch
       * instead of all heads' tables (690 KB) competing with the batch's
       * q/k/v. Without tables, position-major keeps a position's q/k/v in
       * L2. */
      const int h = head_major ? i / a->batch : i % a->heads;
      const int b = head_major ? i % a->batch : i / a->heads;
      const int next_h = head_major && b == a->batch - 1 && h + 1 < a->heads ? h + 1 : -1;
      /* The thread's next task (static schedule: i + 1 unless this is
       * the end of its share, where the prefetch is wasted but harmless),
       * when the batch's q/k/v are too large to stay in L2 after the
       * projection wrote them. Below that the rows are in L2 already and
       * prefetching them only churns L1 (5% slower at batch 1 with RPE). */
      cf_cpu_task next = {-1, -1};
      if (i + 1 < tasks && qkv_bytes >= CF_CPU_PREFETCH_ROWS_FROM) {
        next.b = head_major ? (i + 1) % a->batch : (i + 1) / a->heads;
        next.h = head_major ? (i + 1) / a->batch : (i + 1) % a->heads;
      }
      fn(env, a, (cf_cpu_task){b, h}, next_h, head_major && first, next);
      first = false;
    }
  }
}
