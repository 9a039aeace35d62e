/* cf_ref_backend.c: the reference backend's memory, weights and op table.
 * Its memory is plain host memory, so upload/download are memcpy. */
#include "backends/ref/cf_ref_backend.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cf_kv.h"
#include "backends/ref/cf_ref_internal.h"

/* The reference computes on the calling thread and needs no state, except
 * for two testing aids: `fail_after=N` makes every sync after the first N
 * report a backend failure, as a GPU backend reports a failed launch, so the
 * callers' error paths (a network failing in the middle of a search) can be
 * tested on any machine; `create_delay_ms=N` makes creation take N ms more,
 * as a huge file on a slow disk or a GPU backend building its kernels
 * would, so a caller's handling of a slow network load (the engine keeps
 * reading its input) can be tested. */
typedef struct ref_ctx {
  int max_batch;
  int fail_after; /* -1 = never */
  long syncs;
} ref_ctx;

static cf_status ref_create(const cf_backend_config *cfg, void **ctx, cf_error *err) {
  /* threads=1 is accepted so one option string can be handed to every
   * backend; the reference runs on the calling thread only. */
  int threads = 1, fail_after = -1, delay_ms = 0;
  CF_TRY(cf_kv_get_int(cfg->kv, "threads", 1, 1, &threads, err));
  CF_TRY(cf_kv_get_int(cfg->kv, "fail_after", 0, 1000000000, &fail_after, err));
  CF_TRY(cf_kv_get_int(cfg->kv, "create_delay_ms", 0, 600000, &delay_ms, err));
  if (delay_ms > 0) {
    struct timespec ts = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
  }
  ref_ctx *c = calloc(1, sizeof *c);
  if (!c) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  c->max_batch = cfg->max_batch;
  c->fail_after = fail_after;
  *ctx = c;
  return CF_OK;
}

static cf_status ref_sync(void *ctx, cf_error *err) {
  ref_ctx *c = ctx;
  if (c->fail_after < 0 || c->syncs++ < c->fail_after) return CF_OK;
  return cf_error_set(err, CF_ERR_BACKEND, "injected failure after %d network passes (fail_after)",
                      c->fail_after);
}

static void ref_destroy(void *ctx) { free(ctx); }

static float *ref_alloc(void *ctx, size_t n, cf_error *err) {
  (void)ctx;
  float *p = calloc(n ? n : 1, sizeof(float));
  if (!p) cf_error_set(err, CF_ERR_NOMEM, "calloc of %zu floats failed", n);
  return p;
}

static void ref_free(void *ctx, float *p) {
  (void)ctx;
  free(p);
}

static void ref_copy(void *ctx, float *dst, const float *src, size_t n) {
  (void)ctx;
  if (n) memcpy(dst, src, n * sizeof(float));
}

static cf_bweight *ref_weight_create(void *ctx, const cf_weight_shape *shape, const float *data,
                                     cf_error *err) {
  (void)ctx;
  const cf_weight_role role = shape->role;
  const int rows = shape->rows, cols = shape->cols;
  size_t n = (size_t)rows * (size_t)cols;
  cf_bweight *w = malloc(sizeof *w + n * sizeof(float));
  if (!w) {
    cf_error_set(err, CF_ERR_NOMEM, "malloc of %zu floats failed", n);
    return NULL;
  }
  w->role = role;
  w->rows = rows;
  w->cols = cols;
  if (role == CF_WEIGHT_MATRIX) {
    /* data[o][i] -> w->data[i][o] */
    for (int o = 0; o < rows; o++)
      for (int i = 0; i < cols; i++) w->data[(size_t)i * rows + o] = data[(size_t)o * cols + i];
  } else {
    memcpy(w->data, data, n * sizeof(float));
  }
  return w;
}

static void ref_weight_free(void *ctx, cf_bweight *w) {
  (void)ctx;
  free(w);
}

static const cf_backend_iface ref_iface = {
    .create = ref_create,
    .destroy = ref_destroy,
    .alloc = ref_alloc,
    .free = ref_free,
    .upload = ref_copy,
    .download = ref_copy,
    .weight_create = ref_weight_create,
    .weight_free = ref_weight_free,
    .linear = cf_ref_linear,
    .norm = cf_ref_norm,
    .attention = cf_ref_attention,
    .gate = cf_ref_gate,
    .matmul_nt = cf_ref_matmul_nt,
    .copy_2d = cf_ref_copy_2d,
    .sync = ref_sync, /* synchronous; fails only when told to (fail_after) */
};

#define ALL_ACTS                                                                 \
  ((1u << CF_OP_ACT_MISH) | (1u << CF_OP_ACT_RELU) | (1u << CF_OP_ACT_NONE) |    \
   (1u << CF_OP_ACT_TANH) | (1u << CF_OP_ACT_SIGMOID) | (1u << CF_OP_ACT_SELU) | \
   (1u << CF_OP_ACT_SWISH) | (1u << CF_OP_ACT_RELU2))

const cf_backend_desc cf_backend_ref_desc = {
    .name = "ref",
    .summary = "plain C float32 reference (single thread; the oracle, not fast)",
    .priority = 0,
    .features = CF_FEAT_RPE_Q | CF_FEAT_RPE_K | CF_FEAT_RPE_V | CF_FEAT_SMOLGEN | CF_FEAT_RMS_NORM |
                CF_FEAT_GATING,
    .activations = ALL_ACTS,
    .probe = NULL,
    .iface = &ref_iface,
    .default_minibatch = 8,
};
