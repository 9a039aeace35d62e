/* cf_onednn_backend.c: matmul primitives for linear, dnnl_sgemm for
 * matmul_nt, the shared CPU kernels for the rest. */
#include "backends/onednn/cf_onednn_backend.h"

#include <oneapi/dnnl/dnnl.h>
#include <omp.h>
#include <stdlib.h>

#include "backends/cpu/cf_cpu_internal.h"

/* One cached primitive and the memory objects it runs on (their data
 * handles are pointed at the caller's buffers on each call). */
typedef struct matmul_entry {
  int rows, in, out, act, has_bias;
  dnnl_memory_desc_t wei_md; /* the weights layout the primitive chose */
  bool wei_plain;            /* that layout is the weight's own ([out][in] = "ba") */
  dnnl_primitive_t prim;
  dnnl_memory_t src, wei, bias, dst;
} matmul_entry;

typedef struct onednn_ctx {
  cf_cpu_ctx cpu; /* first: the shared kernels take the context as a cf_cpu_ctx */
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  matmul_entry *cache; /* grows only when a new shape appears */
  int n_cache, cap_cache;
  /* Ops cannot fail; the first oneDNN failure is kept for sync. */
  dnnl_status_t failed;
  const char *failed_what;
} onednn_ctx;

static void record(onednn_ctx *c, dnnl_status_t s, const char *what) {
  if (s != dnnl_success && c->failed == dnnl_success) {
    c->failed = s;
    c->failed_what = what;
  }
}

static void entry_free(matmul_entry *e) {
  if (e->prim) dnnl_primitive_destroy(e->prim);
  dnnl_memory_t m[] = {e->src, e->wei, e->bias, e->dst};
  for (int i = 0; i < 4; i++)
    if (m[i]) dnnl_memory_destroy(m[i]);
}

static void od_destroy(void *ctx) {
  onednn_ctx *c = ctx;
  if (!c) return;
  for (int i = 0; i < c->n_cache; i++) entry_free(&c->cache[i]);
  free(c->cache);
  if (c->stream) dnnl_stream_destroy(c->stream);
  if (c->engine) dnnl_engine_destroy(c->engine);
  free(c);
}

static cf_status od_create(const cf_backend_config *cfg, void **ctx, cf_error *err) {
  onednn_ctx *c = calloc(1, sizeof *c);
  if (!c) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  cf_status st = cf_cpu_ctx_init(&c->cpu, cfg, err);
  if (st == CF_OK && dnnl_engine_create(&c->engine, dnnl_cpu, 0) != dnnl_success)
    st = cf_error_set(err, CF_ERR_BACKEND, "cannot create a oneDNN CPU engine");
  if (st == CF_OK &&
      dnnl_stream_create(&c->stream, c->engine, dnnl_stream_default_flags) != dnnl_success)
    st = cf_error_set(err, CF_ERR_BACKEND, "cannot create a oneDNN stream");
  if (st != CF_OK) {
    od_destroy(c);
    return st;
  }
  *ctx = c;
  return CF_OK;
}

/* Appends the eltwise post-ops computing act (some take two: selu is a
 * scaled elu, relu^2 a squared relu). */
static dnnl_status_t append_act(dnnl_post_ops_t po, cf_op_act act) {
  switch (act) {
    case CF_OP_ACT_NONE: return dnnl_success;
    case CF_OP_ACT_MISH: return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_mish, 0, 0);
    case CF_OP_ACT_RELU: return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0, 0);
    case CF_OP_ACT_TANH: return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_tanh, 0, 0);
    case CF_OP_ACT_SIGMOID:
      return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_logistic, 0, 0);
    case CF_OP_ACT_SWISH: return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_swish, 1, 0);
    case CF_OP_ACT_SELU: {
      dnnl_status_t s =
          dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_elu, 1.6732632423543772f, 0);
      if (s != dnnl_success) return s;
      return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_linear, 1.0507009873554805f, 0);
    }
    case CF_OP_ACT_RELU2: {
      dnnl_status_t s = dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0, 0);
      if (s != dnnl_success) return s;
      return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_square, 0, 0);
    }
  }
  return dnnl_invalid_arguments;
}

/* Builds the primitive for Y[rows][out] = act(X[rows][in] W^T + b) with W
 * the [out][in] weight read as a [in][out] matrix in "ba" order. */
static dnnl_status_t build(onednn_ctx *c, matmul_entry *e) {
  dnnl_memory_desc_t src_md, wei_md, bias_md, dst_md;
  dnnl_dims_t sd = {e->rows, e->in}, wd = {e->in, e->out}, bd = {1, e->out},
              dd = {e->rows, e->out};
  dnnl_status_t s = dnnl_memory_desc_init_by_tag(&src_md, 2, sd, dnnl_f32, dnnl_ab);
  dnnl_memory_desc_t plain_md;
  if (s == dnnl_success) s = dnnl_memory_desc_init_by_tag(&plain_md, 2, wd, dnnl_f32, dnnl_ba);
  /* "any": the primitive picks the weights layout it runs fastest on;
   * weights are reordered to it once (see weights_for). */
  if (s == dnnl_success) s = dnnl_memory_desc_init_by_tag(&wei_md, 2, wd, dnnl_f32, dnnl_format_tag_any);
  if (s == dnnl_success) s = dnnl_memory_desc_init_by_tag(&bias_md, 2, bd, dnnl_f32, dnnl_ab);
  if (s == dnnl_success) s = dnnl_memory_desc_init_by_tag(&dst_md, 2, dd, dnnl_f32, dnnl_ab);
  if (s != dnnl_success) return s;
  dnnl_matmul_desc_t md;
  s = dnnl_matmul_desc_init(&md, &src_md, &wei_md, e->has_bias ? &bias_md : NULL, &dst_md);
  if (s != dnnl_success) return s;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_post_ops_t po = NULL;
  dnnl_primitive_desc_t pd = NULL;
  s = dnnl_primitive_attr_create(&attr);
  if (s == dnnl_success) s = dnnl_post_ops_create(&po);
  if (s == dnnl_success) s = append_act(po, (cf_op_act)e->act);
  if (s == dnnl_success) s = dnnl_primitive_attr_set_post_ops(attr, po);
  if (s == dnnl_success) s = dnnl_primitive_desc_create(&pd, &md, attr, c->engine, NULL);
  if (s == dnnl_success) s = dnnl_primitive_create(&e->prim, pd);
  if (s == dnnl_success) {
    e->wei_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    e->wei_plain = dnnl_memory_desc_equal(&e->wei_md, &plain_md);
  }
  if (pd) dnnl_primitive_desc_destroy(pd);
  if (po) dnnl_post_ops_destroy(po);
  if (attr) dnnl_primitive_attr_destroy(attr);
  if (s != dnnl_success) return s;
  s = dnnl_memory_create(&e->src, &src_md, c->engine, DNNL_MEMORY_NONE);
  if (s == dnnl_success)
    s = dnnl_memory_create(&e->wei, &e->wei_md, c->engine, DNNL_MEMORY_NONE);
  if (s == dnnl_success && e->has_bias)
    s = dnnl_memory_create(&e->bias, &bias_md, c->engine, DNNL_MEMORY_NONE);
  if (s == dnnl_success) s = dnnl_memory_create(&e->dst, &dst_md, c->engine, DNNL_MEMORY_NONE);
  return s;
}

/* The cached primitive for a shape, built on first use; NULL on failure. */
static matmul_entry *lookup(onednn_ctx *c, int rows, int in, int out, cf_op_act act,
                            int has_bias) {
  for (int i = 0; i < c->n_cache; i++) {
    matmul_entry *e = &c->cache[i];
    if (e->rows == rows && e->in == in && e->out == out && e->act == (int)act &&
        e->has_bias == has_bias)
      return e;
  }
  if (c->n_cache == c->cap_cache) {
    int cap = c->cap_cache ? 2 * c->cap_cache : 32;
    matmul_entry *grown = realloc(c->cache, (size_t)cap * sizeof *grown);
    if (!grown) {
      record(c, dnnl_out_of_memory, "growing the matmul cache");
      return NULL;
    }
    c->cache = grown;
    c->cap_cache = cap;
  }
  matmul_entry *e = &c->cache[c->n_cache];
  *e = (matmul_entry){.rows = rows, .in = in, .out = out, .act = (int)act, .has_bias = has_bias};
  dnnl_status_t s = build(c, e);
  if (s != dnnl_success) {
    entry_free(e);
    record(c, s, "creating a matmul primitive");
    return NULL;
  }
  c->n_cache++;
  return e;
}

/* Reordered copies of one weight, one per layout a primitive asked for
 * (usually one; a few when different batch sizes pick different blocks).
 * Kept in the weight's `extra`, made once, freed with the weight. */
enum { MAX_LAYOUTS = 4 };
typedef struct reordered {
  int n;
  dnnl_memory_desc_t md[MAX_LAYOUTS];
  float *data[MAX_LAYOUTS];
} reordered;

static void reordered_free(void *p) {
  reordered *r = p;
  for (int i = 0; i < r->n; i++) cf_cpu_free(r->data[i]);
  free(r);
}

/* Copies plain (the weight's [out][in] data, "ba") into layout md. */
static dnnl_status_t reorder(onednn_ctx *c, const dnnl_memory_desc_t *plain_md, float *plain,
                             const dnnl_memory_desc_t *md, float *dst) {
  dnnl_primitive_desc_t pd = NULL;
  dnnl_primitive_t prim = NULL;
  dnnl_memory_t from = NULL, to = NULL;
  dnnl_status_t s = dnnl_reorder_primitive_desc_create(&pd, plain_md, c->engine, md, c->engine, NULL);
  if (s == dnnl_success) s = dnnl_primitive_create(&prim, pd);
  if (s == dnnl_success) s = dnnl_memory_create(&from, plain_md, c->engine, plain);
  if (s == dnnl_success) s = dnnl_memory_create(&to, md, c->engine, dst);
  if (s == dnnl_success) {
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    s = dnnl_primitive_execute(prim, c->stream, 2, args);
  }
  if (s == dnnl_success) s = dnnl_stream_wait(c->stream);
  if (to) dnnl_memory_destroy(to);
  if (from) dnnl_memory_destroy(from);
  if (prim) dnnl_primitive_destroy(prim);
  if (pd) dnnl_primitive_desc_destroy(pd);
  return s;
}

/* The weight's data in the layout entry e wants; NULL on failure. */
static float *weights_for(onednn_ctx *c, const matmul_entry *e, const cf_bweight *cw) {
  if (e->wei_plain) return cw->data;
  cf_bweight *w = (cf_bweight *)cw; /* a cache, not a change of value */
  reordered *r = w->extra;
  if (!r) {
    r = calloc(1, sizeof *r);
    if (!r) return NULL;
    w->extra = r;
    w->extra_free = reordered_free;
  }
  for (int i = 0; i < r->n; i++)
    if (dnnl_memory_desc_equal(&r->md[i], &e->wei_md)) return r->data[i];
  if (r->n == MAX_LAYOUTS) return NULL;
  float *dst = cf_cpu_alloc((dnnl_memory_desc_get_size(&e->wei_md) + 3) / 4);
  if (!dst) return NULL;
  dnnl_memory_desc_t plain_md;
  dnnl_dims_t wd = {e->in, e->out};
  dnnl_status_t s = dnnl_memory_desc_init_by_tag(&plain_md, 2, wd, dnnl_f32, dnnl_ba);
  if (s == dnnl_success) s = reorder(c, &plain_md, w->data, &e->wei_md, dst);
  if (s != dnnl_success) {
    cf_cpu_free(dst);
    record(c, s, "reordering weights");
    return NULL;
  }
  r->md[r->n] = e->wei_md;
  r->data[r->n++] = dst;
  return dst;
}

static void od_linear(void *ctx, int rows, int in, int out, const float *x, const cf_bweight *w,
                      const cf_bweight *b, cf_op_act act, float *y) {
  onednn_ctx *c = ctx;
  if (rows <= 0) return;
  matmul_entry *e = lookup(c, rows, in, out, act, b != NULL);
  if (!e) return;
  omp_set_num_threads(c->cpu.threads);
  float *wd = weights_for(c, e, w);
  if (!wd) {
    record(c, dnnl_out_of_memory, "keeping reordered weights");
    return;
  }
  dnnl_memory_set_data_handle(e->src, (void *)x);
  dnnl_memory_set_data_handle(e->wei, wd);
  if (b) dnnl_memory_set_data_handle(e->bias, b->data);
  dnnl_memory_set_data_handle(e->dst, y);
  dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, e->src},
                             {DNNL_ARG_WEIGHTS, e->wei},
                             {DNNL_ARG_DST, e->dst},
                             {DNNL_ARG_BIAS, e->bias}};
  record(c, dnnl_primitive_execute(e->prim, c->stream, b ? 4 : 3, args), "running a matmul");
  record(c, dnnl_stream_wait(c->stream), "waiting for a matmul");
}

static void od_matmul_nt(void *ctx, int batch, int m, int n, int k, const float *a,
                         const float *bm, float scale, float *cm) {
  onednn_ctx *c = ctx;
  omp_set_num_threads(c->cpu.threads);
  for (int b = 0; b < batch; b++)
    record(c,
           dnnl_sgemm('N', 'T', m, n, k, scale, a + (size_t)b * m * k, k, bm + (size_t)b * n * k,
                      k, 0.0f, cm + (size_t)b * m * n, n),
           "running sgemm");
}

static cf_status od_sync(void *ctx, cf_error *err) {
  onednn_ctx *c = ctx;
  if (c->failed == dnnl_success) return CF_OK;
  dnnl_status_t s = c->failed;
  c->failed = dnnl_success;
  return cf_error_set(err, s == dnnl_out_of_memory ? CF_ERR_NOMEM : CF_ERR_BACKEND,
                      "oneDNN failed %s (dnnl status %d)", c->failed_what, (int)s);
}

static const cf_backend_iface onednn_iface = {
    .create = od_create,
    .destroy = od_destroy,
    .alloc = cf_cpu_iface_alloc,
    .free = cf_cpu_iface_free,
    .upload = cf_cpu_iface_copy,
    .download = cf_cpu_iface_copy,
    .weight_create = cf_cpu_weight_create,
    .weight_free = cf_cpu_weight_free,
    .linear = od_linear,
    .norm = cf_cpu_norm,
    .attention = cf_cpu_attention,
    .gate = cf_cpu_gate,
    .matmul_nt = od_matmul_nt,
    .copy_2d = cf_cpu_copy_2d,
    .sync = od_sync,
    .variant = cf_cpu_kernels_name,
    .layer_chunk_bytes = cf_cpu_layer_chunk_bytes,
};

const cf_backend_desc cf_backend_onednn_desc = {
    .name = "onednn",
    .summary = "oneDNN matmul primitives (fused bias + activation) + CPU kernels, avx2 or "
               "portable by CPU (options: threads=N)",
    .priority = 30,
    .features = CF_CPU_FEATURES,
    .activations = CF_CPU_ACTIVATIONS,
    .probe = NULL,
    .iface = &onednn_iface,
};
