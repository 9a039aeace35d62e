/* cf_openblas_backend.c: sgemm for linear and matmul_nt; the rest from
 * backends/cpu/. */
#include "backends/openblas/cf_openblas_backend.h"

#include <cblas.h>

#include "backends/cpu/cf_cpu_internal.h"

/* OpenBLAS's thread count is process-wide: set it before each call so two
 * instances with different settings each get theirs. */
static void use_threads(const cf_cpu_ctx *c) { openblas_set_num_threads(c->threads); }

/* cblas_sgemm (row major, A not transposed, B transposed) refuses what
 * its xerbla check refuses, printing to stderr and computing nothing: the
 * same check here names the op, the call and the bad parameter in the
 * failure sync reports instead. */
static bool sgemm_ok(cf_cpu_ctx *c, const char *op, int m, int n, int k, int lda, int ldb,
                     int ldc) {
  const struct {
    const char *name;
    int value, least;
  } params[] = {{"M", m, 0},   {"N", n, 0},   {"K", k, 0},
                {"lda", lda, k > 1 ? k : 1}, {"ldb", ldb, k > 1 ? k : 1}, {"ldc", ldc, n > 1 ? n : 1}};
  for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
    if (params[i].value < params[i].least) {
      cf_backend_note_failure(&c->first, CF_ERR_INTERNAL, op,
                              "cblas_sgemm: parameter %s = %d is illegal (at least %d)",
                              params[i].name, params[i].value, params[i].least);
      return false;
    }
  return true;
}

static void ob_linear(void *ctx, int rows, int in, int out, const float *x, const cf_bweight *w,
                      const cf_bweight *b, cf_op_act act, float *y) {
  cf_cpu_ctx *c = ctx;
  if (!sgemm_ok(c, "linear", rows, out, in, in, in, out)) return;
  use_threads(c);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, out, in, 1.0f, x, in, w->data, in,
              0.0f, y, out);
  cf_cpu_bias_act(c, rows, out, y, b, act);
}

static void ob_matmul_nt(void *ctx, int batch, int m, int n, int k, const float *a,
                         const float *bm, float scale, float *cm) {
  cf_cpu_ctx *c = ctx;
  if (!sgemm_ok(c, "matmul_nt", m, n, k, k, k, n)) return;
  use_threads(c);
  for (int b = 0; b < batch; b++)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, scale, a + (size_t)b * m * k, k,
                bm + (size_t)b * n * k, k, 0.0f, cm + (size_t)b * m * n, n);
}

static const cf_backend_iface openblas_iface = {
    CF_CPU_IFACE_SLOTS,
    CF_CPU_IFACE_KERNEL_SLOTS, /* sync reports a call the checks above refused */
    .create = cf_cpu_iface_create,
    .destroy = cf_cpu_iface_destroy,
    .linear = ob_linear,
    .matmul_nt = ob_matmul_nt,
};

const cf_backend_desc cf_backend_openblas_desc = {
    .name = "openblas",
    .summary = "OpenBLAS sgemm + CPU kernels, avx2 or portable by CPU (options: threads=N)",
    .priority = 20,
    .features = CF_CPU_FEATURES,
    .activations = CF_CPU_ACTIVATIONS,
    .probe = NULL,
    .iface = &openblas_iface,
    /* 16, not 32: the smaller batch plays much stronger at equal visits and
     * at equal time (docs/SEARCH.md) and costs no throughput on a CPU. */
    .default_minibatch = 16,
};
