/* cf_onednn_bmm.c: the batched A B^T primitives (see the header). */
#include "backends/onednn/cf_onednn_bmm.h"

#include <stdlib.h>

struct cf_onednn_bmm {
  int batch, m, k, n;
  cf_precision p;
  bool a_u8;
  dnnl_primitive_t prim;
  dnnl_memory_t a, b, c; /* data handles pointed at the caller's buffers per call */
};

static void bmm_free(cf_onednn_bmm *e) {
  if (!e) return;
  if (e->prim) dnnl_primitive_destroy(e->prim);
  if (e->a) dnnl_memory_destroy(e->a);
  if (e->b) dnnl_memory_destroy(e->b);
  if (e->c) dnnl_memory_destroy(e->c);
  free(e);
}

static dnnl_status_t build(cf_onednn_bmm *e, dnnl_engine_t engine) {
  const dnnl_data_type_t dt =
      e->p == CF_PRECISION_BF16 ? dnnl_bf16 : e->p == CF_PRECISION_INT8 ? dnnl_s8 : dnnl_f32;
  dnnl_dims_t ad = {e->batch, e->m, e->k}, bd = {e->batch, e->k, e->n},
              cd = {e->batch, e->m, e->n};
  dnnl_memory_desc_t a_md, b_md, c_md;
  dnnl_status_t s = dnnl_memory_desc_init_by_tag(&a_md, 3, ad, e->a_u8 ? dnnl_u8 : dt, dnnl_abc);
  /* acb: B's [K][N] view of a [N][K] buffer, the transpose for free. */
  if (s == dnnl_success) s = dnnl_memory_desc_init_by_tag(&b_md, 3, bd, dt, dnnl_acb);
  if (s == dnnl_success) s = dnnl_memory_desc_init_by_tag(&c_md, 3, cd, dnnl_f32, dnnl_abc);
  dnnl_matmul_desc_t md;
  if (s == dnnl_success) s = dnnl_matmul_desc_init(&md, &a_md, &b_md, NULL, &c_md);
  dnnl_primitive_desc_t pd = NULL;
  if (s == dnnl_success) s = dnnl_primitive_desc_create(&pd, &md, NULL, engine, NULL);
  if (s == dnnl_success) s = dnnl_primitive_create(&e->prim, pd);
  if (pd) dnnl_primitive_desc_destroy(pd);
  if (s == dnnl_success) s = dnnl_memory_create(&e->a, &a_md, engine, DNNL_MEMORY_NONE);
  if (s == dnnl_success) s = dnnl_memory_create(&e->b, &b_md, engine, DNNL_MEMORY_NONE);
  if (s == dnnl_success) s = dnnl_memory_create(&e->c, &c_md, engine, DNNL_MEMORY_NONE);
  return s;
}

cf_onednn_bmm *cf_onednn_bmm_get(cf_onednn_bmm_cache *cache, dnnl_engine_t engine, int batch,
                                 int m, int k, int n, cf_precision p, bool a_u8,
                                 dnnl_status_t *s) {
  a_u8 = a_u8 && p == CF_PRECISION_INT8;
  for (int i = 0; i < cache->n; i++) {
    cf_onednn_bmm *e = cache->v[i];
    if (e->batch == batch && e->m == m && e->k == k && e->n == n && e->p == p && e->a_u8 == a_u8)
      return e;
  }
  *s = dnnl_out_of_memory;
  if (cache->n == cache->cap) {
    const int cap = cache->cap ? 2 * cache->cap : 32;
    cf_onednn_bmm **grown = realloc(cache->v, (size_t)cap * sizeof *grown);
    if (!grown) return NULL;
    cache->v = grown;
    cache->cap = cap;
  }
  cf_onednn_bmm *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  *e = (cf_onednn_bmm){.batch = batch, .m = m, .k = k, .n = n, .p = p, .a_u8 = a_u8};
  *s = build(e, engine);
  if (*s != dnnl_success) {
    bmm_free(e);
    return NULL;
  }
  cache->v[cache->n++] = e;
  if (cache->builds) ++*cache->builds;
  return e;
}

dnnl_status_t cf_onednn_bmm_run(cf_onednn_bmm *e, dnnl_stream_t stream, const void *a,
                                const void *b, float *c) {
  dnnl_memory_set_data_handle(e->a, (void *)a);
  dnnl_memory_set_data_handle(e->b, (void *)b);
  dnnl_memory_set_data_handle(e->c, c);
  dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, e->a}, {DNNL_ARG_WEIGHTS, e->b}, {DNNL_ARG_DST, e->c}};
  dnnl_status_t s = dnnl_primitive_execute(e->prim, stream, 3, args);
  return s == dnnl_success ? dnnl_stream_wait(stream) : s;
}

void cf_onednn_bmm_cache_free(cf_onednn_bmm_cache *cache) {
  for (int i = 0; i < cache->n; i++) bmm_free(cache->v[i]);
  free(cache->v);
  cache->v = NULL;
  cache->n = cache->cap = 0;
}
