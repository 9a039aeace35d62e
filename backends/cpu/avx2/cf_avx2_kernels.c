/* cf_avx2_kernels.c: the avx2 kernel set's table. Chosen by
 * cf_cpu_kernels_select only on a CPU with AVX2, FMA and F16C. */
#include "backends/cpu/avx2/cf_avx2.h"

const cf_cpu_kernels cf_cpu_kernels_avx2 = {
    .name = "avx2",
    .bias_act_row = cf_avx2_bias_act_row,
    .norm_row = cf_avx2_norm_row,
    .gate_row = cf_avx2_gate_row,
    .attention = &cf_avx2_attention_math,
    .to_bf16_row = cf_avx2_to_bf16_row,
    .quantize_row = cf_avx2_quantize_row,
    .scale_bias_act_row = cf_avx2_scale_bias_act_row,
};
