/* bench_sgemm.h: this machine's measured single-precision matrix multiply
 * peak, the yardstick for a backend's achieved GFLOP/s. Measured with
 * every sgemm the build links (OpenBLAS cblas_sgemm, oneDNN dnnl_sgemm) on
 * square matrices, with 1 thread and with all threads, keeping the best;
 * absent both the result says so and carries no numbers. */
#ifndef BENCH_SGEMM_H
#define BENCH_SGEMM_H

#include <stdbool.h>

typedef struct bench_sgemm {
  bool measured;      /* false: neither library in this build (see note) */
  int n;              /* matrix side */
  int threads;        /* the "all threads" count */
  double gflops_1;    /* best of the runs, 1 thread */
  double gflops_all;  /* best of the runs, `threads` threads */
  char note[200];     /* how it was measured (the best library first), or why not */
} bench_sgemm;

/* The one-thread rate: what a backend's GFLOP/s is compared with, since
 * bench creates every backend with its default options (one thread);
 * comparing with the all-thread rate would halve the share on 2 cores. */
double bench_sgemm_peak(const bench_sgemm *s);

/* Runs C = A B for n x n float matrices, repeating for about min_seconds per
 * thread count, keeping the best rate. n <= 0 picks 1024. */
bench_sgemm bench_sgemm_measure(int n, double min_seconds);

#endif /* BENCH_SGEMM_H */
