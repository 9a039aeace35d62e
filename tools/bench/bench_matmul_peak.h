/* bench_matmul_peak.h: this machine's measured matrix multiply peak in the
 * reduced precisions the oneDNN backend runs (precision=bf16: bf16 x bf16
 * with float32 accumulation and output; precision=int8: 8-bit products
 * summed in int32), the yardstick for a backend run at that precision as
 * bench_sgemm.h's is for float32. A bf16 share of the float32 sgemm peak
 * says nothing about how close the bf16 path gets to what the CPU can do.
 *
 * Measured with oneDNN only (Debian 12's OpenBLAS 0.3.21 declares
 * cblas_sbgemm but its library does not export it, and has no int8 gemm),
 * and only where oneDNN runs the
 * precision with the ISA the backend needs (cf_onednn_precision_check, so
 * ONEDNN_MAX_CPU_ISA lowers it here as there); otherwise the result says
 * why and carries no numbers.
 *
 * Shapes: square n x n x n as the sgemm peak, and the net's projections at
 * batch BENCH_PEAK_BATCH, rows = 64 squares x batch, K = d_model, N =
 * 3 d_model (q, k and v) and N = d_model: a square 1024 product can reach
 * more than a K = 256 one, so both are kept and the best is the peak. Int8
 * counts a multiply-add as 2 operations, as float FLOPs are counted. */
#ifndef BENCH_MATMUL_PEAK_H
#define BENCH_MATMUL_PEAK_H

#include <stdbool.h>

#include "backends/cf_backend.h"

/* The precisions with a peak of their own, in report order: bf16, int8. */
#define BENCH_PEAK_PRECISIONS 2
#define BENCH_PEAK_SHAPES 3
/* The projection shapes' batch: issue 21's targets are set at 256. */
#define BENCH_PEAK_BATCH 256

typedef struct bench_peak_shape {
  int m, k, n;           /* C[m][n] = A[m][k] B[k][n] */
  double gflops_1;       /* best rate, 1 thread (0: no method ran this shape) */
  double gflops_all;     /* best rate, all threads */
  char method[48];       /* the fastest at 1 thread */
} bench_peak_shape;

typedef struct bench_matmul_peak {
  cf_precision precision; /* BF16 or INT8 */
  bool measured;          /* false: see note; no numbers */
  int threads;            /* the "all threads" count */
  double gflops_1;        /* the best shape's rate, 1 thread: the peak */
  double gflops_all;      /* the best shape's rate, all threads */
  int n_shapes;           /* shapes[0] the square, then the projections */
  bench_peak_shape shapes[BENCH_PEAK_SHAPES];
  char note[320];         /* how it was measured, or why not */
} bench_matmul_peak;

/* The precision reported at index i (0 <= i < BENCH_PEAK_PRECISIONS). */
cf_precision bench_peak_precision_at(int i);

/* Measures precision p (BF16 or INT8) on the square square_n (<= 0: 1024)
 * and, when d_model > 0, on the net's two projection shapes, for about
 * min_seconds per shape, method and thread count, keeping the best rate. */
bench_matmul_peak bench_matmul_peak_measure(cf_precision p, int square_n, int d_model,
                                            double min_seconds);

/* A peak that was not measured, with the reason (e.g. "--no-sgemm"). */
bench_matmul_peak bench_matmul_peak_skipped(cf_precision p, const char *why);

/* About how long bench_matmul_peak_measure takes for p, in seconds (for
 * the run's time estimate): shapes x methods x 2 thread counts x
 * min_seconds. 0 where it would not measure. */
double bench_matmul_peak_seconds(cf_precision p, int d_model, double min_seconds);

#endif /* BENCH_MATMUL_PEAK_H */
