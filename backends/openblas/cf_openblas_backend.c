/* cf_openblas_backend.c: sgemm for linear and matmul_nt; the rest from
 * backends/cpu/. */
#include "backends/openblas/cf_openblas_backend.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cf_cpu_internal.h"

/* OpenBLAS picks its kernels by CPU model when it loads, and a model it
 * does not know gets its Prescott (SSE3) fallback: Debian 12's 0.3.21 does
 * not know Intel's Emerald Rapids (family 6 model 207), where the fallback
 * made the built-in network 2.4x slower than OpenBLAS's AVX-512 kernels
 * (docs/BACKENDS.md, "OpenBLAS's kernels"). OPENBLAS_CORETYPE, read at that
 * load, names the kernels instead. The core to name on a CPU whose
 * fallback ran: the newest family its instructions allow; NULL where the
 * fallback is right, OpenBLAS knew the CPU, or the user chose. */
static const char *core_instead(void) {
  if (getenv("OPENBLAS_CORETYPE")) return NULL;
  const char *core = openblas_get_corename();
  if (!core || strcmp(core, "Prescott") != 0) return NULL;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512cd"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return NULL;
}

static bool ob_startup_env(const char **name, const char **value) {
  const char *core = core_instead();
  if (!core) return false;
  *name = "OPENBLAS_CORETYPE";
  *value = core;
  return true;
}

/* The kernel set and OpenBLAS's kernels: "avx512, OpenBLAS Cooperlake",
 * and where it fell back, what to set. */
static const char *ob_variant(void *ctx) {
  cf_cpu_ctx *c = ctx;
  const char *core = openblas_get_corename(), *instead = core_instead();
  int at = snprintf(c->variant, sizeof c->variant, "%s, OpenBLAS %s", cf_cpu_kernels_name(ctx),
                    core ? core : "(core unknown)");
  if (instead && at > 0 && (size_t)at < sizeof c->variant)
    snprintf(c->variant + at, sizeof c->variant - (size_t)at,
             " (its fallback for a CPU it does not know; OPENBLAS_CORETYPE=%s runs faster ones)",
             instead);
  return c->variant;
}

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
    /* CF_CPU_IFACE_KERNEL_SLOTS but the variant; sync reports a call the
     * checks above refused */
    .weight_create = cf_cpu_weight_create,
    .attention = cf_cpu_attention,
    .sync = cf_cpu_sync,
    .create = cf_cpu_iface_create,
    .destroy = cf_cpu_iface_destroy,
    .linear = ob_linear,
    .matmul_nt = ob_matmul_nt,
    .variant = ob_variant,
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
    .startup_env = ob_startup_env,
};
