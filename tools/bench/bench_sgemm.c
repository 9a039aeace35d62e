/* bench_sgemm.c: see bench_sgemm.h. The best rate (not the median) is what
 * "peak" means: on a shared machine slow runs are interference, fast ones
 * are the hardware. */
#include "tools/bench/bench_sgemm.h"

#include <stdio.h>
#include <stdlib.h>

#include "tools/bench/bench_clock.h"

double bench_sgemm_peak(const bench_sgemm *s) {
  if (!s->measured) return 0;
  return s->gflops_1; /* bench runs every backend at its default: one thread */
}

#ifdef CF_BENCH_HAVE_OPENBLAS
#include <cblas.h>

static double best_rate(int n, const float *a, const float *b, float *c, double min_seconds) {
  double flops = 2.0 * (double)n * (double)n * (double)n, best = 0, start = bench_now();
  /* one untimed call: thread pool start-up and page faults */
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  for (int run = 0; run < 3 || bench_now() - start < min_seconds; run++) {
    double t0 = bench_now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    double dt = bench_now() - t0;
    if (dt > 0 && flops / dt > best) best = flops / dt;
  }
  return best / 1e9;
}

bench_sgemm bench_sgemm_measure(int n, double min_seconds) {
  bench_sgemm r = {.n = n > 0 ? n : 1024};
  size_t sz = (size_t)r.n * (size_t)r.n;
  float *a = malloc(sz * sizeof *a), *b = malloc(sz * sizeof *b), *c = malloc(sz * sizeof *c);
  if (!a || !b || !c) {
    snprintf(r.note, sizeof r.note, "not measured: out of memory for %dx%d matrices", r.n, r.n);
  } else {
    for (size_t i = 0; i < sz; i++) {
      a[i] = (float)((i * 7u) % 13u) / 13.0f - 0.5f;
      b[i] = (float)((i * 5u) % 11u) / 11.0f - 0.5f;
    }
    int all = openblas_get_num_threads();
    openblas_set_num_threads(1);
    r.gflops_1 = best_rate(r.n, a, b, c, min_seconds);
    openblas_set_num_threads(all);
    r.threads = all;
    r.gflops_all = best_rate(r.n, a, b, c, min_seconds);
    r.measured = true;
    snprintf(r.note, sizeof r.note, "OpenBLAS cblas_sgemm, %dx%d float, best of runs", r.n,
             r.n);
  }
  free(a);
  free(b);
  free(c);
  return r;
}

#else

bench_sgemm bench_sgemm_measure(int n, double min_seconds) {
  (void)min_seconds;
  bench_sgemm r = {.n = n > 0 ? n : 1024};
  snprintf(r.note, sizeof r.note, "not measured: built without OpenBLAS");
  return r;
}

#endif
