/* cf_onednn_auto_precision.c: precision=auto's timing probe, see the
 * header. The probe builds the primitives the backend builds for a
 * projection (weights in the layout oneDNN picks, float32 output) and
 * keeps the best of several runs: on a shared machine slow runs are
 * interference, fast ones the hardware. */
#include "backends/onednn/cf_onednn_auto_precision.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backends/onednn/cf_onednn_precision.h"
#include "common/cf_clock.h"

enum { PROBE_RUNS = 5 }; /* timed runs of each precision, interleaved */

cf_precision cf_onednn_auto_decide(double f32_s, double bf16_s) {
  if (!(f32_s > 0) || !(bf16_s > 0)) return CF_PRECISION_F32;
  return f32_s >= CF_ONEDNN_AUTO_BF16_MIN_SPEEDUP * bf16_s ? CF_PRECISION_BF16
                                                           : CF_PRECISION_F32;
}

/* One precision's matmul, ready to run. */
typedef struct probe_mm {
  dnnl_primitive_t prim;
  dnnl_memory_t src, wei, dst;
} probe_mm;

static void mm_free(probe_mm *p) {
  if (p->prim) dnnl_primitive_destroy(p->prim);
  dnnl_memory_t m[] = {p->src, p->wei, p->dst};
  for (int i = 0; i < 3; i++)
    if (m[i]) dnnl_memory_destroy(m[i]);
  *p = (probe_mm){0};
}

/* Values of no consequence to the speed but not all zero (denormals and
 * zeros can take other paths): near 1 in either type. The weights' bytes
 * are filled in whatever layout the primitive picked, which a timing does
 * not care about. */
static dnnl_status_t fill(dnnl_memory_t m, const dnnl_memory_desc_t *md, dnnl_data_type_t dt) {
  void *h = NULL;
  dnnl_status_t s = dnnl_memory_get_data_handle(m, &h);
  if (s != dnnl_success) return s;
  const size_t bytes = dnnl_memory_desc_get_size(md);
  if (dt == dnnl_bf16) {
    uint16_t *v = h;
    for (size_t i = 0; i < bytes / 2; i++) v[i] = (uint16_t)(0x3f80u + (i * 7u) % 13u);
  } else {
    float *v = h;
    for (size_t i = 0; i < bytes / 4; i++) v[i] = 1.0f + (float)((i * 7u) % 13u) / 16.0f;
  }
  return dnnl_success;
}

static dnnl_status_t mm_build(dnnl_engine_t eng, dnnl_data_type_t dt, probe_mm *p) {
  dnnl_dims_t sd = {CF_ONEDNN_AUTO_M, CF_ONEDNN_AUTO_K}, wd = {CF_ONEDNN_AUTO_K, CF_ONEDNN_AUTO_N},
              dd = {CF_ONEDNN_AUTO_M, CF_ONEDNN_AUTO_N};
  dnnl_memory_desc_t src_md, wei_md, dst_md;
  dnnl_status_t s = dnnl_memory_desc_init_by_tag(&src_md, 2, sd, dt, dnnl_ab);
  if (s == dnnl_success) s = dnnl_memory_desc_init_by_tag(&wei_md, 2, wd, dt, dnnl_format_tag_any);
  if (s == dnnl_success) s = dnnl_memory_desc_init_by_tag(&dst_md, 2, dd, dnnl_f32, dnnl_ab);
  dnnl_matmul_desc_t md;
  dnnl_primitive_desc_t pd = NULL;
  if (s == dnnl_success) s = dnnl_matmul_desc_init(&md, &src_md, &wei_md, NULL, &dst_md);
  if (s == dnnl_success) s = dnnl_primitive_desc_create(&pd, &md, NULL, eng, NULL);
  if (s == dnnl_success) s = dnnl_primitive_create(&p->prim, pd);
  if (s == dnnl_success) wei_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  if (pd) dnnl_primitive_desc_destroy(pd);
  if (s == dnnl_success) s = dnnl_memory_create(&p->src, &src_md, eng, DNNL_MEMORY_ALLOCATE);
  if (s == dnnl_success) s = dnnl_memory_create(&p->wei, &wei_md, eng, DNNL_MEMORY_ALLOCATE);
  if (s == dnnl_success) s = dnnl_memory_create(&p->dst, &dst_md, eng, DNNL_MEMORY_ALLOCATE);
  if (s == dnnl_success) s = fill(p->src, &src_md, dt);
  if (s == dnnl_success) s = fill(p->wei, &wei_md, dt);
  return s;
}

/* Seconds one run took; negative when it failed. */
static double mm_run(dnnl_stream_t st, const probe_mm *p) {
  dnnl_exec_arg_t args[3] = {
      {DNNL_ARG_SRC, p->src}, {DNNL_ARG_WEIGHTS, p->wei}, {DNNL_ARG_DST, p->dst}};
  const double t0 = cf_clock_now();
  if (dnnl_primitive_execute(p->prim, st, 3, args) != dnnl_success ||
      dnnl_stream_wait(st) != dnnl_success)
    return -1;
  return cf_clock_now() - t0;
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
  probe_mm f32 = {0}, bf16 = {0};
  dnnl_status_t s = dnnl_engine_create(&eng, dnnl_cpu, 0);
  if (s == dnnl_success) s = dnnl_stream_create(&st, eng, dnnl_stream_default_flags);
  if (s == dnnl_success) s = mm_build(eng, dnnl_f32, &f32);
  if (s == dnnl_success) s = mm_build(eng, dnnl_bf16, &bf16);
  double best_f32 = 0, best_bf16 = 0;
  bool ok = s == dnnl_success && mm_run(st, &f32) >= 0 && mm_run(st, &bf16) >= 0; /* warm-up */
  for (int i = 0; ok && i < PROBE_RUNS; i++) {
    const double a = mm_run(st, &f32), b = mm_run(st, &bf16);
    ok = a >= 0 && b >= 0;
    if (ok && (best_f32 == 0 || a < best_f32)) best_f32 = a;
    if (ok && (best_bf16 == 0 || b < best_bf16)) best_bf16 = b;
  }
  mm_free(&f32);
  mm_free(&bf16);
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
