/* cf_onednn_backend.c: the oneDNN backend's op table: the projections'
 * matmul primitives (float32, or bf16 / int8 by the precision option;
 * cf_onednn_linear.c), dnnl_sgemm for matmul_nt, the attention on the
 * shared CPU kernels or as oneDNN products (cf_onednn_attention.h), the
 * warm starts' prepare, the shared CPU kernels for the rest. */
#include "backends/onednn/cf_onednn_backend.h"

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend_fault.h"
#include "common/cf_kv.h"
#include "backends/cpu/cf_cpu_amx.h"
#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_kernels.h"
#include "backends/onednn/cf_onednn_auto_precision.h"
#include "backends/onednn/cf_onednn_internal.h"

static void od_destroy(void *ctx) {
  onednn_ctx *c = ctx;
  if (!c) return;
  for (int i = 0; i < c->n_cache; i++) cf_onednn_entry_free(&c->cache[i]);
  free(c->cache);
  cf_onednn_calls_free(&c->calls);
  cf_onednn_attention_free(c->attn);
  cf_cpu_ctx_release(&c->cpu);
  cf_cpu_free(c->xbuf);
  cf_cpu_free(c->xscale);
  cf_cpu_free((float *)c->acc);
  if (c->stream) dnnl_stream_destroy(c->stream);
  if (c->engine) dnnl_engine_destroy(c->engine);
  free(c);
}

static cf_status od_create(const cf_backend_config *cfg, void **ctx, cf_error *err) {
  onednn_ctx *c = calloc(1, sizeof *c);
  if (!c) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  c->precision = cfg->precision;
  c->precision_auto = cfg->precision_auto;
  c->f32_uses = cfg->f32_uses;
  cf_status st = cf_onednn_precision_check(c->precision, err);
  /* int8's attention: 0 float32 (to measure it), 1 int8 (the default). */
  int int8_attention = 1;
  if (st == CF_OK) st = cf_kv_get_int(cfg->kv, "int8_attention", 0, 1, &int8_attention, err);
  /* bf16 activations: 1 (the default) where precision=bf16, 0 the float32
   * round trips (to measure them and to test that both compute the same). */
  int bf16_acts = 1;
  if (st == CF_OK) st = cf_kv_get_int(cfg->kv, "bf16_activations", 0, 1, &bf16_acts, err);
  c->bf16_acts = bf16_acts == 1;
  if (st == CF_OK) st = cf_onednn_attention_choose(cfg->kv, c->precision, &c->attention, err);
  if (st == CF_OK) st = cf_cpu_ctx_init(&c->cpu, cfg, err);
  /* The tiles' row loops are AVX-512: with a forced lower kernel set auto
   * takes the cores, and amx is refused. */
  if (st == CF_OK && c->attention.amx && strcmp(c->cpu.kernels->name, "avx512") != 0) {
    if (strncmp(c->attention.why, "auto", 4) == 0)
      c->attention = (cf_onednn_attention_choice){false, false, "auto"};
    else
      st = cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "attention=amx needs the avx512 CPU kernels (these are %s); the paths "
                        "here: cpu, onednn",
                        c->cpu.kernels->name);
  }
  if (st == CF_OK) c->cpu.attention_amx = c->attention.amx;
  /* bf16 runs the attention core in bf16 too, int8 in int8 where the
   * kernel set has an int8 core (else float32, said in the variant); both
   * before any weight upload, which builds the RPE weights' tables. */
  if (st == CF_OK && c->precision == CF_PRECISION_BF16 && !c->attention.onednn)
    c->cpu.attention_bf16 = cf_cpu_attention_bf16_select(c->cpu.kernels);
  if (st == CF_OK && c->precision == CF_PRECISION_INT8 && int8_attention && !c->attention.onednn)
    c->cpu.attention_int8 = cf_cpu_attention_int8_select(c->cpu.kernels);
  if (st == CF_OK && dnnl_engine_create(&c->engine, dnnl_cpu, 0) != dnnl_success)
    st = cf_error_set(err, CF_ERR_BACKEND, "cannot create a oneDNN CPU engine");
  if (st == CF_OK &&
      dnnl_stream_create(&c->stream, c->engine, dnnl_stream_default_flags) != dnnl_success)
    st = cf_error_set(err, CF_ERR_BACKEND, "cannot create a oneDNN stream");
  /* int8 attention on this path follows precision=int8 (int8_attention=0
   * is the CPU cores' float32 measurement switch). */
  if (st == CF_OK && c->attention.onednn) {
    const cf_onednn_attention_env env = {c->engine, c->stream, c->cpu.threads, &c->cpu.first,
                                         &c->builds};
    st = cf_onednn_attention_create(c->precision, &env, &c->attn, err);
  }
  if (st != CF_OK) {
    od_destroy(c);
    return st;
  }
  *ctx = c;
  return CF_OK;
}
static cf_bweight *od_weight_create(void *ctx, const cf_weight_shape *shape, const float *data,
                                    cf_error *err) {
  onednn_ctx *c = ctx;
  cf_bweight *w = cf_cpu_weight_create(ctx, shape, data, err);
  if (w && c->attn && cf_weight_role_is_rpe(shape->role)) {
    if (cf_onednn_attention_table(c->attn, shape, data, &w->extra, err) != CF_OK) {
      cf_cpu_weight_free(ctx, w);
      return NULL;
    }
    w->extra_free = cf_onednn_attention_table_free;
    return w;
  }
  if (!w || shape->role != CF_WEIGHT_MATRIX || c->precision == CF_PRECISION_F32) return w;
  od_weight *r = calloc(1, sizeof *r);
  if (!r) cf_error_set(err, CF_ERR_NOMEM, "calloc of a weight's reduced-precision record failed");
  /* f32_roles=...: a use the caller asked to keep stays float32. */
  const bool keep = (unsigned)shape->use < 32u && (c->f32_uses >> shape->use & 1u);
  if (r && keep)
    r->lowp = (cf_onednn_lowp){.precision = CF_PRECISION_F32,
                               .why = cf_onednn_role_kept_why(shape->use)};
  else if (r && cf_onednn_lowp_make(c->precision, shape->rows, shape->cols, w->data, &r->lowp,
                                    err) != CF_OK) {
    free(r);
    r = NULL;
  }
  if (!r) {
    cf_cpu_weight_free(ctx, w);
    return NULL;
  }
  w->extra = r;
  w->extra_free = cf_onednn_weight_extra_free;
  cf_onednn_tally_add(&c->tally, &r->lowp);
  if (shape->use == CF_WEIGHT_USE_BODY && r->lowp.precision == CF_PRECISION_F32)
    c->body_kept_f32++;
  return w;
}

static void od_linear(void *ctx, int rows, int in, int out, const float *x, const cf_bweight *w,
                      const cf_bweight *b, cf_op_act act, float *y) {
  onednn_ctx *c = ctx;
  if (rows <= 0) return;
  if (!c->first_pass_done)
    cf_onednn_calls_add(&c->calls, &(cf_onednn_call){
                                       .w = w, .b = b, .rows = rows, .in = in, .out = out,
                                       .act = act});
  omp_set_num_threads(c->cpu.threads);
  cf_onednn_linear_rows(c, rows, in, out, x, false, w, b, act, y, false, true);
}

/* bf16 activations: at precision=bf16 unless bf16_activations=0, on the
 * attention paths that write bf16 (the cores and the tiles; the oneDNN
 * attention path keeps float32), while every body matrix uploaded so far
 * is bf16. */
static bool od_bf16_activations(void *ctx) {
  const onednn_ctx *c = ctx;
  return c->bf16_acts && c->precision == CF_PRECISION_BF16 && !c->attn && !c->body_kept_f32;
}

/* q, k, v and the output in bf16 where the tiles take the call (every
 * batch); the cores read and write float32 (widening and narrowing would
 * cost more than the projections' conversions they save: CF-6M 0.97x at
 * batch 1). */
static bool od_attention_takes_bf16(void *ctx, int batch, int depth) {
  const onednn_ctx *c = ctx;
  (void)batch;
  return c->cpu.attention_amx && cf_amx_takes(depth);
}

static void od_linear_bf16(void *ctx, int rows, int in, int out, const void *x, bool x_bf16,
                           const cf_bweight *w, const cf_bweight *b, cf_op_act act, void *y,
                           bool y_bf16) {
  onednn_ctx *c = ctx;
  if (rows <= 0) return;
  if (!c->first_pass_done)
    cf_onednn_calls_add(&c->calls,
                        &(cf_onednn_call){.w = w, .b = b, .rows = rows, .in = in, .out = out,
                                          .act = act, .layer = true, .x_bf16 = x_bf16,
                                          .y_bf16 = y_bf16});
  omp_set_num_threads(c->cpu.threads);
  cf_onednn_linear_rows(c, rows, in, out, x, x_bf16, w, b, act, y, y_bf16, true);
}

/* w->data_panels for gemm_rows. Built in an op, once per weight (an
 * instance's ops run one at a time), and counted as a build, so a warmed
 * net makes none later. */
static bool build_panels(onednn_ctx *c, cf_bweight *w) {
  w->data_panels = cf_onednn_injected(c) ? NULL : cf_cpu_gemm_panels(w);
  if (!w->data_panels) {
    cf_onednn_record(c, dnnl_out_of_memory, "linear", "allocating a weight's panels");
    return false;
  }
  c->builds++;
  return true;
}

/* The layers with one row a position (cf_backend_iface.linear_positions):
 * oneDNN's matmul of a few rows rounds a row differently with their number
 * (on an AMD EPYC with AVX2, the value head's W/D/L moved in the last bits
 * between batches). In float32 the kernel set's product, whose rows do not
 * depend on each other (cf_cpu_kernels.h, gemm_rows), in one call, on the
 * weight in panels built at its first such call: a oneDNN call per
 * position reads the whole weight once a position (the value head's 1 MB:
 * the built-in net 4% slower at batch 16 on that CPU). In bf16 and int8,
 * and on a set without gemm_rows, oneDNN one position a call: the same
 * shape whatever the batch, and prepare builds that one shape, not one
 * per batch size. */
static void od_linear_positions(void *ctx, int positions, int rows_each, int in, int out,
                                const float *x, const cf_bweight *w, const cf_bweight *b,
                                cf_op_act act, float *y) {
  onednn_ctx *c = ctx;
  if (positions <= 0 || rows_each <= 0) return;
  const cf_cpu_kernels *k = c->cpu.kernels;
  if (k->gemm_rows && cf_onednn_precision_of(w) == CF_PRECISION_F32) {
    if (!w->data_panels && !build_panels(c, (cf_bweight *)w)) return;
    const int rows = positions * rows_each;
    k->gemm_rows(rows, out, in, x, w->data_panels, y);
    for (int r = 0; r < rows; r++)
      k->bias_act_row(out, y + (size_t)r * out, b ? b->data : NULL, act);
    return;
  }
  if (!c->first_pass_done)
    cf_onednn_calls_add(&c->calls, &(cf_onednn_call){.w = w, .b = b, .rows = rows_each,
                                                     .in = in, .out = out, .act = act,
                                                     .per_position = true});
  omp_set_num_threads(c->cpu.threads);
  for (int p = 0; p < positions; p++)
    cf_onednn_linear_rows(c, rows_each, in, out, x + (size_t)p * rows_each * in, false, w, b,
                          act, y + (size_t)p * rows_each * out, false, true);
}

/* The first sync ends the first pass: the calls kept are that pass's. */
static cf_status od_sync(void *ctx, cf_error *err) {
  onednn_ctx *c = ctx;
  if (c->calls.n > 0) c->first_pass_done = true; /* not a sync before any pass */
  return cf_cpu_sync(ctx, err);
}

/* Every batch size's primitives, reordered weights and scratch for the
 * first pass's calls (at batch 1: n * rows at batch n; a per-position
 * call's rows at every batch). Each primitive is
 * the one a pass at that size would have built on its first call, so the
 * arithmetic is the same, warmed or not. */
static cf_status od_prepare(void *ctx, int max_batch, cf_error *err) {
  onednn_ctx *c = ctx;
  if (c->calls.nomem) return cf_error_set(err, CF_ERR_NOMEM, "out of memory keeping the calls");
  bool ok = true;
  for (int n = 1; ok && n <= max_batch; n++)
    for (int i = 0; ok && i < c->calls.n; i++) {
      const cf_onednn_call *k = &c->calls.v[i];
      if (k->per_position && n > 1) continue;
      ok = cf_onednn_linear_rows(c, n * k->rows, k->in, k->out, NULL, k->x_bf16, k->w, k->b,
                                 k->act, NULL, k->y_bf16, false);
      /* A layer's projection with a float32 output in the warm-up may
       * write bf16 at this size (q, k, v where the tiles take it). */
      if (ok && k->layer && !k->y_bf16)
        ok = cf_onednn_linear_rows(c, n * k->rows, k->in, k->out, NULL, k->x_bf16, k->w, k->b,
                                   k->act, NULL, true, false);
    }
  cf_onednn_calls_free(&c->calls);
  if (ok && c->attn) ok = cf_onednn_attention_prepare(c->attn, max_batch);
  return cf_cpu_sync(ctx, err);
}

/* The attention op on the path chosen at creation. */
static void od_attention(void *ctx, const cf_attention_args *args) {
  onednn_ctx *c = ctx;
  if (c->attn) cf_onednn_attention_run(c->attn, args);
  else cf_cpu_attention(ctx, args);
}

static long od_shape_builds(void *ctx) { return ((onednn_ctx *)ctx)->builds; }

static void od_matmul_nt(void *ctx, int batch, int m, int n, int k, const float *a,
                         const float *bm, float scale, float *cm) {
  onednn_ctx *c = ctx;
  omp_set_num_threads(c->cpu.threads);
  for (int b = 0; b < batch; b++)
    cf_onednn_record(c,
           dnnl_sgemm('N', 'T', m, n, k, scale, a + (size_t)b * m * k, k, bm + (size_t)b * n * k,
                      k, 0.0f, cm + (size_t)b * m * n, n),
           "matmul_nt", "dnnl_sgemm");
}

/* " (precision=auto: bf16 0.51x f32 here)" when auto chose the precision,
 * so the load line says why; "" otherwise. */
static const char *auto_note(const onednn_ctx *c, char buf[128]) {
  if (!c->precision_auto) return "";
  snprintf(buf, 128, " (precision=auto: %s)", cf_onednn_auto_pick_get()->why);
  return buf;
}

/* The kernel set, plus the precision, any weights kept in float32 (with
 * each distinct reason) and the attention core: "avx2", "avx512, bf16
 * matmuls, bf16 attention (avx512_bf16)", "avx512, int8 matmuls, int8
 * attention (avx512_vnni)", "avx2, int8 matmuls
 * (2 of 30 matrices kept f32: input embedding kept in float32
 * (f32_roles)), f32 attention". */
static const char *od_variant(void *ctx) {
  onednn_ctx *c = ctx;
  const char *kernels = cf_cpu_kernels_name(ctx);
  char auto_text[128];
  if (c->attn) {
    snprintf(c->variant, sizeof c->variant, "%s, %s matmuls%s", kernels,
             cf_precision_name(c->precision), auto_note(c, auto_text));
    cf_onednn_tally_text(&c->tally, c->variant, sizeof c->variant);
    const size_t len = strlen(c->variant);
    snprintf(c->variant + len, sizeof c->variant - len, ", %s onednn attention (%s)",
             cf_precision_name(c->precision), c->attention.why);
    return c->variant;
  }
  if (c->precision == CF_PRECISION_F32 && !c->precision_auto) return kernels;
  if (c->precision == CF_PRECISION_F32) {
    snprintf(c->variant, sizeof c->variant, "%s, f32%s", kernels, auto_note(c, auto_text));
    return c->variant;
  }
  snprintf(c->variant, sizeof c->variant, "%s, %s matmuls%s", kernels,
           cf_precision_name(c->precision), auto_note(c, auto_text));
  cf_onednn_tally_text(&c->tally, c->variant, sizeof c->variant);
  const size_t len = strlen(c->variant);
  if (c->cpu.attention_amx)
    snprintf(c->variant + len, sizeof c->variant - len,
             ", bf16 attention (amx tiles: one position a task below batch %d, groups of "
             "%d from it; %s %s past depth %d; %s)",
             CF_AMX_GROUP, CF_AMX_GROUP,
             c->cpu.attention_bf16 ? "bf16" : c->cpu.attention_int8 ? "int8" : "f32",
             c->cpu.attention_bf16   ? c->cpu.attention_bf16->name
             : c->cpu.attention_int8 ? c->cpu.attention_int8->name
                                     : "cores",
             CF_AMX_MAX_DEPTH, c->attention.why);
  else if (c->cpu.attention_bf16)
    snprintf(c->variant + len, sizeof c->variant - len, ", bf16 attention (%s)",
             c->cpu.attention_bf16->name);
  else if (c->cpu.attention_int8)
    snprintf(c->variant + len, sizeof c->variant - len, ", int8 attention (%s)",
             c->cpu.attention_int8->name);
  else if (c->precision == CF_PRECISION_INT8)
    snprintf(c->variant + len, sizeof c->variant - len, ", f32 attention");
  if (od_bf16_activations(c)) {
    const size_t at = strlen(c->variant);
    snprintf(c->variant + at, sizeof c->variant - at, ", bf16 activations");
  }
  return c->variant;
}

/* precision=auto: bf16 where oneDNN runs it natively and its matmul beats
 * the float32 one by the probe's margin on this CPU, else f32
 * (cf_onednn_auto_precision.h; docs/PRECISION.md "precision=auto"); int8
 * is faster still but moves a trained network's Q by about eight times as
 * much, beyond auto's accuracy bound. */
static cf_precision od_auto_precision(void) { return cf_onednn_auto_pick_get()->precision; }

static const cf_backend_iface onednn_iface = {
    CF_CPU_IFACE_SLOTS,
    .create = od_create,
    .destroy = od_destroy,
    .weight_create = od_weight_create,
    .linear = od_linear,
    .linear_positions = od_linear_positions,
    .bf16_activations = od_bf16_activations,
    .attention_takes_bf16 = od_attention_takes_bf16,
    .linear_bf16 = od_linear_bf16,
    .norm_bf16 = cf_cpu_norm_bf16,
    .attention = od_attention,
    .matmul_nt = od_matmul_nt,
    .sync = od_sync, /* the first failed oneDNN call, or attention's */
    .variant = od_variant,
    .prepare = od_prepare,
    .shape_builds = od_shape_builds,
};

const cf_backend_desc cf_backend_onednn_desc = {
    .name = "onednn",
    .summary = "oneDNN matmul primitives (fused bias + activation) + CPU kernels, avx2 or "
               "portable by CPU (options: threads=N, precision=f32|bf16|int8|auto, "
               "f32_roles=embedding+heads|none, int8_attention=0|1, bf16_activations=0|1, "
               "attention=auto|cpu|onednn|amx)",
    .priority = 30,
    .features = CF_CPU_FEATURES,
    .activations = CF_CPU_ACTIVATIONS,
    .probe = NULL,
    .iface = &onednn_iface,
    .precisions = (1u << CF_PRECISION_BF16) | (1u << CF_PRECISION_INT8),
    /* 16, not 32: the smaller batch plays much stronger at equal visits and
     * at equal time (docs/SEARCH.md) and costs no throughput on a CPU. */
    .default_minibatch = 16,
    .auto_precision = od_auto_precision,
};
