/* bench_throughput.c: see bench_throughput.h. */
#include "tools/bench/bench_throughput.h"

#include <stdlib.h>

#include "tools/bench/bench_clock.h"

cf_status bench_throughput_measure(cf_net *net, bench_inputs *in, int batch, double min_seconds,
                                   int min_calls, double full_flops, bench_batch_run *out,
                                   cf_error *err) {
  *out = (bench_batch_run){.batch = batch};
  if (batch < 1 || batch > in->capacity)
    return cf_error_set(err, CF_ERR_ARG, "batch %d outside 1..%d", batch, in->capacity);
  CF_TRY(cf_net_eval(net, batch, in->requests, in->outputs, err));
  size_t n = 0, cap = 64;
  double *t = malloc(cap * sizeof *t);
  if (!t) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  double start = bench_now();
  while ((int)n < min_calls || bench_now() - start < min_seconds) {
    if (n == cap) {
      double *g = realloc(t, 2 * cap * sizeof *t);
      if (!g) {
        free(t);
        return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
      }
      t = g;
      cap *= 2;
    }
    double t0 = bench_now();
    cf_status st = cf_net_eval(net, batch, in->requests, in->outputs, err);
    t[n++] = bench_now() - t0;
    if (st != CF_OK) {
      free(t);
      return st;
    }
  }
  out->eval_seconds = bench_stats_of(t, n);
  free(t);
  if (out->eval_seconds.median > 0) {
    out->evals_per_second = batch / out->eval_seconds.median;
    out->gflops = out->evals_per_second * full_flops / 1e9;
  }
  return CF_OK;
}
