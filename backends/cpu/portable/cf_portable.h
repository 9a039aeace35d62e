/* cf_portable.h: the portable kernel set's functions, gathered into its
 * table by cf_portable_kernels.c. Each has the signature and meaning of the
 * table slot of the same name (cf_cpu_kernels.h). Plain C written so the
 * compiler vectorises the inner loops for whatever the target's baseline
 * is (SSE2 on x86-64, NEON on aarch64); no intrinsics. */
#ifndef CF_PORTABLE_H
#define CF_PORTABLE_H

#include "backends/cpu/cf_cpu_kernels.h"

void cf_portable_bias_act_row(int n, float *y, const float *bias, cf_op_act act);
void cf_portable_norm_row(cf_norm_kind kind, int w, const float *x, float alpha,
                          const float *skip, const float *gamma, const float *beta, float eps,
                          float *y);
void cf_portable_gate_row(int n, float *x, const float *mult, const float *add);
extern const cf_cpu_attention_math cf_portable_attention_math;
/* Its plain-path dot product, also the avx2 set's: a scalar sum is the
 * same with or without AVX2. */
float cf_portable_dot_rpe(int dh, const float *Q, const float *K, const float *eq,
                          const float *ek);
void cf_portable_gemm_nt(int m, int n, int k, float scale, const float *a, const float *b,
                         float *c);
void cf_portable_to_bf16_row(int n, const float *x, uint16_t *y);
float cf_portable_quantize_row(int n, const float *x, int8_t *q);
float cf_portable_quantize_row_u8(int n, const float *x, uint8_t *q);
void cf_portable_dequant_bias_act_row(int n, const int32_t *acc, const int32_t *offset,
                               float row_scale, const float *col_scale, const float *bias,
                               cf_op_act act, float *y);

#endif /* CF_PORTABLE_H */
