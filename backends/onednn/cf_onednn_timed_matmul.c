/* cf_onednn_timed_matmul.c: see the header. */
#include "backends/onednn/cf_onednn_timed_matmul.h"

#include <stdint.h>

#include "common/cf_clock.h"

/* The weights' bytes are filled in whatever layout the primitive picked,
 * which a timing does not care about. */
static dnnl_status_t fill(dnnl_memory_t m, const dnnl_memory_desc_t *md, dnnl_data_type_t dt) {
  void *h = NULL;
  dnnl_status_t s = dnnl_memory_get_data_handle(m, &h);
  if (s != dnnl_success) return s;
  const size_t bytes = dnnl_memory_desc_get_size(md);
  if (dt == dnnl_bf16) {
    uint16_t *v = h;
    for (size_t i = 0; i < bytes / 2; i++) v[i] = (uint16_t)(0x3f80u + (i * 7u) % 13u);
  } else if (dt == dnnl_f32) {
    float *v = h;
    for (size_t i = 0; i < bytes / 4; i++) v[i] = 1.0f + (float)((i * 7u) % 13u) / 16.0f;
  } else {
    uint8_t *v = h;
    for (size_t i = 0; i < bytes; i++) v[i] = (uint8_t)((i * 7u) % 13u);
  }
  return dnnl_success;
}

dnnl_status_t cf_onednn_timed_matmul_build(dnnl_engine_t eng, int m, int k, int n,
                                           dnnl_data_type_t src, dnnl_data_type_t wei,
                                           dnnl_data_type_t dst, cf_onednn_timed_matmul *t) {
  *t = (cf_onednn_timed_matmul){0};
  dnnl_dims_t sd = {m, k}, wd = {k, n}, dd = {m, n};
  dnnl_memory_desc_t src_md, wei_md, dst_md;
  dnnl_status_t s = dnnl_memory_desc_init_by_tag(&src_md, 2, sd, src, dnnl_ab);
  if (s == dnnl_success) s = dnnl_memory_desc_init_by_tag(&wei_md, 2, wd, wei, dnnl_format_tag_any);
  if (s == dnnl_success) s = dnnl_memory_desc_init_by_tag(&dst_md, 2, dd, dst, dnnl_ab);
  dnnl_matmul_desc_t md;
  dnnl_primitive_desc_t pd = NULL;
  if (s == dnnl_success) s = dnnl_matmul_desc_init(&md, &src_md, &wei_md, NULL, &dst_md);
  if (s == dnnl_success) s = dnnl_primitive_desc_create(&pd, &md, NULL, eng, NULL);
  if (s == dnnl_success) s = dnnl_primitive_create(&t->prim, pd);
  if (s == dnnl_success) wei_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  if (pd) dnnl_primitive_desc_destroy(pd);
  if (s == dnnl_success) s = dnnl_memory_create(&t->src, &src_md, eng, DNNL_MEMORY_ALLOCATE);
  if (s == dnnl_success) s = dnnl_memory_create(&t->wei, &wei_md, eng, DNNL_MEMORY_ALLOCATE);
  if (s == dnnl_success) s = dnnl_memory_create(&t->dst, &dst_md, eng, DNNL_MEMORY_ALLOCATE);
  if (s == dnnl_success) s = fill(t->src, &src_md, src);
  if (s == dnnl_success) s = fill(t->wei, &wei_md, wei);
  return s;
}

double cf_onednn_timed_matmul_run(dnnl_stream_t st, const cf_onednn_timed_matmul *t) {
  dnnl_exec_arg_t args[3] = {
      {DNNL_ARG_SRC, t->src}, {DNNL_ARG_WEIGHTS, t->wei}, {DNNL_ARG_DST, t->dst}};
  const double t0 = cf_clock_now();
  if (dnnl_primitive_execute(t->prim, st, 3, args) != dnnl_success ||
      dnnl_stream_wait(st) != dnnl_success)
    return -1;
  return cf_clock_now() - t0;
}

void cf_onednn_timed_matmul_free(cf_onednn_timed_matmul *t) {
  if (t->prim) dnnl_primitive_destroy(t->prim);
  dnnl_memory_t m[] = {t->src, t->wei, t->dst};
  for (int i = 0; i < 3; i++)
    if (m[i]) dnnl_memory_destroy(m[i]);
  *t = (cf_onednn_timed_matmul){0};
}
