/* cf_cpu_memory.c: settings (with the kernel set), host memory and weight
 * records shared by the CPU backends. */
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend_options.h"
#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_kernels.h"

/* The most threads an option may ask for; more is surely a typo. */
enum { MAX_THREADS = 256 };

cf_status cf_cpu_ctx_init(cf_cpu_ctx *c, const cf_backend_config *cfg,
                          cf_error *err) {
  c->max_batch = cfg->max_batch;
  c->threads = 1;
  const cf_backend_int_option known[] = {{"threads", 1, MAX_THREADS, &c->threads}};
  CF_TRY(cf_backend_options_parse(cfg->options, known, 1, err));
  return cf_cpu_kernels_select(&c->kernels, err);
}

const char *cf_cpu_kernels_name(void *ctx) {
  const cf_cpu_ctx *c = ctx;
  return c->kernels->name;
}

float *cf_cpu_alloc(size_t n) {
  size_t bytes = (n ? n : 1) * sizeof(float);
  bytes = (bytes + 63) / 64 * 64; /* aligned_alloc wants a multiple of the alignment */
  float *p = aligned_alloc(64, bytes);
  if (p) memset(p, 0, bytes);
  return p;
}

void cf_cpu_free(float *p) { free(p); }

float *cf_cpu_iface_alloc(void *ctx, size_t n) {
  (void)ctx;
  return cf_cpu_alloc(n);
}

void cf_cpu_iface_free(void *ctx, float *p) {
  (void)ctx;
  cf_cpu_free(p);
}

void cf_cpu_iface_copy(void *ctx, float *dst, const float *src, size_t n) {
  (void)ctx;
  if (n) memcpy(dst, src, n * sizeof(float));
}

cf_bweight *cf_cpu_weight_create(void *ctx, cf_weight_role role, int rows, int cols,
                                 const float *data) {
  (void)ctx;
  size_t n = (size_t)rows * (size_t)cols;
  cf_bweight *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->role = role;
  w->rows = rows;
  w->cols = cols;
  w->data = cf_cpu_alloc(n);
  if (!w->data) {
    free(w);
    return NULL;
  }
  if (role == CF_WEIGHT_GATE) {
    /* [d][64] -> [64][d] */
    for (int c = 0; c < rows; c++)
      for (int t = 0; t < cols; t++) w->data[(size_t)t * rows + c] = data[(size_t)c * cols + t];
  } else {
    memcpy(w->data, data, n * sizeof(float));
  }
  return w;
}

void cf_cpu_weight_free(void *ctx, cf_bweight *w) {
  (void)ctx;
  if (!w) return;
  if (w->extra && w->extra_free) w->extra_free(w->extra);
  cf_cpu_free(w->per_head);
  cf_cpu_free(w->per_head_rev);
  cf_cpu_free(w->data);
  free(w);
}

void cf_cpu_copy_2d(void *ctx, int rows, int cols, const float *src, int ld_src, float *dst,
                    int ld_dst) {
  (void)ctx;
  for (int r = 0; r < rows; r++)
    memcpy(dst + (size_t)r * ld_dst, src + (size_t)r * ld_src, (size_t)cols * sizeof(float));
}
