/* cf_cpu_attention.c: the attention op's driver, shared by every kernel
 * set: takes the per-head RPE tables built at upload (layouts in
 * cf_cpu_attention_layout.h), then spreads the (position, head) tasks over
 * the instance's threads and runs each (cf_cpu_attention_task.h) with the
 * instance's kernel set's arithmetic (cf_cpu_kernels.h). Plain C: nothing here needs more than the target's
 * baseline. */
#include <stddef.h>

#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_attention_task.h"

/* The per-head table of an RPE weight (built at upload, see
 * cf_cpu_weight_create), or NULL when the term is absent. false when the
 * table was built for another head count or side (the layout differs): a
 * caller's bug, reported by sync rather than computed wrong. */
static bool table_of(const cf_bweight *w, const cf_attention_args *a, bool reversed,
                     const float **out) {
  *out = w ? w->table : NULL;
  return !w || (w->table && w->heads == a->heads &&
                cf_cpu_rpe_reversed(w->role, a->depth) == reversed);
}

void cf_cpu_attention(void *ctx, const cf_attention_args *a) {
  cf_cpu_ctx *c = ctx;
  if (c->attention_bf16 && cf_cpu_attention_bf16(c, a)) return;
  const cf_cpu_kernels *kern = c->kernels;
  const bool fast = a->depth <= CF_CPU_MAX_FAST_DEPTH;
  const float *eq, *ek, *ev;
  if (!table_of(a->rpe_q, a, fast, &eq) || !table_of(a->rpe_k, a, fast, &ek) ||
      !table_of(a->rpe_v, a, false, &ev)) {
    cf_backend_note_failure(&c->first, CF_ERR_INTERNAL, "attention",
                            "a relative position table was uploaded for another side or head "
                            "count than this call's %d heads",
                            a->heads);
    return;
  }
  const cf_cpu_head_tables t = {.q_rev = fast ? eq : NULL, .k_rev = fast ? ek : NULL,
                                .q_rows = fast ? NULL : eq, .k_rows = fast ? NULL : ek,
                                .v_rows = ev};
  const cf_cpu_attention_math *m = kern->attention;
  const int tasks = a->batch * a->heads;
  const size_t qkv_bytes = (size_t)a->batch * 64 * 3 * a->heads * a->depth * sizeof(float);
  const bool head_major = a->rpe_q || a->rpe_k || a->rpe_v;
  const int nt = c->threads < tasks ? c->threads : tasks;
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
      const cf_cpu_task task = {b, h};
      if (fast) cf_cpu_attend(m, a, &t, task, next_h, head_major && first, next);
      else cf_cpu_attend_plain(m, a, &t, task);
      first = false;
    }
  }
}
