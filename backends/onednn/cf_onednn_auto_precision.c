/* cf_onednn_auto_precision.c: precision=auto's timing probe, see the
 * header. The probe times the primitives the backend builds for a
 * projection (float32 output) and keeps the best of several runs: on a
 * shared machine slow runs are interference, fast ones the hardware. */
#include "backends/onednn/cf_onednn_auto_precision.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "backends/onednn/cf_onednn_precision.h"
#include "backends/onednn/cf_onednn_timed_matmul.h"

enum { PROBE_RUNS = 5 }; /* timed runs of each precision, interleaved */

cf_precision cf_onednn_auto_decide(double f32_s, double bf16_s) {
  if (!(f32_s > 0) || !(bf16_s > 0)) return CF_PRECISION_F32;
  return f32_s >= CF_ONEDNN_AUTO_BF16_MIN_SPEEDUP * bf16_s ? CF_PRECISION_BF16
                                                           : CF_PRECISION_F32;
}

static cf_onednn_auto_pick the_pick;

static void probe(void) {
  cf_onednn_auto_pick *r = &the_pick;
  *r = (cf_onednn_auto_pick){.precision = CF_PRECISION_F32};
  cf_error err = {0};
  if (cf_onednn_precision_check(CF_PRECISION_BF16, &err) != CF_OK) {
    snprintf(r->why, sizeof r->why, "no native bf16");
    return;
  }
  /* One thread: the ratio is a core's, and the caller's team size is put
   * back for whatever it runs next. */
  const int threads_before = omp_get_max_threads();
  omp_set_num_threads(1);
  dnnl_engine_t eng = NULL;
  dnnl_stream_t st = NULL;
  cf_onednn_timed_matmul f32 = {0}, bf16 = {0};
  enum { M = CF_ONEDNN_AUTO_M, K = CF_ONEDNN_AUTO_K, N = CF_ONEDNN_AUTO_N };
  dnnl_status_t s = dnnl_engine_create(&eng, dnnl_cpu, 0);
  if (s == dnnl_success) s = dnnl_stream_create(&st, eng, dnnl_stream_default_flags);
  if (s == dnnl_success)
    s = cf_onednn_timed_matmul_build(eng, M, K, N, dnnl_f32, dnnl_f32, dnnl_f32, &f32);
  if (s == dnnl_success)
    s = cf_onednn_timed_matmul_build(eng, M, K, N, dnnl_bf16, dnnl_bf16, dnnl_f32, &bf16);
  double best_f32 = 0, best_bf16 = 0;
  bool ok = s == dnnl_success && cf_onednn_timed_matmul_run(st, &f32) >= 0 &&
            cf_onednn_timed_matmul_run(st, &bf16) >= 0; /* warm-up */
  for (int i = 0; ok && i < PROBE_RUNS; i++) {
    const double a = cf_onednn_timed_matmul_run(st, &f32),
                 b = cf_onednn_timed_matmul_run(st, &bf16);
    ok = a >= 0 && b >= 0;
    if (ok && (best_f32 == 0 || a < best_f32)) best_f32 = a;
    if (ok && (best_bf16 == 0 || b < best_bf16)) best_bf16 = b;
  }
  cf_onednn_timed_matmul_free(&f32);
  cf_onednn_timed_matmul_free(&bf16);
  if (st) dnnl_stream_destroy(st);
  if (eng) dnnl_engine_destroy(eng);
  omp_set_num_threads(threads_before);
  if (!ok || !(best_f32 > 0) || !(best_bf16 > 0)) {
    snprintf(r->why, sizeof r->why, "the bf16 probe could not run");
    return;
  }
  r->timed = true;
  r->f32_s = best_f32;
  r->bf16_s = best_bf16;
  r->precision = cf_onednn_auto_decide(best_f32, best_bf16);
  snprintf(r->why, sizeof r->why, "bf16 %.2fx f32 here", best_f32 / best_bf16);
}

const cf_onednn_auto_pick *cf_onednn_auto_pick_get(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT; /* safe from any thread */
  pthread_once(&once, probe);
  return &the_pick;
}
