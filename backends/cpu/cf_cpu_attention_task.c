/* cf_cpu_attention_task.c: the loops of one attention task, shared by
 * every kernel set (see the header). Plain C for the target's baseline;
 * every vector instruction is in the set's arithmetic. */
#include "backends/cpu/cf_cpu_attention_task.h"

#include <stddef.h>

#include "backends/cpu/cf_cpu_attention_layout.h"

void cf_cpu_attend(const cf_cpu_attention_math *m, const cf_attention_args *a,
                   const cf_cpu_head_tables *t, cf_cpu_task task, int next_h, bool cold,
                   cf_cpu_task next) {
  const int b = task.b, h = task.h;
  const int H = a->heads, dh = a->depth, dm = H * dh, ld = 3 * dm;
  const float *tok = a->qkv + (size_t)b * 64 * ld; /* [64][3*dm] */
  float *out = a->out + (size_t)b * 64 * dm;       /* [64][dm] */
  const float *eq = cf_cpu_head_table(t->q_rev, h, dh);
  const float *ek = cf_cpu_head_table(t->k_rev, h, dh);
  const float *ev = cf_cpu_head_table(t->v_rows, h, dh);
  const float *bias = a->bias ? a->bias + ((size_t)b * H + h) * 64 * 64 : NULL;
  const cf_cpu_row_prefetch pf = cf_cpu_row_prefetch_for(a->qkv, a->out, H, dh, next.b, next.h);
  if (cold) {
    cf_cpu_prefetch_part(t->q_rev, h, dh, 0, 1);
    cf_cpu_prefetch_part(t->k_rev, h, dh, 0, 1);
  }

  _Alignas(64) float kt[CF_CPU_MAX_FAST_DEPTH * 64]; /* this head's keys, [dh][64] */
  /* Depth-outer: contiguous stores; the strided loads stay in L1 (64 key
   * rows of dh floats). The other order spent 10% of the kernel in
   * store-forwarding stalls. */
  const float *K0 = tok + dm + h * dh;
  for (int i = 0; i < dh; i++)
    for (int k = 0; k < 64; k++) kt[i * 64 + k] = K0[(size_t)k * ld + i];
  /* All scores first, one key half (4 ranks) at a time over every query:
   * a half touches about 68 of the 225 table columns per query, so the two
   * tables' working set (~17 KB at dh 32) stays in L1 while the queries
   * slide across it; both halves at once overflowed L1 into L2. */
  _Alignas(64) float S[64 * 64];
  int step = 0;
  for (int half = 0; half < 2; half++) {
    for (int q = 0; q < 64; q = (q & 7) == 7 ? q + 9 : q + 1, step++) { /* ranks 0, 2, 4, 6 */
      const float *Q0 = tok + (size_t)q * ld + h * dh, *Q1 = Q0 + (size_t)8 * ld;
      if (next_h >= 0) {
        cf_cpu_prefetch_part(t->q_rev, next_h, dh, step, 64);
        cf_cpu_prefetch_part(t->k_rev, next_h, dh, step, 64);
        cf_cpu_prefetch_part(t->v_rows, next_h, dh, step, 64);
      }
      if (cold) cf_cpu_prefetch_part(t->v_rows, h, dh, step, 64);
      if (pf.qkv) cf_cpu_prefetch_token(&pf, step);
      const int c = CF_CPU_RPE_TABLE - 1 - cf_cpu_query_base(q); /* q + 8 is at c - 15, c >= 15 */
      m->scores_pair(dh, Q0, Q1, kt, eq ? eq + c : NULL, ek ? ek + c : NULL, half, S + q * 64,
                     S + (q + 8) * 64);
    }
  }
  const float *V = tok + 2 * dm + h * dh;
  for (int q = 0; q < 64; q = (q & 7) == 7 ? q + 9 : q + 1) {
    float *s0 = S + q * 64, *s1 = S + (q + 8) * 64;
    m->finish_scores(s0, a->scale, bias ? bias + q * 64 : NULL);
    m->finish_scores(s1, a->scale, bias ? bias + (q + 8) * 64 : NULL);
    m->weighted_values_pair(dh, s0, s1, V, (size_t)ld, ev, cf_cpu_query_base(q),
                            cf_cpu_query_base(q + 8), out + (size_t)q * dm + h * dh,
                            out + (size_t)(q + 8) * dm + h * dh);
  }
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
