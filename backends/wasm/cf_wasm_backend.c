/* cf_wasm_backend.c: the kernel set's gemm_nt for linear and matmul_nt;
 * the rest from backends/cpu/. */
#include "backends/wasm/cf_wasm_backend.h"

#include <stdlib.h>

#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_kernels.h"

typedef struct wasm_ctx {
  cf_cpu_ctx cpu; /* first: the shared kernels take the context as a cf_cpu_ctx */
} wasm_ctx;

static cf_status wasm_create(const cf_backend_config *cfg, void **ctx, cf_error *err) {
  wasm_ctx *c = calloc(1, sizeof *c);
  if (!c) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  cf_status st = cf_cpu_ctx_init(&c->cpu, cfg, err);
  if (st == CF_OK && !c->cpu.kernels->gemm_nt)
    st = cf_error_set(err, CF_ERR_UNSUPPORTED,
                      "the %s CPU kernels have no matrix product of their own (this backend "
                      "needs one; unset CFORMER_CPU_KERNELS)",
                      c->cpu.kernels->name);
  if (st != CF_OK) {
    free(c);
    return st;
  }
  *ctx = c;
  return CF_OK;
}

static void wasm_destroy(void *ctx) { free(ctx); }

static void wasm_linear(void *ctx, int rows, int in, int out, const float *x, const cf_bweight *w,
                        const cf_bweight *b, cf_op_act act, float *y) {
  wasm_ctx *c = ctx;
  c->cpu.kernels->gemm_nt(rows, out, in, 1.0f, x, w->data, y);
  cf_cpu_bias_act(&c->cpu, rows, out, y, b, act);
}

static void wasm_matmul_nt(void *ctx, int batch, int m, int n, int k, const float *a,
                           const float *bm, float scale, float *cm) {
  wasm_ctx *c = ctx;
  for (int b = 0; b < batch; b++)
    c->cpu.kernels->gemm_nt(m, n, k, scale, a + (size_t)b * m * k, bm + (size_t)b * n * k,
                            cm + (size_t)b * m * n);
}

static const cf_backend_iface wasm_iface = {
    CF_CPU_IFACE_SLOTS,
    .create = wasm_create,
    .destroy = wasm_destroy,
    .weight_create = cf_cpu_weight_create,
    .linear = wasm_linear,
    .attention = cf_cpu_attention,
    .matmul_nt = wasm_matmul_nt,
    .sync = cf_cpu_sync,
    .variant = cf_cpu_kernels_name,
};

const cf_backend_desc cf_backend_wasm_desc = {
    .name = "wasm",
    .summary = "WebAssembly SIMD128 matrix product + CPU kernels (options: threads=N)",
    .priority = 10,
    .features = CF_CPU_FEATURES,
    .activations = CF_CPU_ACTIVATIONS,
    .probe = NULL,
    .iface = &wasm_iface,
    .default_minibatch = 16,
};
