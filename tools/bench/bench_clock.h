/* bench_clock.h: wall time for the benchmark, from the monotonic clock (never
 * the calendar clock, which NTP may step mid-measurement), and the summary of
 * a set of timings: median and spread. */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stddef.h>

/* Seconds from an arbitrary fixed point (CLOCK_MONOTONIC). */
double bench_now(void);

/* Median and spread of n >= 1 samples. The spread is reported as the 10th
 * and 90th percentiles (linear interpolation between order statistics, the
 * same rule as numpy's default), so one outlier (a context switch on a shared
 * machine) moves neither. */
typedef struct bench_stats {
  int n;
  double median, p10, p90, min, max, mean;
} bench_stats;

/* Summarises samples[0..n) (reordered in place: sorted). n = 0 gives all
 * zeros. */
bench_stats bench_stats_of(double *samples, size_t n);

/* The q-quantile (0 <= q <= 1) of n >= 1 sorted samples. */
double bench_quantile(const double *sorted, size_t n, double q);

#endif /* BENCH_CLOCK_H */
