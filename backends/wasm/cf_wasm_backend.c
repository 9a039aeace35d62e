/* cf_wasm_backend.c: the kernel set's gemm_nt for linear and matmul_nt;
 * the rest from backends/cpu/. */
#include "backends/wasm/cf_wasm_backend.h"

#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_kernels.h"

/* The context is a plain cf_cpu_ctx; the kernel set must have a matrix
 * product of its own. */
static cf_status wasm_create(const cf_backend_config *cfg, void **ctx, cf_error *err) {
  CF_TRY(cf_cpu_iface_create(cfg, ctx, err));
  const cf_cpu_kernels *k = ((const cf_cpu_ctx *)*ctx)->kernels;
  if (k->gemm_nt) return CF_OK;
  cf_cpu_iface_destroy(*ctx);
  *ctx = NULL;
  return cf_error_set(err, CF_ERR_UNSUPPORTED,
                      "the %s CPU kernels have no matrix product of their own (this backend "
                      "needs one; unset CFORMER_CPU_KERNELS)",
                      k->name);
}

static void wasm_linear(void *ctx, int rows, int in, int out, const float *x, const cf_bweight *w,
                        const cf_bweight *b, cf_op_act act, float *y) {
  cf_cpu_ctx *c = ctx;
  c->kernels->gemm_nt(rows, out, in, 1.0f, x, w->data, y);
  cf_cpu_bias_act(c, rows, out, y, b, act);
}

static void wasm_matmul_nt(void *ctx, int batch, int m, int n, int k, const float *a,
                           const float *bm, float scale, float *cm) {
  cf_cpu_ctx *c = ctx;
  for (int b = 0; b < batch; b++)
    c->kernels->gemm_nt(m, n, k, scale, a + (size_t)b * m * k, bm + (size_t)b * n * k,
                        cm + (size_t)b * m * n);
}

static const cf_backend_iface wasm_iface = {
    CF_CPU_IFACE_SLOTS,
    CF_CPU_IFACE_KERNEL_SLOTS,
    .create = wasm_create,
    .destroy = cf_cpu_iface_destroy,
    .linear = wasm_linear,
    .matmul_nt = wasm_matmul_nt,
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
