/* cf_onednn_linear.c: the oneDNN backend's projections: a matmul
 * primitive per shape (bias and activation fused as post-ops, or the int8
 * epilogue), built on first use or at prepare and cached, weights
 * reordered once per layout a primitive picks, reduced-precision inputs
 * converted a block of rows at a time. */
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <stdlib.h>

#include "backends/cf_backend_fault.h"
#include "backends/onednn/cf_onednn_internal.h"

void cf_onednn_record(onednn_ctx *c, dnnl_status_t s, const char *op, const char *call) {
  if (s == dnnl_success) return;
  cf_backend_note_failure(&c->cpu.first, s == dnnl_out_of_memory ? CF_ERR_NOMEM : CF_ERR_BACKEND,
                          op, "%s: %s", call, dnnl_status2str(s));
}

/* The fault_alloc testing hook (cf_backend_fault.h) before an allocation
 * a linear makes: true, with the failure kept for sync, when this is the
 * one to fail. */
bool cf_onednn_injected(onednn_ctx *c) {
  cf_error e = {0};
  if (!cf_backend_fault_alloc(c->cpu.fault, &e)) return false;
  cf_backend_note_failure(&c->cpu.first, e.status, "linear", "%s", e.msg);
  return true;
}

void cf_onednn_entry_free(matmul_entry *e) {
  if (e->prim) dnnl_primitive_destroy(e->prim);
  dnnl_memory_t m[] = {e->src, e->wei, e->bias, e->dst};
  for (int i = 0; i < 4; i++)
    if (m[i]) dnnl_memory_destroy(m[i]);
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

static dnnl_data_type_t weight_type(cf_precision p) {
  return p == CF_PRECISION_BF16 ? dnnl_bf16 : p == CF_PRECISION_INT8 ? dnnl_s8 : dnnl_f32;
}

/* int8 inputs are u8 (cf_onednn_precision.h): int8 runs only where
 * oneDNN has VNNI or AMX (cf_onednn_precision_check), which multiply u8 by
 * s8 without saturating. */
static dnnl_data_type_t input_type(cf_precision p) {
  return p == CF_PRECISION_INT8 ? dnnl_u8 : weight_type(p);
}

/* Builds the primitive for Y[rows][out] = act(X[rows][in] W^T + b) with W
 * the [out][in] weight read as a [in][out] matrix in "ba" order, X and W
 * in e->prec's type. int8: the primitive computes only the integer
 * products Y = Xq Wq^T in int32 (X as u8: input_type); the caller
 * then takes off the u8 offset and applies the row and channel scales, the
 * bias and the activation in one pass (cf_onednn_int8_epilogue). u8 x s8
 * runs 1.2-1.3x oneDNN's s8 x s8 (which adds 128 to the input and
 * compensates inside) at the blocked shapes on an Intel Xeon with
 * AVX512_VNNI (docs/results/2026-12-02-int8-u8-inputs.md). In oneDNN 2.6
 * the fast int8 kernels (brgemm) take neither a per-row scale (a [rows][1]
 * binary post-op sends the matmul to the reference kernel) nor scales
 * given at run time (those go to a slower gemm); channel scales fixed at
 * creation would need one primitive per weight and shape, and the row
 * scale would still need this pass (it comes before the bias); one scale
 * per call would make a position's result depend on the rest of its
 * batch. */
static dnnl_status_t build(onednn_ctx *c, matmul_entry *e) {
  const dnnl_data_type_t dt = weight_type(e->prec);
  const bool int8 = e->prec == CF_PRECISION_INT8;
  dnnl_memory_desc_t src_md, wei_md, bias_md, dst_md;
  dnnl_dims_t sd = {e->rows, e->in}, wd = {e->in, e->out}, bd = {1, e->out},
              dd = {e->rows, e->out};
  dnnl_status_t s =
      dnnl_memory_desc_init_by_tag(&src_md, 2, sd, input_type(e->prec), dnnl_ab);
  dnnl_memory_desc_t plain_md;
  if (s == dnnl_success) s = dnnl_memory_desc_init_by_tag(&plain_md, 2, wd, dt, dnnl_ba);
  /* "any": the primitive picks the weights layout it runs fastest on;
   * weights are reordered to it once (see weights_for). */
  if (s == dnnl_success) s = dnnl_memory_desc_init_by_tag(&wei_md, 2, wd, dt, dnnl_format_tag_any);
  if (s == dnnl_success) s = dnnl_memory_desc_init_by_tag(&bias_md, 2, bd, dnnl_f32, dnnl_ab);
  const dnnl_data_type_t dst_dt = int8 ? dnnl_s32 : e->bf16_dst ? dnnl_bf16 : dnnl_f32;
  if (s == dnnl_success) s = dnnl_memory_desc_init_by_tag(&dst_md, 2, dd, dst_dt, dnnl_ab);
  if (s != dnnl_success) return s;
  dnnl_matmul_desc_t md;
  s = dnnl_matmul_desc_init(&md, &src_md, &wei_md, e->has_bias && !int8 ? &bias_md : NULL,
                            &dst_md);
  if (s != dnnl_success) return s;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_post_ops_t po = NULL;
  dnnl_primitive_desc_t pd = NULL;
  s = dnnl_primitive_attr_create(&attr);
  if (s == dnnl_success) s = dnnl_post_ops_create(&po);
  if (s == dnnl_success && !int8) s = append_act(po, (cf_op_act)e->act);
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
  if (s == dnnl_success && e->has_bias && !int8)
    s = dnnl_memory_create(&e->bias, &bias_md, c->engine, DNNL_MEMORY_NONE);
  if (s == dnnl_success) s = dnnl_memory_create(&e->dst, &dst_md, c->engine, DNNL_MEMORY_NONE);
  return s;
}

/* The cached primitive for a shape, built on first use; NULL on failure. */
static matmul_entry *lookup(onednn_ctx *c, int rows, int in, int out, cf_op_act act,
                            int has_bias, cf_precision prec, bool bf16_dst) {
  for (int i = 0; i < c->n_cache; i++) {
    matmul_entry *e = &c->cache[i];
    if (e->rows == rows && e->in == in && e->out == out && e->act == (int)act &&
        e->has_bias == has_bias && e->prec == prec && e->bf16_dst == bf16_dst)
      return e;
  }
  if (c->n_cache == c->cap_cache) {
    int cap = c->cap_cache ? 2 * c->cap_cache : 32;
    matmul_entry *grown = realloc(c->cache, (size_t)cap * sizeof *grown);
    if (!grown) {
      cf_onednn_record(c, dnnl_out_of_memory, "linear", "realloc of the matmul cache");
      return NULL;
    }
    c->cache = grown;
    c->cap_cache = cap;
  }
  matmul_entry *e = &c->cache[c->n_cache];
  *e = (matmul_entry){.rows = rows, .in = in, .out = out, .act = (int)act,
                      .has_bias = has_bias, .prec = prec, .bf16_dst = bf16_dst};
  if (cf_onednn_injected(c)) return NULL;
  dnnl_status_t s = build(c, e);
  if (s != dnnl_success) {
    cf_onednn_entry_free(e);
    cf_onednn_record(c, s, "linear", "creating a matmul primitive (dnnl_primitive_create)");
    return NULL;
  }
  c->n_cache++;
  c->builds++;
  return e;
}

void cf_onednn_weight_extra_free(void *p) {
  od_weight *r = p;
  for (int i = 0; i < r->n; i++) cf_cpu_free(r->data[i]);
  cf_onednn_lowp_free(&r->lowp);
  free(r);
}

cf_precision cf_onednn_precision_of(const cf_bweight *w) {
  const od_weight *r = w->extra;
  return r ? r->lowp.precision : CF_PRECISION_F32;
}


/* Copies plain (the weight's [out][in] data, "ba") into layout md. */
static dnnl_status_t reorder(onednn_ctx *c, const dnnl_memory_desc_t *plain_md, void *plain,
                             const dnnl_memory_desc_t *md, void *dst) {
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
static void *weights_for(onednn_ctx *c, const matmul_entry *e, const cf_bweight *cw) {
  cf_bweight *w = (cf_bweight *)cw; /* a cache, not a change of value */
  od_weight *r = w->extra;
  void *plain = r && r->lowp.plain ? r->lowp.plain : (void *)w->data;
  if (e->wei_plain) return plain;
  if (!r) {
    r = calloc(1, sizeof *r);
    if (!r) {
      cf_onednn_record(c, dnnl_out_of_memory, "linear", "calloc of a weight's layout record");
      return NULL;
    }
    w->extra = r;
    w->extra_free = cf_onednn_weight_extra_free;
  }
  for (int i = 0; i < r->n; i++)
    if (dnnl_memory_desc_equal(&r->md[i], &e->wei_md)) return r->data[i];
  if (r->n == MAX_LAYOUTS) {
    cf_backend_note_failure(&c->cpu.first, CF_ERR_BACKEND, "linear",
                            "a weight wanted a layout beyond the %d kept", MAX_LAYOUTS);
    return NULL;
  }
  if (cf_onednn_injected(c)) return NULL;
  float *dst = cf_cpu_alloc((dnnl_memory_desc_get_size(&e->wei_md) + 3) / 4);
  if (!dst) {
    cf_onednn_record(c, dnnl_out_of_memory, "linear", "aligned_alloc of reordered weights");
    return NULL;
  }
  dnnl_memory_desc_t plain_md;
  dnnl_dims_t wd = {e->in, e->out};
  dnnl_status_t s = dnnl_memory_desc_init_by_tag(&plain_md, 2, wd, weight_type(e->prec), dnnl_ba);
  if (s == dnnl_success) s = reorder(c, &plain_md, plain, &e->wei_md, dst);
  if (s != dnnl_success) {
    cf_cpu_free(dst);
    cf_onednn_record(c, s, "linear", "reordering weights (dnnl_reorder)");
    return NULL;
  }
  r->md[r->n] = e->wei_md;
  r->data[r->n++] = dst;
  c->builds++;
  return dst;
}

/* c->xbuf holding at least `floats` floats, xscale `rows` and acc
 * `products`; false when out of memory. */
static bool scratch(onednn_ctx *c, size_t floats, size_t rows, size_t products) {
  if (floats > c->xbuf_floats) {
    cf_cpu_free(c->xbuf);
    c->xbuf = cf_onednn_injected(c) ? NULL : cf_cpu_alloc(floats);
    c->xbuf_floats = c->xbuf ? floats : 0;
    if (!c->xbuf) return false;
    c->builds++;
  }
  if (rows > c->xscale_floats) {
    cf_cpu_free(c->xscale);
    c->xscale = cf_cpu_alloc(rows);
    c->xscale_floats = c->xscale ? rows : 0;
    if (!c->xscale) return false;
    c->builds++;
  }
  if (products > c->acc_values) {
    cf_cpu_free((float *)c->acc);
    /* Aligned floats and int32 values are the same size. */
    c->acc = (int32_t *)cf_cpu_alloc(products);
    c->acc_values = c->acc ? products : 0;
    if (!c->acc) return false;
    c->builds++;
  }
  return true;
}

/* One matmul on rows already in e's input type at src, y[rows][out]
 * (int8: int32 products). */
static dnnl_status_t run_matmul(onednn_ctx *c, matmul_entry *e, const void *src, void *wd,
                                const cf_bweight *b, void *y) {
  dnnl_memory_set_data_handle(e->src, (void *)src);
  dnnl_memory_set_data_handle(e->wei, wd);
  dnnl_memory_set_data_handle(e->dst, y);
  dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, e->src}, {DNNL_ARG_WEIGHTS, e->wei},
                             {DNNL_ARG_DST, e->dst}};
  int n = 3;
  if (b && e->prec != CF_PRECISION_INT8) {
    dnnl_memory_set_data_handle(e->bias, b->data);
    args[n++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, e->bias};
  }
  dnnl_status_t s = dnnl_primitive_execute(e->prim, c->stream, n, args);
  if (s == dnnl_success) s = dnnl_stream_wait(c->stream);
  return s;
}

/* Rows per block of a reduced-precision projection: the block's converted
 * input (and for int8 its float output) stays in the cores' L2 (about
 * L2_BLOCK_BYTES per thread) between the conversion, the matmul and the
 * int8 epilogue, instead of each pass streaming the whole call through
 * memory (the epilogue's share of an int8 run fell from about 9.6% to 6.6%
 * on CF-6M at batch 256; 1 MB per thread measured the same). It also
 * bounds the shapes a varying batch size creates primitives for: full
 * blocks plus a few remainders. A multiple of 64 (a position's tokens),
 * at least 64. */
enum { L2_BLOCK_BYTES = 384 * 1024 };
static int block_rows(const onednn_ctx *c, int in, int out, cf_precision prec) {
  /* int8 reads its int32 products again (the epilogue); bf16 does not. */
  const size_t per_row = prec == CF_PRECISION_BF16 ? (size_t)in * 2 : (size_t)in + (size_t)out * 4;
  size_t r = (size_t)L2_BLOCK_BYTES * (size_t)c->cpu.threads / per_row / 64 * 64;
  return r < 64 ? 64 : r > (1u << 30) ? 1 << 30 : (int)r;
}

/* The primitive for rows x in -> out in w's precision (writing bf16 where
 * bf16_dst) and w's weights in its layout (*wd); NULL, with the failure
 * recorded, when either fails. */
static matmul_entry *prepared(onednn_ctx *c, int rows, int in, int out, cf_op_act act,
                              const cf_bweight *w, const cf_bweight *b, bool bf16_dst,
                              void **wd) {
  matmul_entry *e =
      lookup(c, rows, in, out, act, b != NULL, cf_onednn_precision_of(w), bf16_dst);
  if (!e) return NULL;
  *wd = weights_for(c, e, w); /* records its own failure */
  return *wd ? e : NULL;
}

bool cf_onednn_linear_rows(onednn_ctx *c, int rows, int in, int out, const void *x, bool x_bf16,
                           const cf_bweight *w, const cf_bweight *b, cf_op_act act, void *y,
                           bool y_bf16, bool run) {
  const cf_precision prec = cf_onednn_precision_of(w);
  void *wd;
  const bool int8 = prec == CF_PRECISION_INT8;
  if ((x_bf16 || y_bf16) && prec != CF_PRECISION_BF16) {
    /* Only bf16 instances whose body matrices are all bf16 keep bf16
     * activations (od_bf16_activations). */
    cf_backend_note_failure(&c->cpu.first, CF_ERR_INTERNAL, "linear",
                            "bf16 activations into a %s weight", cf_precision_name(prec));
    return false;
  }
  if (prec == CF_PRECISION_F32) {
    matmul_entry *e = prepared(c, rows, in, out, act, w, b, false, &wd);
    if (e && run)
      cf_onednn_record(c, run_matmul(c, e, x, wd, b, y), "linear", "dnnl_primitive_execute");
    return e != NULL;
  }
  const int block = block_rows(c, in, out, prec);
  const int nb = rows < block ? rows : block;
  /* bf16 takes 2 bytes per value, int8 1: half a float covers both. */
  const size_t products = int8 ? (size_t)nb * out : 0;
  if (!scratch(c, ((size_t)nb * in + 1) / 2, (size_t)nb, products)) {
    cf_onednn_record(c, dnnl_out_of_memory, "linear", "allocating the converted input");
    return false;
  }
  const od_weight *r = w->extra;
  for (int r0 = 0; r0 < rows; r0 += block) {
    const int n = rows - r0 < block ? rows - r0 : block;
    matmul_entry *e = prepared(c, n, in, out, act, w, b, y_bf16, &wd);
    if (!e) return false;
    if (!run) continue;
    const size_t xo = (size_t)r0 * in, yo = (size_t)r0 * out;
    const void *src = c->xbuf;
    if (x_bf16) src = (const cf_bf16 *)x + xo;
    else if (!int8) cf_onednn_to_bf16(&c->cpu, n, in, (const float *)x + xo, c->xbuf);
    else cf_onednn_quantize_rows(&c->cpu, n, in, (const float *)x + xo, c->xbuf, c->xscale);
    void *dst = int8     ? (void *)c->acc
                : y_bf16 ? (void *)((cf_bf16 *)y + yo)
                         : (void *)((float *)y + yo);
    dnnl_status_t s = run_matmul(c, e, src, wd, b, dst);
    cf_onednn_record(c, s, "linear", "dnnl_primitive_execute");
    if (s != dnnl_success) return false;
    if (int8)
      cf_onednn_int8_epilogue(&c->cpu, n, out, c->acc, r->lowp.u8_offset, c->xscale,
                              r->lowp.scales, b ? b->data : NULL, act, (float *)y + yo);
  }
  return true;
}
