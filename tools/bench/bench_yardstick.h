/* bench_yardstick.h: which measured peak a backend's GFLOP/s is a share of.
 * A run at precision=bf16 or int8 (--backend-opts) is compared with that
 * precision's matmul peak (bench_matmul_peak.h), a float32 run with the
 * sgemm peak (bench_sgemm.h): a reduced precision's share of the float32
 * peak says nothing about how close it gets to what the CPU can do. */
#ifndef BENCH_YARDSTICK_H
#define BENCH_YARDSTICK_H

#include <stddef.h>

#include "backends/cf_backend.h"
#include "tools/bench/bench_report.h"

typedef struct bench_yardstick {
  cf_precision precision; /* the run's precision */
  double gflops;          /* its one-thread peak; 0 when not measured (no share shown) */
  const char *label;      /* the column head, a static string: "% 1T sgemm", "% 1T bf16 peak" */
} bench_yardstick;

/* The precision=... of a backend option string ("key=value,..."): f32 when
 * absent, and when the value is no known precision (cf_backend_create
 * refuses such options before anything is measured); for auto, what the
 * named backend (NULL or "" = the default one) picks on this CPU. The last
 * one wins, as for the backends. */
cf_precision bench_options_precision(const char *options, const char *backend);

/* The peak r's shares are computed against: its backend options'
 * precision, and that precision's measured one-thread peak. */
bench_yardstick bench_yardstick_for(const bench_report *r);

/* r's peak for precision p (BF16 or INT8); NULL for F32. */
const bench_matmul_peak *bench_report_peak(const bench_report *r, cf_precision p);

#endif /* BENCH_YARDSTICK_H */
