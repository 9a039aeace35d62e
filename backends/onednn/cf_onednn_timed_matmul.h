/* cf_onednn_timed_matmul.h: one oneDNN matmul primitive built to be timed,
 * as the backend builds a projection's (weights in the layout the
 * primitive picks), filled with values of no consequence to its speed.
 * precision=auto's probe (cf_onednn_auto_precision.c) and `cformer
 * bench`'s matmul peaks (tools/bench/bench_matmul_peak.c) time these. */
#ifndef CF_ONEDNN_TIMED_MATMUL_H
#define CF_ONEDNN_TIMED_MATMUL_H

#include <oneapi/dnnl/dnnl.h>

typedef struct cf_onednn_timed_matmul {
  dnnl_primitive_t prim;
  dnnl_memory_t src, wei, dst;
} cf_onednn_timed_matmul;

/* Builds C[m][n] = A[m][k] B[k][n] with A, B and C of the given types, on
 * the calling thread's OpenMP team size (which oneDNN's kernels block for
 * at creation). A and B hold values near 1 (bf16, f32) or bytes 0 to 12
 * (valid as u8 and s8), not all zero: zeros and denormals can take other
 * paths. On failure *t holds what was made; free it either way. */
dnnl_status_t cf_onednn_timed_matmul_build(dnnl_engine_t eng, int m, int k, int n,
                                           dnnl_data_type_t src, dnnl_data_type_t wei,
                                           dnnl_data_type_t dst, cf_onednn_timed_matmul *t);

/* Seconds one run took (executed and waited for); negative when it failed. */
double cf_onednn_timed_matmul_run(dnnl_stream_t st, const cf_onednn_timed_matmul *t);

void cf_onednn_timed_matmul_free(cf_onednn_timed_matmul *t);

#endif /* CF_ONEDNN_TIMED_MATMUL_H */
