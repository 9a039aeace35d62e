/* cf_cpu_attention.c: the attention op's driver, shared by every kernel
 * set: builds the per-head RPE tables on first use (layouts in
 * cf_cpu_attention_layout.h), then spreads the (position, head) tasks over
 * the instance's threads and runs each with the instance's kernel set
 * (cf_cpu_kernels.h). Plain C: nothing here needs more than the target's
 * baseline. */
#include <stddef.h>
#include <string.h>

#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_kernels.h"

enum { TABLE = CF_CPU_RPE_TABLE };

/* From this size of the batch's q/k/v buffer up, each task prefetches the
 * next one's rows (cf_cpu_prefetch_token): about an L2's worth. */
enum { PREFETCH_ROWS_FROM = 1 << 20 };

/* w->per_head: [H][225][dh]; built on first use (before the parallel
 * region), rebuilt if the head count changes. NULL when out of memory. */
static const float *rows_per_head(const cf_bweight *cw, int heads) {
  if (!cw) return NULL;
  cf_bweight *w = (cf_bweight *)cw; /* a cache, not a change of value */
  if (w->per_head && w->per_head_heads == heads) return w->per_head;
  cf_cpu_free(w->per_head);
  w->per_head = cf_cpu_alloc((size_t)w->rows * w->cols);
  if (!w->per_head) return NULL;
  w->per_head_heads = heads;
  const int dh = w->cols / heads;
  for (int p = 0; p < w->rows; p++)
    for (int i = 0; i < dh; i++)
      for (int h = 0; h < heads; h++)
        w->per_head[((size_t)h * w->rows + p) * dh + i] =
            w->data[(size_t)p * w->cols + (size_t)i * heads + h];
  return w->per_head;
}

/* w->per_head_rev: [H][dh][225], element (h, i, j) = e[224 - j][i*H + h]. */
static const float *reversed_per_head(const cf_bweight *cw, int heads) {
  if (!cw) return NULL;
  cf_bweight *w = (cf_bweight *)cw;
  if (w->per_head_rev && w->per_head_rev_heads == heads) return w->per_head_rev;
  cf_cpu_free(w->per_head_rev);
  w->per_head_rev = cf_cpu_alloc((size_t)TABLE * w->cols);
  if (!w->per_head_rev) return NULL;
  w->per_head_rev_heads = heads;
  const int dh = w->cols / heads;
  for (int h = 0; h < heads; h++)
    for (int i = 0; i < dh; i++)
      for (int j = 0; j < TABLE; j++)
        w->per_head_rev[((size_t)h * dh + i) * TABLE + j] =
            w->data[(size_t)(TABLE - 1 - j) * w->cols + (size_t)i * heads + h];
  return w->per_head_rev;
}

void cf_cpu_attention(void *ctx, const cf_attention_args *a) {
  const cf_cpu_ctx *c = ctx;
  const cf_cpu_kernels *kern = c->kernels;
  const bool fast = a->depth <= CF_CPU_MAX_FAST_DEPTH;
  cf_cpu_head_tables t = {0};
  const float *eq_rows = NULL, *ek_rows = NULL;
  bool missing;
  if (fast) {
    t.q_rev = reversed_per_head(a->rpe_q, a->heads);
    t.k_rev = reversed_per_head(a->rpe_k, a->heads);
    missing = (a->rpe_q && !t.q_rev) || (a->rpe_k && !t.k_rev);
  } else {
    eq_rows = rows_per_head(a->rpe_q, a->heads);
    ek_rows = rows_per_head(a->rpe_k, a->heads);
    missing = (a->rpe_q && !eq_rows) || (a->rpe_k && !ek_rows);
  }
  t.v_rows = rows_per_head(a->rpe_v, a->heads);
  missing |= a->rpe_v && !t.v_rows;
  /* Out of memory for a table: ops cannot fail, so the output is zeroed
   * (and the table retried on the next call). */
  if (missing) {
    memset(a->out, 0, (size_t)a->batch * 64 * a->heads * a->depth * sizeof(float));
    return;
  }
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
      if (i + 1 < tasks && qkv_bytes >= PREFETCH_ROWS_FROM) {
        next.b = head_major ? (i + 1) % a->batch : (i + 1) / a->heads;
        next.h = head_major ? (i + 1) / a->batch : (i + 1) % a->heads;
      }
      if (fast) kern->attend(a, &t, b, h, next_h, head_major && first, next);
      else kern->attend_plain(a, eq_rows, ek_rows, t.v_rows, b, h);
      first = false;
    }
  }
}
