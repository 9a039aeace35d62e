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

/* One library's sgemm: C = A B, n x n, row-major, on `threads` threads. */
typedef struct sgemm_lib {
  const char *name;
  void (*run)(int n, const float *a, const float *b, float *c);
  void (*set_threads)(int threads);
  int (*max_threads)(void);
} sgemm_lib;

#ifdef CF_BENCH_HAVE_OPENBLAS
#include <cblas.h>

static void openblas_run(int n, const float *a, const float *b, float *c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}
static void openblas_threads(int t) { openblas_set_num_threads(t); }
static int openblas_max(void) { return openblas_get_num_threads(); }
#endif

#ifdef CF_BENCH_HAVE_DNNL
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

static void dnnl_run(int n, const float *a, const float *b, float *c) {
  dnnl_sgemm('N', 'N', n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}
/* oneDNN's sgemm runs on the OpenMP team of the calling thread. */
static void dnnl_threads(int t) { omp_set_num_threads(t); }
static int dnnl_max(void) { return omp_get_num_procs(); }
#endif

#if defined(CF_BENCH_HAVE_OPENBLAS) || defined(CF_BENCH_HAVE_DNNL)

/* Every sgemm this build links: the peak is the best of them, since a
 * backend's matmuls are only as slow as the library it is measured
 * against makes them look (OpenBLAS 0.3.21 reaches about half of oneDNN's
 * rate on an AVX-512 core). */
static const sgemm_lib libs[] = {
#ifdef CF_BENCH_HAVE_OPENBLAS
    {"OpenBLAS cblas_sgemm", openblas_run, openblas_threads, openblas_max},
#endif
#ifdef CF_BENCH_HAVE_DNNL
    {"oneDNN dnnl_sgemm", dnnl_run, dnnl_threads, dnnl_max},
#endif
};
#define N_LIBS (sizeof libs / sizeof libs[0])


static double best_rate(const sgemm_lib *lib, int n, const float *a, const float *b, float *c,
                        double min_seconds) {
  double flops = 2.0 * (double)n * (double)n * (double)n, best = 0, start = bench_now();
  lib->run(n, a, b, c); /* one untimed call: thread pool start-up and page faults */
  for (int run = 0; run < 3 || bench_now() - start < min_seconds; run++) {
    double t0 = bench_now();
    lib->run(n, a, b, c);
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
    char parts[N_LIBS][64];
    const char *best_1 = "";
    for (size_t k = 0; k < N_LIBS; k++) {
      const int all = libs[k].max_threads();
      libs[k].set_threads(1);
      const double one = best_rate(&libs[k], r.n, a, b, c, min_seconds);
      libs[k].set_threads(all);
      const double many = best_rate(&libs[k], r.n, a, b, c, min_seconds);
      snprintf(parts[k], sizeof parts[k], "%s %.0f", libs[k].name, one);
      if (one > r.gflops_1) {
        r.gflops_1 = one;
        best_1 = libs[k].name;
      }
      if (many > r.gflops_all) {
        r.gflops_all = many;
        r.threads = all;
      }
    }
    r.measured = true;
    int at = snprintf(r.note, sizeof r.note, "%s, %dx%d float, best of runs", best_1, r.n, r.n);
    if (N_LIBS > 1 && at > 0 && (size_t)at < sizeof r.note)
      snprintf(r.note + at, sizeof r.note - (size_t)at, "; 1 thread: %s, %s GFLOP/s", parts[0],
               parts[N_LIBS - 1]);
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
  snprintf(r.note, sizeof r.note, "not measured: built without OpenBLAS or oneDNN");
  return r;
}

#endif
