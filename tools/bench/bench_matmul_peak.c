/* bench_matmul_peak.c: see bench_matmul_peak.h. As for the sgemm peak, the
 * best rate (not the median) is what "peak" means: on a shared machine slow
 * runs are interference, fast ones are the hardware. */
#include "tools/bench/bench_matmul_peak.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/bench/bench_clock.h"

cf_precision bench_peak_precision_at(int i) {
  return i == 0 ? CF_PRECISION_BF16 : CF_PRECISION_INT8;
}

bench_matmul_peak bench_matmul_peak_skipped(cf_precision p, const char *why) {
  bench_matmul_peak r = {.precision = p};
  snprintf(r.note, sizeof r.note, "not measured (%s)", why);
  return r;
}

/* The shapes measured: the square, then the projections (when d_model is
 * known). Returns the count. */
static int peak_shapes(int square_n, int d_model, bench_peak_shape out[BENCH_PEAK_SHAPES]) {
  const int sq = square_n > 0 ? square_n : 1024;
  int n = 0;
  out[n++] = (bench_peak_shape){.m = sq, .k = sq, .n = sq};
  if (d_model > 0) {
    out[n++] = (bench_peak_shape){.m = 64 * BENCH_PEAK_BATCH, .k = d_model, .n = 3 * d_model};
    out[n++] = (bench_peak_shape){.m = 64 * BENCH_PEAK_BATCH, .k = d_model, .n = d_model};
  }
  return n;
}

#ifdef CF_BENCH_HAVE_DNNL
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include "backends/onednn/cf_onednn_precision.h"
#include "backends/onednn/cf_onednn_timed_matmul.h"

/* One way to multiply at a precision: a oneDNN matmul primitive of the
 * given types (weights in the layout it picks, as the backend keeps them:
 * cf_onednn_timed_matmul.h), or dnnl_gemm_u8s8s32 on plain row-major data. */
typedef struct peak_method {
  const char *name;
  bool gemm_u8s8s32; /* else the matmul primitive */
  dnnl_data_type_t src, wei, dst;
} peak_method;

static const peak_method bf16_methods[] = {
    {"matmul bf16*bf16->f32", false, dnnl_bf16, dnnl_bf16, dnnl_f32},
};
/* u8 x s8 is what VNNI multiplies and the backend's int8 path asks oneDNN
 * for (cf_onednn_linear.c); s8 x s8 -> f32, which oneDNN compensates for
 * the signed input, is what it asked for before; the gemm is oneDNN's
 * other public int8 entry. */
static const peak_method int8_methods[] = {
    {"matmul u8*s8->s32", false, dnnl_u8, dnnl_s8, dnnl_s32},
    {"matmul s8*s8->f32", false, dnnl_s8, dnnl_s8, dnnl_f32},
    {"dnnl_gemm_u8s8s32", true, dnnl_u8, dnnl_s8, dnnl_s32},
};

static int methods_of(cf_precision p, const peak_method **out) {
  if (p == CF_PRECISION_BF16) {
    *out = bf16_methods;
    return (int)(sizeof bf16_methods / sizeof bf16_methods[0]);
  }
  *out = int8_methods;
  return (int)(sizeof int8_methods / sizeof int8_methods[0]);
}

/* A method set up for one shape, ready to run. */
typedef struct peak_run {
  const peak_method *method;
  int m, k, n;
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  cf_onednn_timed_matmul mm; /* the matmul primitive */
  uint8_t *a;  /* gemm: [m][k] */
  int8_t *b;   /* gemm: [k][n] */
  int32_t *c;  /* gemm: [m][n] */
} peak_run;

/* The gemm's operands: bytes 0 to 12 (valid as u8 and s8), not all zero,
 * as the matmul's (cf_onednn_timed_matmul.h). */
static void fill_bytes(void *data, size_t count) {
  uint8_t *v = data;
  for (size_t i = 0; i < count; i++) v[i] = (uint8_t)((i * 7u) % 13u);
}

static void run_free(peak_run *r) {
  cf_onednn_timed_matmul_free(&r->mm);
  if (r->stream) dnnl_stream_destroy(r->stream);
  if (r->engine) dnnl_engine_destroy(r->engine);
  free(r->a);
  free(r->b);
  free(r->c);
  *r = (peak_run){0};
}

/* The matmul primitive C = A B, on the calling thread's OpenMP team size. */
static dnnl_status_t matmul_setup(peak_run *r) {
  const peak_method *mt = r->method;
  dnnl_status_t s = dnnl_engine_create(&r->engine, dnnl_cpu, 0);
  if (s == dnnl_success) s = dnnl_stream_create(&r->stream, r->engine, dnnl_stream_default_flags);
  if (s == dnnl_success)
    s = cf_onednn_timed_matmul_build(r->engine, r->m, r->k, r->n, mt->src, mt->wei, mt->dst,
                                     &r->mm);
  return s;
}

static bool run_setup(peak_run *r, const peak_method *mt, const bench_peak_shape *shape) {
  *r = (peak_run){.method = mt, .m = shape->m, .k = shape->k, .n = shape->n};
  if (!mt->gemm_u8s8s32) {
    if (matmul_setup(r) == dnnl_success) return true;
    run_free(r);
    return false;
  }
  r->a = malloc((size_t)r->m * (size_t)r->k);
  r->b = malloc((size_t)r->k * (size_t)r->n);
  r->c = malloc((size_t)r->m * (size_t)r->n * sizeof *r->c);
  if (!r->a || !r->b || !r->c) {
    run_free(r);
    return false;
  }
  fill_bytes(r->a, (size_t)r->m * (size_t)r->k);
  fill_bytes(r->b, (size_t)r->k * (size_t)r->n);
  return true;
}

static bool run_once(peak_run *r) {
  if (r->method->gemm_u8s8s32) {
    const int32_t co = 0;
    return dnnl_gemm_u8s8s32('N', 'N', 'F', r->m, r->n, r->k, 1.0f, r->a, r->k, 0, r->b, r->n, 0,
                             0.0f, r->c, r->n, &co) == dnnl_success;
  }
  return cf_onednn_timed_matmul_run(r->stream, &r->mm) >= 0;
}

/* The best rate in GFLOP/s over about min_seconds (at least 3 runs) on
 * `threads` threads; 0 when the method cannot run the shape. */
static double best_rate(const peak_method *mt, const bench_peak_shape *shape, int threads,
                        double min_seconds) {
  omp_set_num_threads(threads);
  peak_run r;
  if (!run_setup(&r, mt, shape)) return 0;
  const double flops = 2.0 * (double)shape->m * (double)shape->k * (double)shape->n;
  double best = 0;
  bool ok = run_once(&r); /* untimed: thread pool start-up, page faults */
  const double start = bench_now();
  for (int run = 0; ok && (run < 3 || bench_now() - start < min_seconds); run++) {
    const double t0 = bench_now();
    ok = run_once(&r);
    const double dt = bench_now() - t0;
    if (ok && dt > 0 && flops / dt > best) best = flops / dt;
  }
  run_free(&r);
  return ok ? best / 1e9 : 0;
}

double bench_matmul_peak_seconds(cf_precision p, int d_model, double min_seconds) {
  cf_error err = {0};
  if (p == CF_PRECISION_F32 || cf_onednn_precision_check(p, &err) != CF_OK) return 0;
  const peak_method *methods;
  bench_peak_shape shapes[BENCH_PEAK_SHAPES];
  return peak_shapes(0, d_model, shapes) * methods_of(p, &methods) * 2 * min_seconds;
}

bench_matmul_peak bench_matmul_peak_measure(cf_precision p, int square_n, int d_model,
                                            double min_seconds) {
  bench_matmul_peak r = {.precision = p};
  cf_error err = {0};
  if (p == CF_PRECISION_F32) {
    snprintf(r.note, sizeof r.note, "not measured: f32 is the sgemm peak");
    return r;
  }
  /* The backend's own test: a precision it refuses has no peak to aim at. */
  if (cf_onednn_precision_check(p, &err) != CF_OK) {
    snprintf(r.note, sizeof r.note, "not measured: %.300s", err.msg);
    return r;
  }
  const peak_method *methods;
  const int n_methods = methods_of(p, &methods);
  r.threads = omp_get_num_procs();
  r.n_shapes = peak_shapes(square_n, d_model, r.shapes);
  const char *best_method = "";
  /* each method's one-thread rate on the net's first projection (the
   * square without one), for the note: the backend's int8 form against
   * the fastest */
  const int noted = r.n_shapes > 1 ? 1 : 0;
  double noted_rate[sizeof int8_methods / sizeof int8_methods[0]] = {0};
  for (int s = 0; s < r.n_shapes; s++) {
    bench_peak_shape *sh = &r.shapes[s];
    for (int i = 0; i < n_methods; i++) {
      const double one = best_rate(&methods[i], sh, 1, min_seconds);
      if (s == noted) noted_rate[i] = one;
      const double all = best_rate(&methods[i], sh, r.threads, min_seconds);
      if (one > sh->gflops_1) {
        sh->gflops_1 = one;
        snprintf(sh->method, sizeof sh->method, "%s", methods[i].name);
      }
      if (all > sh->gflops_all) sh->gflops_all = all;
    }
    if (sh->gflops_1 > r.gflops_1) {
      r.gflops_1 = sh->gflops_1;
      best_method = sh->method;
    }
    if (sh->gflops_all > r.gflops_all) r.gflops_all = sh->gflops_all;
  }
  if (r.gflops_1 <= 0) {
    snprintf(r.note, sizeof r.note,
             "not measured: oneDNN could not create or run a %s matmul on this machine",
             cf_precision_name(p));
    r.n_shapes = 0;
    return r;
  }
  r.measured = true;
  int at = snprintf(r.note, sizeof r.note, "oneDNN %s, best of runs", best_method);
  if (n_methods > 1 && at > 0 && (size_t)at < sizeof r.note)
    at += snprintf(r.note + at, sizeof r.note - (size_t)at, "; 1 thread at %dx%dx%d:",
                   r.shapes[noted].m, r.shapes[noted].k, r.shapes[noted].n);
  for (int i = 0; n_methods > 1 && i < n_methods && at > 0 && (size_t)at < sizeof r.note; i++)
    at += snprintf(r.note + at, sizeof r.note - (size_t)at, "%s %s %.0f", i ? "," : "",
                   methods[i].name, noted_rate[i]);
  return r;
}

#else

double bench_matmul_peak_seconds(cf_precision p, int d_model, double min_seconds) {
  (void)p;
  (void)d_model;
  (void)min_seconds;
  return 0;
}

bench_matmul_peak bench_matmul_peak_measure(cf_precision p, int square_n, int d_model,
                                            double min_seconds) {
  (void)min_seconds;
  bench_matmul_peak r = {.precision = p};
  bench_peak_shape unused[BENCH_PEAK_SHAPES];
  (void)peak_shapes(square_n, d_model, unused);
  snprintf(r.note, sizeof r.note, "not measured: built without oneDNN");
  return r;
}

#endif
