/* cf_avx512.h: the avx512 kernel set's functions, gathered into its table
 * by cf_avx512_kernels.c. Each has the signature and meaning of the table
 * slot of the same name (cf_cpu_kernels.h). Built with the AVX-512 flags
 * (F, DQ, BW, VL) and FMA: call only through the table
 * cf_cpu_kernels_select hands out. */
#ifndef CF_AVX512_H
#define CF_AVX512_H

#include "backends/cpu/cf_cpu_kernels.h"

void cf_avx512_bias_act_row(int n, float *y, const float *bias, cf_op_act act);
void cf_avx512_norm_row(cf_norm_kind kind, int w, const float *x, float alpha, const float *skip,
                        const float *gamma, const float *beta, float eps, float *y);
void cf_avx512_gate_row(int n, float *x, const float *mult, const float *add);
extern const cf_cpu_attention_math cf_avx512_attention_math;
void cf_avx512_gemm_rows(int m, int n, int k, const float *a, const float *bp, float *c);

void cf_avx512_to_bf16_row(int n, const float *x, uint16_t *y);
float cf_avx512_quantize_row(int n, const float *x, int8_t *q);
float cf_avx512_quantize_row_u8(int n, const float *x, uint8_t *q);
void cf_avx512_dequant_bias_act_row(int n, const int32_t *acc, const int32_t *offset,
                               float row_scale, const float *col_scale, const float *bias,
                               cf_op_act act, float *y);

#endif /* CF_AVX512_H */
