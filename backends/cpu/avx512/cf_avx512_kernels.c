/* cf_avx512_kernels.c: the avx512 kernel set's table. Chosen by
 * cf_cpu_kernels_select only on a CPU with AVX-512 F, DQ, BW, VL and FMA
 * whose OS saves the zmm and mask registers. */
#include "backends/cpu/avx512/cf_avx512.h"

const cf_cpu_kernels cf_cpu_kernels_avx512 = {
    .name = "avx512",
    .bias_act_row = cf_avx512_bias_act_row,
    .norm_row = cf_avx512_norm_row,
    .gate_row = cf_avx512_gate_row,
    .attention = &cf_avx512_attention_math,
    .to_bf16_row = cf_avx512_to_bf16_row,
    .quantize_row = cf_avx512_quantize_row,
    .scale_bias_act_row = cf_avx512_scale_bias_act_row,
};
