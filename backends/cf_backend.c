/* cf_backend.c: backend lookup, instance creation, the capability check and
 * the op dispatchers. Nothing here computes; see ref/ for the oracle. */
#include "backends/cf_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend_fault.h"
#include "backends/cf_backend_options.h"

const char *cf_op_act_name(cf_op_act act) {
  switch (act) {
    case CF_OP_ACT_MISH: return "mish";
    case CF_OP_ACT_RELU: return "relu";
    case CF_OP_ACT_NONE: return "none";
    case CF_OP_ACT_TANH: return "tanh";
    case CF_OP_ACT_SIGMOID: return "sigmoid";
    case CF_OP_ACT_SELU: return "selu";
    case CF_OP_ACT_SWISH: return "swish";
    case CF_OP_ACT_RELU2: return "relu^2";
  }
  return "unknown activation";
}

const char *cf_feature_name(unsigned feature_bit) {
  switch (feature_bit) {
    case CF_FEAT_RPE_Q: return "RPE q (relative position attention, query side)";
    case CF_FEAT_RPE_K: return "RPE k (relative position attention, key side)";
    case CF_FEAT_RPE_V: return "RPE v (relative position attention, value side)";
    case CF_FEAT_SMOLGEN: return "smolgen attention bias";
    case CF_FEAT_RMS_NORM: return "RMSNorm";
    case CF_FEAT_GATING: return "input gating";
  }
  return "unknown feature";
}

const cf_backend_desc *cf_backend_find(const char *name) {
  for (int i = 0; i < cf_backend_count(); i++)
    if (name && strcmp(cf_backend_at(i)->name, name) == 0) return cf_backend_at(i);
  return NULL;
}

static bool available(const cf_backend_desc *d) { return !d->probe || d->probe(); }

const cf_backend_desc *cf_backend_default(void) {
  const cf_backend_desc *best = NULL;
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    if (d->priority < 0 || !available(d)) continue;
    if (!best || d->priority > best->priority) best = d;
  }
  return best;
}

/* The ops every network uses; a backend lacking one cannot run anything. */
static const char *missing_required_op(const cf_backend_iface *f) {
  if (!f->create || !f->destroy) return "create/destroy";
  if (f->pass_seconds) return !f->alloc || !f->free || !f->sync ? "alloc/free/sync" : NULL;
  if (!f->alloc || !f->free || !f->upload || !f->download) return "alloc/free/upload/download";
  if (!f->weight_create || !f->weight_free) return "weight_create/weight_free";
  if (!f->linear) return "linear";
  if (!f->norm) return "norm";
  if (!f->attention) return "attention";
  if (!f->matmul_nt) return "matmul_nt";
  if (!f->copy_2d) return "copy_2d";
  if (!f->sync) return "sync";
  if (f->bf16_activations && (!f->linear_bf16 || !f->norm_bf16))
    return "linear_bf16/norm_bf16 (with bf16_activations)";
  return NULL;
}

/* "precision=bf16 is not supported on this backend; use onednn". */
static cf_status refuse_precision(const cf_backend_desc *d, cf_precision p, cf_error *err) {
  char others[128] = "";
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *o = cf_backend_at(i);
    if (o == d || o->priority < 0 || !(o->precisions & (1u << p))) continue;
    if (others[0]) strncat(others, " or ", sizeof others - strlen(others) - 1);
    strncat(others, o->name, sizeof others - strlen(others) - 1);
  }
  if (others[0])
    return cf_error_set(err, CF_ERR_ARG, "precision=%s is not supported on this backend; use %s",
                        cf_precision_name(p), others);
  return cf_error_set(err, CF_ERR_ARG,
                      "precision=%s is not supported on this backend, nor on any other compiled "
                      "into this build (onednn runs it)",
                      cf_precision_name(p));
}

bool cf_backend_startup_env(const char **name, const char **value) {
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    if (d->startup_env && d->startup_env(name, value)) return true;
  }
  return false;
}

cf_precision cf_backend_auto_precision(const cf_backend_desc *d) {
  return d && d->auto_precision ? d->auto_precision() : CF_PRECISION_F32;
}

cf_status cf_backend_create(const char *name, const cf_backend_config *cfg, cf_backend **out,
                            cf_error *err) {
  *out = NULL;
  const cf_backend_desc *d = NULL;
  if (!name || !*name) {
    d = cf_backend_default();
    if (!d) return cf_error_set(err, CF_ERR_BACKEND, "no compute backend is available");
  } else {
    d = cf_backend_find(name);
    if (!d) {
      char known[256] = "";
      for (int i = 0; i < cf_backend_count(); i++) {
        if (i) strncat(known, ", ", sizeof known - strlen(known) - 1);
        strncat(known, cf_backend_at(i)->name, sizeof known - strlen(known) - 1);
      }
      return cf_error_set(err, CF_ERR_ARG, "unknown backend '%s' (compiled in: %s)", name, known);
    }
    if (!available(d))
      return cf_error_set(err, CF_ERR_BACKEND, "backend '%s' is not available on this machine: %s",
                          d->name, d->unavailable ? d->unavailable : "its probe failed");
  }
  const char *missing = missing_required_op(d->iface);
  if (missing)
    return cf_error_set(err, CF_ERR_INTERNAL, "backend '%s' does not implement %s", d->name,
                        missing);
  if (!cfg || cfg->max_batch < 1)
    return cf_error_set(err, CF_ERR_ARG, "backend '%s': max batch must be at least 1", d->name);
  /* Text options are parsed here, once; a list comes parsed. */
  cf_kv *own = NULL;
  cf_kv *kv = cfg->kv;
  cf_status st = CF_OK;
  if (!kv) {
    st = cf_kv_parse(cfg->options, &own, err);
    kv = own;
  }
  /* precision=..., f32_roles=... and the fault hook's keys are every
   * backend's, read here: the precision checked against what the backend
   * declares, so the refusal reads the same everywhere; f32_roles is
   * nothing to keep for one that runs only float32, as threads=1 is
   * nothing to change on the reference. */
  cf_backend_config local = *cfg;
  local.kv = kv;
  local.options = NULL;
  cf_fault_plan faults = {0};
  if (st == CF_OK) st = cf_backend_read_precision(kv, &local.precision, &local.precision_auto, err);
  if (st == CF_OK && local.precision_auto) local.precision = cf_backend_auto_precision(d);
  if (st == CF_OK) st = cf_backend_read_f32_roles(kv, &local.f32_uses, err);
  if (st == CF_OK) st = cf_backend_fault_read(kv, &faults, err);
  if (st == CF_OK && local.precision != CF_PRECISION_F32 &&
      !(d->precisions & (1u << local.precision)))
    st = refuse_precision(d, local.precision, err);
  cf_backend *be = NULL;
  if (st == CF_OK) {
    be = calloc(1, sizeof *be);
    if (!be) st = cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  }
  if (st == CF_OK) {
    be->desc = d;
    be->iface = d->iface;
    st = cf_backend_fault_new(&faults, &local.fault, err);
    if (st == CF_OK) st = d->iface->create(&local, &be->ctx, err);
    if (st == CF_OK) {
      cf_backend_fault_wrap(be, local.fault);
      /* Every reader has run: a key none of them read is unknown. */
      if (own) st = cf_kv_check_all_read(own, err);
      if (st != CF_OK) cf_backend_free(be); /* and with it the wrapper */
    } else {
      cf_backend_fault_free(local.fault);
      free(be);
    }
  }
  cf_kv_free(own);
  if (st != CF_OK) {
    cf_error_prefix(err, "backend '%s'", d->name);
    return st;
  }
  *out = be;
  return CF_OK;
}

void cf_backend_free(cf_backend *be) {
  if (!be) return;
  be->iface->destroy(be->ctx);
  free(be);
}

const char *cf_backend_variant(const cf_backend *be) {
  return be->iface->variant ? be->iface->variant(be->ctx) : NULL;
}

bool cf_backend_simulated(const cf_backend *be) { return be->iface->pass_seconds != NULL; }

double cf_backend_pass_seconds(const cf_backend *be, int n) {
  return be->iface->pass_seconds ? be->iface->pass_seconds(be->ctx, n) : 0;
}

size_t cf_backend_layer_chunk_bytes(const cf_backend *be) {
  return be->iface->layer_chunk_bytes ? be->iface->layer_chunk_bytes(be->ctx) : 0;
}

bool cf_backend_has_prepare(const cf_backend *be) { return be->iface->prepare != NULL; }

cf_status cf_backend_prepare(cf_backend *be, int max_batch, cf_error *err) {
  if (!be->iface->prepare) return CF_OK;
  cf_status st = be->iface->prepare(be->ctx, max_batch, err);
  if (st != CF_OK) cf_error_prefix(err, "backend '%s': preparing batch sizes 1 to %d",
                                   be->desc->name, max_batch);
  return st;
}

long cf_backend_shape_builds(const cf_backend *be) {
  return be->iface->shape_builds ? be->iface->shape_builds(be->ctx) : 0;
}

cf_status cf_backend_check(const cf_backend *be, unsigned features, unsigned activations,
                           cf_error *err) {
  unsigned have = be->desc->features;
  if (!be->iface->gate) have &= ~(unsigned)CF_FEAT_GATING;
  for (unsigned bit = 1; bit < (1u << CF_FEAT_COUNT); bit <<= 1)
    if ((features & bit) && !(have & bit))
      return cf_error_set(err, CF_ERR_UNSUPPORTED, "backend '%s' does not support %s",
                          be->desc->name, cf_feature_name(bit));
  for (int a = 1; a <= CF_OP_ACT_MAX; a++)
    if ((activations & (1u << a)) && !(be->desc->activations & (1u << a)))
      return cf_error_set(err, CF_ERR_UNSUPPORTED, "backend '%s' does not support activation %s",
                          be->desc->name, cf_op_act_name((cf_op_act)a));
  return CF_OK;
}

cf_status cf_op_buffer(cf_backend *be, size_t n, const char *what, float **out, cf_error *err) {
  cf_error why = {0};
  *out = be->iface->alloc(be->ctx, n, &why);
  if (*out) return CF_OK;
  if (why.status == CF_OK) cf_error_set(&why, CF_ERR_NOMEM, "out of memory");
  return cf_error_set(err, why.status, "backend '%s': cannot allocate %zu floats of %s: %s",
                      be->desc->name, n, what, why.msg);
}

float *cf_op_alloc(cf_backend *be, size_t n) { return be->iface->alloc(be->ctx, n, NULL); }

void cf_op_free(cf_backend *be, float *p) {
  if (p) be->iface->free(be->ctx, p);
}

void cf_op_upload(cf_backend *be, float *dst, const float *host_src, size_t n) {
  be->iface->upload(be->ctx, dst, host_src, n);
}

void cf_op_download(cf_backend *be, float *host_dst, const float *src, size_t n) {
  be->iface->download(be->ctx, host_dst, src, n);
}

static cf_status upload_weight(cf_backend *be, const cf_weight_shape *shape, const float *data,
                               cf_bweight **out, cf_error *err) {
  *out = NULL;
  if (!data || shape->rows <= 0 || shape->cols <= 0) return CF_OK;
  cf_error why = {0};
  *out = be->iface->weight_create(be->ctx, shape, data, &why);
  if (*out) return CF_OK;
  if (why.status == CF_OK) cf_error_set(&why, CF_ERR_NOMEM, "out of memory");
  return cf_error_set(err, why.status, "backend '%s': cannot upload a %dx%d weight: %s",
                      be->desc->name, shape->rows, shape->cols, why.msg);
}

cf_status cf_op_weight_use(cf_backend *be, cf_weight_use use, cf_weight_role role, int rows,
                           int cols, const float *data, cf_bweight **out, cf_error *err) {
  const cf_weight_shape shape = {.role = role, .rows = rows, .cols = cols, .use = use};
  return upload_weight(be, &shape, data, out, err);
}

cf_status cf_op_weight(cf_backend *be, cf_weight_role role, int rows, int cols, const float *data,
                       cf_bweight **out, cf_error *err) {
  return cf_op_weight_use(be, CF_WEIGHT_USE_BODY, role, rows, cols, data, out, err);
}

cf_status cf_op_weight_rpe(cf_backend *be, cf_weight_role role, int heads, int rows, int cols,
                           const float *data, cf_bweight **out, cf_error *err) {
  *out = NULL;
  if (!cf_weight_role_is_rpe(role) || heads < 1 || cols % heads != 0)
    return cf_error_set(err, CF_ERR_INTERNAL,
                        "backend '%s': a relative position table of %d columns for %d heads",
                        be->desc->name, cols, heads);
  const cf_weight_shape shape = {.role = role, .rows = rows, .cols = cols, .heads = heads};
  return upload_weight(be, &shape, data, out, err);
}

void cf_op_weight_free(cf_backend *be, cf_bweight *w) {
  if (w) be->iface->weight_free(be->ctx, w);
}

void cf_op_linear(cf_backend *be, int rows, int in, int out, const float *x, const cf_bweight *w,
                  const cf_bweight *b, cf_op_act act, float *y) {
  be->iface->linear(be->ctx, rows, in, out, x, w, b, act, y);
}

void cf_iface_linear_positions(const cf_backend_iface *iface, void *ctx, int positions,
                               int rows_each, int in, int out, const float *x,
                               const cf_bweight *w, const cf_bweight *b, cf_op_act act, float *y) {
  if (iface->linear_positions)
    iface->linear_positions(ctx, positions, rows_each, in, out, x, w, b, act, y);
  else
    iface->linear(ctx, positions * rows_each, in, out, x, w, b, act, y);
}

void cf_op_linear_positions(cf_backend *be, int positions, int rows_each, int in, int out,
                            const float *x, const cf_bweight *w, const cf_bweight *b,
                            cf_op_act act, float *y) {
  cf_iface_linear_positions(be->iface, be->ctx, positions, rows_each, in, out, x, w, b, act, y);
}

void cf_op_norm(cf_backend *be, cf_norm_kind kind, int rows, int width, const float *x, float alpha,
                const float *skip, const cf_bweight *gamma, const cf_bweight *beta, float eps,
                float *y) {
  be->iface->norm(be->ctx, kind, rows, width, x, alpha, skip, gamma, beta, eps, y);
}

bool cf_backend_bf16_activations(const cf_backend *be) {
  return be->iface->bf16_activations && be->iface->bf16_activations(be->ctx);
}

bool cf_backend_attention_takes_bf16(const cf_backend *be, int batch, int depth) {
  return cf_backend_bf16_activations(be) && be->iface->attention_takes_bf16 &&
         be->iface->attention_takes_bf16(be->ctx, batch, depth);
}

void cf_op_linear_bf16(cf_backend *be, int rows, int in, int out, const void *x, bool x_bf16,
                       const cf_bweight *w, const cf_bweight *b, cf_op_act act, void *y,
                       bool y_bf16) {
  be->iface->linear_bf16(be->ctx, rows, in, out, x, x_bf16, w, b, act, y, y_bf16);
}

void cf_op_norm_bf16(cf_backend *be, cf_norm_kind kind, int rows, int width, const float *x,
                     float alpha, const float *skip, const cf_bweight *gamma,
                     const cf_bweight *beta, float eps, float *y, cf_bf16 *y_bf16) {
  be->iface->norm_bf16(be->ctx, kind, rows, width, x, alpha, skip, gamma, beta, eps, y, y_bf16);
}

void cf_op_attention(cf_backend *be, const cf_attention_args *args) {
  be->iface->attention(be->ctx, args);
}

void cf_op_gate(cf_backend *be, int batch, int d, float *x, const cf_bweight *mult,
                const cf_bweight *add) {
  be->iface->gate(be->ctx, batch, d, x, mult, add);
}

void cf_op_matmul_nt(cf_backend *be, int batch, int m, int n, int k, const float *a, const float *b,
                     float scale, float *c) {
  be->iface->matmul_nt(be->ctx, batch, m, n, k, a, b, scale, c);
}

void cf_op_copy_2d(cf_backend *be, int rows, int cols, const float *src, int ld_src, float *dst,
                   int ld_dst) {
  be->iface->copy_2d(be->ctx, rows, cols, src, ld_src, dst, ld_dst);
}

cf_status cf_op_sync(cf_backend *be, cf_error *err) {
  cf_status st = be->iface->sync(be->ctx, err);
  if (st != CF_OK) cf_error_prefix(err, "backend '%s'", be->desc->name);
  return st;
}
