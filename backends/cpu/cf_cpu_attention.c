/* cf_cpu_attention.c: the attention op's driver, shared by every kernel
 * set: takes the per-head RPE tables built at upload (layouts in
 * cf_cpu_attention_layout.h), then spreads the (position, head) tasks over
 * the instance's threads and runs each (cf_cpu_attention_task.h) with the
 * instance's kernel set's arithmetic (cf_cpu_kernels.h); the bf16 and
 * int8 drivers take the calls they can first. Plain C: nothing here
 * needs more than the target's baseline. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* The cores' paths, writing float32 to a->out. */
static void attention_cores(cf_cpu_ctx *c, const cf_attention_args *a) {
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

/* rows x width floats at x narrowed in place to bf16 at x's start, a row
 * at a time through a row buffer (row r's bf16 lands on floats already
 * read). */
static void narrow_in_place(const cf_cpu_ctx *c, int rows, int width, float *x) {
  enum { ROW_MAX = 1024 };
  cf_bf16 row[ROW_MAX];
  cf_bf16 *y = (cf_bf16 *)x;
  for (int r = 0; r < rows; r++)
    for (int c0 = 0; c0 < width; c0 += ROW_MAX) {
      const int n = width - c0 < ROW_MAX ? width - c0 : ROW_MAX;
      const size_t o = (size_t)r * width + (size_t)c0;
      c->kernels->to_bf16_row(n, x + o, row);
      memcpy(y + o, row, (size_t)n * sizeof *row);
    }
}

/* The call's q, k, v in float32: a->qkv, or where they are bf16, widened
 * (exact) into the instance's scratch; NULL when that is out of memory. */
static const float *qkv_float(cf_cpu_ctx *c, const cf_attention_args *a) {
  if (!a->qkv_bf16) return a->qkv;
  const size_t n = (size_t)a->batch * 64 * 3 * (size_t)(a->heads * a->depth);
  if (n > c->qkv_wide_floats) {
    free(c->qkv_wide);
    c->qkv_wide = malloc(n * sizeof *c->qkv_wide);
    c->qkv_wide_floats = c->qkv_wide ? n : 0;
    if (!c->qkv_wide) {
      cf_backend_note_failure(&c->first, CF_ERR_NOMEM, "attention",
                              "out of memory widening q, k, v (%zu floats)", n);
      return NULL;
    }
  }
  const cf_bf16 *src = (const cf_bf16 *)(const void *)a->qkv;
  for (size_t i = 0; i < n; i++) {
    const uint32_t bits = (uint32_t)src[i] << 16;
    memcpy(&c->qkv_wide[i], &bits, sizeof bits);
  }
  return c->qkv_wide;
}

void cf_cpu_attention(void *ctx, const cf_attention_args *a) {
  cf_cpu_ctx *c = ctx;
  /* The tiles read and write bf16 themselves where asked (qkv_bf16,
   * out_bf16); the cores read float32 (widened) and write float32, then
   * narrowed. Widening and rounding again are exact, and the bf16 cores
   * (heads up to CF_CPU_MAX_FAST_DEPTH deep) round q, k, v to bf16 as the
   * projections do, so they compute the same either way; deeper heads'
   * float32 cores would see the rounded values. */
  if (c->attention_amx && cf_cpu_attention_amx(c, a)) return;
  cf_attention_args f = *a;
  f.qkv = qkv_float(c, a);
  f.qkv_bf16 = false;
  if (!f.qkv) return;
  attention_cores(c, &f);
  if (a->out_bf16) narrow_in_place(c, a->batch * 64, a->heads * a->depth, a->out);
}
