/* cf_backend_fault.c: the fault-injecting wrapper table, see the header. */
#include "backends/cf_backend_fault.h"

#include <stdlib.h>


struct cf_backend_fault {
  cf_backend_iface table; /* this wrapper's slots; optional ones as the inner has them */
  const cf_backend_iface *inner;
  void *inner_ctx;
  cf_fault_plan plan;
  int allocs, ops; /* counted so far */
  cf_error first;  /* the injected op failure not yet reported by sync */
};
typedef struct cf_backend_fault fault_ctx;

cf_status cf_backend_fault_read(cf_kv *kv, cf_fault_plan *plan, cf_error *err) {
  *plan = (cf_fault_plan){0};
  CF_TRY(cf_kv_get_int(kv, "fault_alloc", 1, 1000000000, &plan->alloc_at, err));
  return cf_kv_get_int(kv, "fault_op", 1, 1000000000, &plan->op_at, err);
}

/* True when this allocation is the one to fail. */
static bool alloc_fails(fault_ctx *f) { return ++f->allocs == f->plan.alloc_at; }

bool cf_backend_fault_alloc(cf_backend_fault *f, cf_error *err) {
  if (!f || !alloc_fails(f)) return false;
  cf_error_set(err, CF_ERR_NOMEM, "injected failure (allocation %d, fault_alloc)", f->allocs);
  return true;
}

/* True (with the failure kept for sync) when this op is the one to fail. */
static bool op_fails(fault_ctx *f, const char *op) {
  if (++f->ops != f->plan.op_at) return false;
  cf_backend_note_failure(&f->first, CF_ERR_BACKEND, op, "injected failure (op %d, fault_op)",
                          f->ops);
  return true;
}

static void w_destroy(void *ctx) {
  fault_ctx *f = ctx;
  f->inner->destroy(f->inner_ctx);
  free(f);
}

static float *w_alloc(void *ctx, size_t n, cf_error *err) {
  fault_ctx *f = ctx;
  return cf_backend_fault_alloc(f, err) ? NULL : f->inner->alloc(f->inner_ctx, n, err);
}

static void w_free(void *ctx, float *p) {
  fault_ctx *f = ctx;
  f->inner->free(f->inner_ctx, p);
}

static void w_upload(void *ctx, float *dst, const float *src, size_t n) {
  fault_ctx *f = ctx;
  if (!op_fails(f, "upload")) f->inner->upload(f->inner_ctx, dst, src, n);
}

static void w_download(void *ctx, float *dst, const float *src, size_t n) {
  fault_ctx *f = ctx;
  if (!op_fails(f, "download")) f->inner->download(f->inner_ctx, dst, src, n);
}

static cf_bweight *w_weight_create(void *ctx, const cf_weight_shape *shape, const float *data,
                                   cf_error *err) {
  fault_ctx *f = ctx;
  if (cf_backend_fault_alloc(f, err)) return NULL;
  return f->inner->weight_create(f->inner_ctx, shape, data, err);
}

static void w_weight_free(void *ctx, cf_bweight *w) {
  fault_ctx *f = ctx;
  f->inner->weight_free(f->inner_ctx, w);
}

static void w_linear(void *ctx, int rows, int in, int out, const float *x, const cf_bweight *w,
                     const cf_bweight *b, cf_op_act act, float *y) {
  fault_ctx *f = ctx;
  if (!op_fails(f, "linear")) f->inner->linear(f->inner_ctx, rows, in, out, x, w, b, act, y);
}

static void w_linear_positions(void *ctx, int positions, int rows_each, int in, int out,
                               const float *x, const cf_bweight *w, const cf_bweight *b,
                               cf_op_act act, float *y) {
  fault_ctx *f = ctx;
  if (!op_fails(f, "linear"))
    cf_iface_linear_positions(f->inner, f->inner_ctx, positions, rows_each, in, out, x, w, b, act,
                              y);
}

static void w_norm(void *ctx, cf_norm_kind kind, int rows, int width, const float *x, float alpha,
                   const float *skip, const cf_bweight *gamma, const cf_bweight *beta, float eps,
                   float *y) {
  fault_ctx *f = ctx;
  if (!op_fails(f, "norm"))
    f->inner->norm(f->inner_ctx, kind, rows, width, x, alpha, skip, gamma, beta, eps, y);
}

static void w_attention(void *ctx, const cf_attention_args *args) {
  fault_ctx *f = ctx;
  if (!op_fails(f, "attention")) f->inner->attention(f->inner_ctx, args);
}

static void w_gate(void *ctx, int batch, int d, float *x, const cf_bweight *mult,
                   const cf_bweight *add) {
  fault_ctx *f = ctx;
  if (!op_fails(f, "gate")) f->inner->gate(f->inner_ctx, batch, d, x, mult, add);
}

static void w_matmul_nt(void *ctx, int batch, int m, int n, int k, const float *a, const float *b,
                        float scale, float *c) {
  fault_ctx *f = ctx;
  if (!op_fails(f, "matmul_nt"))
    f->inner->matmul_nt(f->inner_ctx, batch, m, n, k, a, b, scale, c);
}

static void w_copy_2d(void *ctx, int rows, int cols, const float *src, int ld_src, float *dst,
                      int ld_dst) {
  fault_ctx *f = ctx;
  if (!op_fails(f, "copy_2d"))
    f->inner->copy_2d(f->inner_ctx, rows, cols, src, ld_src, dst, ld_dst);
}

/* The backend's own failure comes first: an injected op did not run, so
 * it cannot have caused one. Both records are cleared. */
static cf_status w_sync(void *ctx, cf_error *err) {
  fault_ctx *f = ctx;
  cf_status st = f->inner->sync(f->inner_ctx, err);
  if (st != CF_OK) {
    cf_error_clear(&f->first);
    return st;
  }
  return cf_backend_take_failure(&f->first, err);
}

static const char *w_variant(void *ctx) {
  fault_ctx *f = ctx;
  return f->inner->variant(f->inner_ctx);
}

static size_t w_layer_chunk_bytes(void *ctx) {
  fault_ctx *f = ctx;
  return f->inner->layer_chunk_bytes(f->inner_ctx);
}

/* A simulated device's pass counts as one op (the simulated device fails
 * like a real one: reported by the next sync). */
static double w_pass_seconds(void *ctx, int n) {
  fault_ctx *f = ctx;
  op_fails(f, "pass");
  return f->inner->pass_seconds(f->inner_ctx, n);
}

static const cf_backend_iface wrapper = {
    .destroy = w_destroy,
    .alloc = w_alloc,
    .free = w_free,
    .upload = w_upload,
    .download = w_download,
    .weight_create = w_weight_create,
    .weight_free = w_weight_free,
    .linear = w_linear,
    .linear_positions = w_linear_positions,
    .norm = w_norm,
    .attention = w_attention,
    .gate = w_gate,
    .matmul_nt = w_matmul_nt,
    .copy_2d = w_copy_2d,
    .sync = w_sync,
    .variant = w_variant,
    .layer_chunk_bytes = w_layer_chunk_bytes,
    .pass_seconds = w_pass_seconds,
    /* No prepare (so no warm-up pass, cf_net_warm) and no shape_builds:
     * the counts a test loops over are the caller's own allocations and
     * ops, the same with and without a backend that builds per shape. */
};

cf_status cf_backend_fault_new(const cf_fault_plan *plan, cf_backend_fault **out, cf_error *err) {
  *out = NULL;
  if (!plan->alloc_at && !plan->op_at) return CF_OK;
  fault_ctx *f = calloc(1, sizeof *f);
  if (!f) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  f->plan = *plan;
  *out = f;
  return CF_OK;
}

void cf_backend_fault_free(cf_backend_fault *f) { free(f); }

void cf_backend_fault_wrap(cf_backend *be, cf_backend_fault *f) {
  if (!f) return;
  f->table = wrapper;
  f->table.create = be->iface->create; /* never called through the wrapper; kept for the check */
  if (!be->iface->gate) f->table.gate = NULL;
  if (!be->iface->variant) f->table.variant = NULL;
  if (!be->iface->layer_chunk_bytes) f->table.layer_chunk_bytes = NULL;
  if (!be->iface->pass_seconds) f->table.pass_seconds = NULL;
  f->inner = be->iface;
  f->inner_ctx = be->ctx;
  be->iface = &f->table;
  be->ctx = f;
}
