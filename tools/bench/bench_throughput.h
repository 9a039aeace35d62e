/* bench_throughput.h: evaluations per second and achieved GFLOP/s of one
 * net at one batch size: repeated cf_net_eval calls of `batch` suite
 * positions, timed one by one. */
#ifndef BENCH_THROUGHPUT_H
#define BENCH_THROUGHPUT_H

#include "tools/bench/bench_inputs.h"
#include "tools/bench/bench_report.h"

/* One untimed warm-up call, then calls until min_seconds have passed and at
 * least min_calls were made. full_flops: FLOPs per evaluation. */
cf_status bench_throughput_measure(cf_net *net, bench_inputs *in, int batch, double min_seconds,
                                   int min_calls, double full_flops, bench_batch_run *out,
                                   cf_error *err);

#endif /* BENCH_THROUGHPUT_H */
