/* cf_ref_internal.h: what the reference backend's files share. Not public. */
#ifndef CF_REF_INTERNAL_H
#define CF_REF_INTERNAL_H

#include "backends/cf_backend.h"

/* A weight in the reference backend: the NETWORK.md layout, except that a
 * MATRIX [out][in] is kept transposed, [in][out], so that linear can add
 * x[i] * row i to all outputs at once (see cf_ref_linear). */
struct cf_bweight {
  cf_weight_role role;
  int rows, cols; /* as given to weight_create: [rows][cols] in the file's layout */
  float data[];   /* MATRIX: [cols = in][rows = out]; otherwise [rows][cols] */
};

void cf_ref_linear(void *ctx, int rows, int in, int out, const float *x, const cf_bweight *w,
                   const cf_bweight *b, cf_op_act act, float *y);
void cf_ref_norm(void *ctx, cf_norm_kind kind, int rows, int width, const float *x, float alpha,
                 const float *skip, const cf_bweight *gamma, const cf_bweight *beta, float eps,
                 float *y);
void cf_ref_attention(void *ctx, const cf_attention_args *args);
void cf_ref_gate(void *ctx, int batch, int d, float *x, const cf_bweight *mult,
                 const cf_bweight *add);
void cf_ref_matmul_nt(void *ctx, int batch, int m, int n, int k, const float *a, const float *b,
                      float scale, float *c);
void cf_ref_copy_2d(void *ctx, int rows, int cols, const float *src, int ld_src, float *dst,
                    int ld_dst);

#endif /* CF_REF_INTERNAL_H */
