/* cf_cpu_attention.c: the attention op's driver, shared by every kernel
 * set: takes the per-head RPE tables built at upload (layouts in
 * cf_cpu_attention_layout.h), then spreads the (position, head) tasks over
 * the instance's threads and runs each (cf_cpu_attention_task.h) with the
 * instance's kernel set's arithmetic (cf_cpu_kernels.h); the bf16 and
 * int8 drivers take the calls they can first. Plain C: nothing here
 * needs more than the target's baseline. */
#include <stddef.h>

#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_attention_task.h"

bool cf_cpu_rpe_table_of(const cf_bweight *w, const cf_attention_args *a, bool reversed,
                         const float **out) {
  *out = w ? w->table : NULL;
  return !w || (w->table && w->heads == a->heads &&
                cf_cpu_rpe_reversed(w->role, a->depth) == reversed);
}

typedef struct f32_env {
  const cf_cpu_attention_math *m;
  cf_cpu_head_tables t;
  bool fast; /* depth <= CF_CPU_MAX_FAST_DEPTH */
} f32_env;

static void f32_task(const void *env, const cf_attention_args *a, cf_cpu_task task, int next_h,
                     bool cold, cf_cpu_task next) {
  const f32_env *e = env;
  if (e->fast) cf_cpu_attend(e->m, a, &e->t, task, next_h, cold, next);
  else cf_cpu_attend_plain(e->m, a, &e->t, task);
}

void cf_cpu_attention(void *ctx, const cf_attention_args *a) {
  cf_cpu_ctx *c = ctx;
  if (c->attention_amx && cf_cpu_attention_amx(c, a)) return;
  if (c->attention_bf16 && cf_cpu_attention_bf16(c, a)) return;
  if (c->attention_int8 && cf_cpu_attention_int8(c, a)) return;
  const cf_cpu_kernels *kern = c->kernels;
  const bool fast = a->depth <= CF_CPU_MAX_FAST_DEPTH;
  const float *eq, *ek, *ev;
  if (!cf_cpu_rpe_table_of(a->rpe_q, a, fast, &eq) ||
      !cf_cpu_rpe_table_of(a->rpe_k, a, fast, &ek) ||
      !cf_cpu_rpe_table_of(a->rpe_v, a, false, &ev)) {
    cf_backend_note_failure(&c->first, CF_ERR_INTERNAL, "attention",
                            "a relative position table was uploaded for another side or head "
                            "count than this call's %d heads",
                            a->heads);
    return;
  }
  cf_cpu_head_tables t = {.q_rev = fast ? eq : NULL, .k_rev = fast ? ek : NULL,
                          .q_rows = fast ? NULL : eq, .k_rows = fast ? NULL : ek,
                          .v_rows = ev};
  /* The joined tables (built at upload where the set reads them), for
   * batches that pay for reading them (8 times the reversed tables' bytes
   * a head). */
  if (fast && a->batch >= CF_CPU_JOINED_MIN_BATCH && (eq || ek) &&
      (!eq || a->rpe_q->table_joined) && (!ek || a->rpe_k->table_joined)) {
    t.q_joined = eq ? a->rpe_q->table_joined : NULL;
    t.k_joined = ek ? a->rpe_k->table_joined : NULL;
  }
  const f32_env env = {kern->attention, t, fast};
  cf_cpu_attention_tasks(c->threads, a, f32_task, &env);
}
