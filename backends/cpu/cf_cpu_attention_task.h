/* cf_cpu_attention_task.h: one (position, head) task of the CPU attention
 * op, written once for every kernel set: the key transpose and the
 * prefetching here, the walk over the query rows shared with the bf16 and
 * int8 bodies (cf_cpu_attention_walk.h), the arithmetic from the set's
 * cf_cpu_attention_math (cf_cpu_kernels.h). cf_cpu_attention.c spreads
 * the tasks over threads. */
#ifndef CF_CPU_ATTENTION_TASK_H
#define CF_CPU_ATTENTION_TASK_H

#include <stdbool.h>

#include "backends/cpu/cf_cpu_kernels.h"

/* The per-head RPE tables of one attention call (built at upload; layouts
 * in cf_cpu_attention_layout.h). NULL: that term is absent. */
typedef struct cf_cpu_head_tables {
  const float *q_rev, *k_rev; /* [H][dh][225], reversed (fast path) */
  const float *q_rows, *k_rows; /* [H][225][dh] (plain path) */
  const float *v_rows;          /* [H][225][dh] */
  /* [H][8][dh][14][16], the joined form (cf_cpu_attention_layout.h), when
   * the call takes the set's scores_file (then NULL only where q_rev,
   * k_rev are), else both NULL. */
  const float *q_joined, *k_joined;
} cf_cpu_head_tables;

/* One task: position b, head h. */
typedef struct cf_cpu_task {
  int b, h;
} cf_cpu_task;

/* Attention of task `task` with depth <= CF_CPU_MAX_FAST_DEPTH. next_h: the
 * head this thread runs next when it differs (its tables are prefetched
 * during this task's score pass, so a batch-1 eval does not wait on each
 * head's tables from L3), else -1. cold: the thread's first task, whose
 * tables nobody prefetched. next: the thread's next task, whose q/k/v and
 * output rows are prefetched (next.b < 0: none). */
void cf_cpu_attend(const cf_cpu_attention_math *m, const cf_attention_args *a,
                   const cf_cpu_head_tables *t, cf_cpu_task task, int next_h, bool cold,
                   cf_cpu_task next);

/* The same for any depth: a dot product per (query, key) pair, RPE terms
 * from the row tables. */
void cf_cpu_attend_plain(const cf_cpu_attention_math *m, const cf_attention_args *a,
                         const cf_cpu_head_tables *t, cf_cpu_task task);

/* One task of an attention driver (float32, bf16, int8): env the
 * driver's own data; next_h, cold, next as cf_cpu_attend's. */
typedef void (*cf_cpu_task_fn)(const void *env, const cf_attention_args *a, cf_cpu_task task,
                               int next_h, bool cold, cf_cpu_task next);

/* Runs fn for every (position, head) task of a on up to `threads`
 * threads, in the order every driver uses: head-major with RPE tables,
 * position-major without; next is set only when the batch's q/k/v are
 * past CF_CPU_PREFETCH_ROWS_FROM. */
void cf_cpu_attention_tasks(int threads, const cf_attention_args *a, cf_cpu_task_fn fn,
                            const void *env);

#endif /* CF_CPU_ATTENTION_TASK_H */
