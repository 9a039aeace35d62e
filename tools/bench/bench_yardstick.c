/* bench_yardstick.c: see bench_yardstick.h. */
#include "tools/bench/bench_yardstick.h"

#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend_options.h"

cf_precision bench_options_precision(const char *options, const char *backend) {
  if (!options || !*options) return CF_PRECISION_F32;
  cf_precision p = CF_PRECISION_F32;
  bool automatic = false;
  cf_kv *kv = NULL; /* the report's options, read for their precision only */
  if (cf_kv_parse(options, &kv, NULL) != CF_OK ||
      cf_backend_read_precision(kv, &p, &automatic, NULL) != CF_OK)
    p = CF_PRECISION_F32;
  else if (automatic)
    p = cf_backend_auto_precision(backend && *backend ? cf_backend_find(backend)
                                                      : cf_backend_default());
  cf_kv_free(kv);
  return p;
}

const bench_matmul_peak *bench_report_peak(const bench_report *r, cf_precision p) {
  for (int i = 0; i < BENCH_PEAK_PRECISIONS; i++)
    if (bench_peak_precision_at(i) == p) return &r->peaks[i];
  return NULL;
}

bench_yardstick bench_yardstick_for(const bench_report *r) {
  bench_yardstick y = {.precision = bench_options_precision(
                           r->backend_options, r->n_backends > 0 ? r->backends[0].name : NULL)};
  const bench_matmul_peak *peak = bench_report_peak(r, y.precision);
  if (!peak) {
    y.gflops = bench_sgemm_peak(&r->sgemm);
    y.label = "% 1T sgemm";
    return y;
  }
  y.gflops = peak->measured ? peak->gflops_1 : 0;
  y.label = y.precision == CF_PRECISION_BF16 ? "% 1T bf16 peak" : "% 1T int8 peak";
  return y;
}
