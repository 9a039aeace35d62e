/* cf_cpu_rowops.c: the row-wise ops' drivers (bias + activation, norms)
 * and gating: rows split across the instance's threads, each row run by
 * the instance's kernel set (cf_cpu_kernels.h). Plain C. */
#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_kernels.h"

/* Below this many floats a parallel region costs more than it saves. */
enum { PARALLEL_MIN_FLOATS = 16384 };

static int threads_for(const cf_cpu_ctx *c, long long floats) {
  return floats >= PARALLEL_MIN_FLOATS ? c->threads : 1;
}

void cf_cpu_bias_act(const cf_cpu_ctx *c, int rows, int n, float *y, const cf_bweight *bias,
                     cf_op_act act) {
  if (!bias && act == CF_OP_ACT_NONE) return;
  const float *b = bias ? bias->data : NULL;
  void (*row)(int, float *, const float *, cf_op_act) = c->kernels->bias_act_row;
  int nt = threads_for(c, (long long)rows * n);
  (void)nt; /* read only by OpenMP: unused without it (WebAssembly) */
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (int r = 0; r < rows; r++) row(n, y + (size_t)r * n, b, act);
}

/* The norm of each row, and with y_bf16 its bf16 copy while the row is in
 * L1 (where the next matmul's conversion read it back from memory). */
static void norm_rows(const cf_cpu_ctx *c, cf_norm_kind kind, int rows, int width,
                      const float *x, float alpha, const float *skip, const cf_bweight *gamma,
                      const cf_bweight *beta, float eps, float *y, cf_bf16 *y_bf16) {
  const float *g = gamma->data, *bt = beta ? beta->data : NULL;
  const cf_cpu_kernels *kern = c->kernels;
  int nt = threads_for(c, (long long)rows * width);
  (void)nt; /* read only by OpenMP: unused without it (WebAssembly) */
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (int r = 0; r < rows; r++) {
    size_t o = (size_t)r * width;
    kern->norm_row(kind, width, x + o, alpha, skip ? skip + o : NULL, g, bt, eps, y + o);
    if (y_bf16) kern->to_bf16_row(width, y + o, y_bf16 + o);
  }
}

void cf_cpu_norm(void *ctx, cf_norm_kind kind, int rows, int width, const float *x, float alpha,
                 const float *skip, const cf_bweight *gamma, const cf_bweight *beta, float eps,
                 float *y) {
  norm_rows(ctx, kind, rows, width, x, alpha, skip, gamma, beta, eps, y, NULL);
}

void cf_cpu_norm_bf16(void *ctx, cf_norm_kind kind, int rows, int width, const float *x,
                      float alpha, const float *skip, const cf_bweight *gamma,
                      const cf_bweight *beta, float eps, float *y, cf_bf16 *y_bf16) {
  norm_rows(ctx, kind, rows, width, x, alpha, skip, gamma, beta, eps, y, y_bf16);
}

/* x[b][t][c] = x * mult[t][c] + add[t][c] (gates stored token-major), a
 * token per kernel call. Only the embedding uses it, once per eval, on
 * batch * 64 rows of d: threaded like the other row ops. */
void cf_cpu_gate(void *ctx, int batch, int d, float *x, const cf_bweight *mult,
                 const cf_bweight *add) {
  const cf_cpu_ctx *c = ctx;
  void (*row)(int, float *, const float *, const float *) = c->kernels->gate_row;
  const int rows = batch * 64;
  int nt = threads_for(c, (long long)rows * d);
  (void)nt; /* read only by OpenMP: unused without it (WebAssembly) */
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (int r = 0; r < rows; r++) {
    const size_t t = (size_t)(r % 64) * d;
    row(d, x + (size_t)r * d, mult ? mult->data + t : NULL, add ? add->data + t : NULL);
  }
}
