/* cf_cpu_attention_walk.h: the walk of one (position, head) attention
 * task over its query rows, written once for the float32, bf16 and int8
 * task bodies (cf_cpu_attention_task.c, cf_cpu_attention_bf16.c,
 * cf_cpu_attention_int8.c), which differ only in what they pack and in the
 * kernels they call at each step:
 *
 * - the score pass: all scores first, one key half (4 ranks) at a time
 *   over every query pair (q, q + 8), q on ranks 0, 2, 4, 6, with the next
 *   head's tables and the next task's rows prefetched a part per step (or,
 *   on a set's joined tables, one query file at a time);
 * - the value pass: every row's softmax first, then per query pair the
 *   weighted values, written to the pair's output rows. The rows'
 *   softmaxes are independent, so done back to back their dependency
 *   chains (a maximum across the row, the exponentials, a sum) overlap;
 *   one pair at a time between the value steps left the core waiting on
 *   each (on an Intel Xeon the int8 op at CF-6M's shape took 4% longer and
 *   the float32 op at the built-in net's 3%; the outputs are the same).
 *
 * static inline with the step kernels passed as functions: each body calls
 * the walk with its own static functions, so the compiler inlines them and
 * the loops compile as they did written out in each file. */
#ifndef CF_CPU_ATTENTION_WALK_H
#define CF_CPU_ATTENTION_WALK_H

#include <stddef.h>

#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_attention_task.h"

/* The next query of the walk: ranks 0, 2, 4, 6 (q + 8 is its pair). */
static inline int cf_cpu_walk_next_query(int q) { return (q & 7) == 7 ? q + 9 : q + 1; }

/* One score step: the scores of queries q and q + 8 against key half
 * `half` into s0 and s1; c = CF_CPU_RPE_TABLE - 1 - base(q) is q's column
 * in the reversed tables (q + 8's is c - 15); step counts the steps from 0
 * (the part of 64 to prefetch). */
typedef void (*cf_cpu_walk_scores_fn)(const void *body, int q, int c, int half, int step,
                                      float *s0, float *s1);
/* Prefetches part `part` of 64 of head h's tables. */
typedef void (*cf_cpu_walk_prefetch_fn)(const void *body, int h, int part);
/* One softmax step: row q's scores s (with its bias row, NULL without a
 * bias) to the weights the value steps read (in place, or into the body's
 * own rows). */
typedef void (*cf_cpu_walk_softmax_fn)(const void *body, int q, float *s, const float *bias);
/* One value step: the weighted values of queries q and q + 8 from their
 * weights (the softmax steps' results; s0, s1 their score rows) into the
 * output rows o0, o1. */
typedef void (*cf_cpu_walk_values_fn)(const void *body, int q, float *s0, float *s1, float *o0,
                                      float *o1);

/* Step `step` of a score pass's prefetching: part `step` of 64 of the next
 * head's tables (next_h >= 0) and token `step` of the next task's rows.
 * Always inlined, as the prefetch steps it calls (cf_cpu_attention_task.c). */
static inline __attribute__((always_inline)) void cf_cpu_walk_prefetch(
    const void *body, const cf_cpu_row_prefetch *pf, int next_h, int step,
    cf_cpu_walk_prefetch_fn prefetch) {
  if (next_h >= 0) prefetch(body, next_h, step);
  if (pf->qkv) cf_cpu_prefetch_token(pf, step);
}

/* The score pass of task into S ([64][64]). next_h: the thread's next head
 * when it differs (its tables prefetched a part per step), else -1; next:
 * the task whose rows are prefetched (next.b < 0: none). */
static inline void cf_cpu_walk_scores(const void *body, const cf_attention_args *a,
                                      int next_h, cf_cpu_task next, float *S,
                                      cf_cpu_walk_prefetch_fn prefetch,
                                      cf_cpu_walk_scores_fn scores) {
  const cf_cpu_row_prefetch pf =
      cf_cpu_row_prefetch_for(a->qkv, a->out, a->heads, a->depth, next.b, next.h);
  int step = 0;
  for (int half = 0; half < 2; half++)
    for (int q = 0; q < 64; q = cf_cpu_walk_next_query(q), step++) {
      cf_cpu_walk_prefetch(body, &pf, next_h, step, prefetch);
      const int c = CF_CPU_RPE_TABLE - 1 - cf_cpu_query_base(q); /* q + 8 is at c - 15 */
      scores(body, q, c, half, step, S + q * 64, S + (q + 8) * 64);
    }
}

/* One file step: the scores of the 8 queries of file f into S; step: the
 * first of the 8 prefetch parts that came before it. */
typedef void (*cf_cpu_walk_file_fn)(const void *body, int f, int step, float *S);

/* The score pass of task one query file at a time (a set's scores_file on
 * the joined tables: a file's block stays in L1 for its 8 queries), with
 * the same 64 prefetch parts, 8 before each file. */
static inline void cf_cpu_walk_scores_by_file(const void *body, const cf_attention_args *a,
                                              int next_h, cf_cpu_task next, float *S,
                                              cf_cpu_walk_prefetch_fn prefetch,
                                              cf_cpu_walk_file_fn scores) {
  const cf_cpu_row_prefetch pf =
      cf_cpu_row_prefetch_for(a->qkv, a->out, a->heads, a->depth, next.b, next.h);
  for (int f = 0, step = 0; f < 8; f++, step += 8) {
    for (int part = 0; part < 8; part++)
      cf_cpu_walk_prefetch(body, &pf, next_h, step + part, prefetch);
    scores(body, f, step, S);
  }
}

/* The value pass of task from the scores S. */
static inline void cf_cpu_walk_values(const void *body, const cf_attention_args *a,
                                      cf_cpu_task task, float *S, cf_cpu_walk_softmax_fn softmax,
                                      cf_cpu_walk_values_fn values) {
  const int H = a->heads, dh = a->depth, dm = H * dh;
  float *out = a->out + (size_t)task.b * 64 * dm + (size_t)task.h * dh;
  const float *bias = a->bias ? a->bias + ((size_t)task.b * H + task.h) * 64 * 64 : NULL;
  for (int q = 0; q < 64; q++) softmax(body, q, S + q * 64, bias ? bias + q * 64 : NULL);
  for (int q = 0; q < 64; q = cf_cpu_walk_next_query(q))
    values(body, q, S + q * 64, S + (q + 8) * 64, out + (size_t)q * dm, out + (size_t)(q + 8) * dm);
}

#endif /* CF_CPU_ATTENTION_WALK_H */
