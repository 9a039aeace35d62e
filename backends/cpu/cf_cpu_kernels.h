/* cf_cpu_kernels.h: the seam between the CPU backends' drivers and their
 * instruction-set specific inner kernels.
 *
 * The drivers (cf_cpu_rowops.c, cf_cpu_attention.c: threading, RPE table
 * layouts, weight caches) are plain C built for the baseline of the target.
 * Everything that wants wider vectors than the baseline sits behind one
 * table of function pointers per kernel set, each set in its own
 * translation units built with its own flags (backends/meson.build). A
 * backend instance picks one table when it is created (cf_cpu_kernels_select)
 * and reaches every kernel through it, so no instruction outside the
 * baseline runs on a CPU that lacks it.
 *
 * Adding a set: its kernels in their own files and static library with
 * its flags, one table, one line in the candidate list of
 * cf_cpu_dispatch.c. The drivers do not change. */
#ifndef CF_CPU_KERNELS_H
#define CF_CPU_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/cf_backend.h"

/* Per-head RPE tables of one attention call, built by the driver (see
 * cf_cpu_attention_layout.h for the layouts). NULL: that term is absent. */
typedef struct cf_cpu_head_tables {
  const float *q_rev, *k_rev; /* [H][dh][225], reversed */
  const float *v_rows;        /* [H][225][dh] */
} cf_cpu_head_tables;

/* One attention task: position b, head h. */
typedef struct cf_cpu_task {
  int b, h;
} cf_cpu_task;

typedef struct cf_cpu_kernels {
  /* The set's name: the value of CFORMER_CPU_KERNELS that forces it, and
   * what a backend shows ("avx512", "avx2", "portable"). */
  const char *name;

  /* y[n] = act(y + bias) in place; bias NULL = none. */
  void (*bias_act_row)(int n, float *y, const float *bias, cf_op_act act);

  /* One row of cf_backend_iface.norm: y[w] = Norm(skip + alpha x) with
   * gamma (and beta for LayerNorm; NULL for RMSNorm). y may alias x or
   * skip. */
  void (*norm_row)(cf_norm_kind kind, int w, const float *x, float alpha, const float *skip,
                   const float *gamma, const float *beta, float eps, float *y);

  /* One token of cf_backend_iface.gate: x[n] = x * mult + add in place;
   * mult or add NULL = that part absent. */
  void (*gate_row)(int n, float *x, const float *mult, const float *add);

  /* Attention of position b, head h with depth <= CF_CPU_MAX_FAST_DEPTH,
   * RPE terms from the reversed tables t. next_h: the head this thread
   * runs next when it differs (prefetch its tables), else -1. cold: the
   * thread's first task (nothing prefetched for it). next: the thread's
   * next task, whose q/k/v and output rows the kernel prefetches
   * (cf_cpu_prefetch_token; next.b < 0: none). */
  void (*attend)(const cf_attention_args *a, const cf_cpu_head_tables *t, int b, int h,
                 int next_h, bool cold, cf_cpu_task next);

  /* The same for any depth, RPE terms from the row tables [H][225][dh]
   * (NULL: absent). */
  void (*attend_plain)(const cf_attention_args *a, const float *eq_rows, const float *ek_rows,
                       const float *ev_rows, int b, int h);

  /* The reduced-precision projections' row ops (the oneDNN backend's
   * precision=bf16|int8, backends/onednn/cf_onednn_precision.h). Every set
   * gives bit-identical results to the portable one (activations aside,
   * which differ between sets as in bias_act_row). */

  /* y[n] = the bfloat16 bits of x rounded to nearest even (a NaN stays a
   * quiet NaN of its sign; denormals round like any value). */
  void (*to_bf16_row)(int n, const float *x, uint16_t *y);

  /* Symmetric int8 of one row: returns scale = max|x| / 127 (1 for an
   * all-zero row) and writes q[i] = x[i] * (1 / scale) rounded to nearest
   * even. x finite. */
  float (*quantize_row)(int n, const float *x, int8_t *q);

  /* The int8 projections' epilogue in one pass:
   * y[i] = act(y[i] * (row_scale * col_scale[i]) + bias[i]), the product
   * and the sum each rounded (no fused multiply-add), the activation as
   * bias_act_row's; bias NULL = none. */
  void (*scale_bias_act_row)(int n, float *y, float row_scale, const float *col_scale,
                             const float *bias, cf_op_act act);
} cf_cpu_kernels;

/* Largest head depth `attend` takes (its key buffer is on the stack). */
enum { CF_CPU_MAX_FAST_DEPTH = 128 };

/* Plain C, auto-vectorised for whatever the target's baseline is; runs
 * everywhere. */
extern const cf_cpu_kernels cf_cpu_kernels_portable;

#ifdef CF_CPU_HAVE_AVX2
/* AVX2 + FMA (+ F16C) intrinsics; x86 only, built with -mavx2 -mfma
 * -mf16c. Call only after cf_cpu_kernels_select chose it. */
extern const cf_cpu_kernels cf_cpu_kernels_avx2;
#endif

#ifdef CF_CPU_HAVE_AVX512
/* AVX-512 F/DQ/BW/VL + FMA intrinsics; x86-64 only, built with
 * -mavx512f -mavx512dq -mavx512bw -mavx512vl -mfma. Call only after
 * cf_cpu_kernels_select chose it (CPU and OS checked). */
extern const cf_cpu_kernels cf_cpu_kernels_avx512;
#endif

/* The kernel set for a new backend instance: the one CFORMER_CPU_KERNELS
 * names if set (failing, with a message naming what this CPU lacks, when
 * it cannot run it or the name is unknown), else the fastest this CPU
 * runs. */
cf_status cf_cpu_kernels_select(const cf_cpu_kernels **out, cf_error *err);

#endif /* CF_CPU_KERNELS_H */
