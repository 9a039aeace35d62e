/* bench_clock.c: see bench_clock.h. */
#include "tools/bench/bench_clock.h"

#include <stdlib.h>

#include "common/cf_clock.h"

double bench_now(void) { return cf_clock_now(); }

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_quantile(const double *sorted, size_t n, double q) {
  if (n == 0) return 0.0;
  double pos = q * (double)(n - 1);
  size_t lo = (size_t)pos;
  if (lo + 1 >= n) return sorted[n - 1];
  double frac = pos - (double)lo;
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

bench_stats bench_stats_of(double *samples, size_t n) {
  bench_stats s = {0};
  if (n == 0) return s;
  qsort(samples, n, sizeof *samples, cmp_double);
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += samples[i];
  s.n = (int)n;
  s.min = samples[0];
  s.max = samples[n - 1];
  s.mean = sum / (double)n;
  s.median = bench_quantile(samples, n, 0.5);
  s.p10 = bench_quantile(samples, n, 0.1);
  s.p90 = bench_quantile(samples, n, 0.9);
  return s;
}
