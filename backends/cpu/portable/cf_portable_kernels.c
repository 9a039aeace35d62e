/* cf_portable_kernels.c: the portable kernel set's table: what every CPU
 * runs, and the fallback when no faster set fits (cf_cpu_dispatch.c). */
#include "backends/cpu/portable/cf_portable.h"

const cf_cpu_kernels cf_cpu_kernels_portable = {
    .name = "portable",
    .bias_act_row = cf_portable_bias_act_row,
    .norm_row = cf_portable_norm_row,
    .gate_row = cf_portable_gate_row,
    .attention = &cf_portable_attention_math,
    .gemm_nt = cf_portable_gemm_nt,
    .to_bf16_row = cf_portable_to_bf16_row,
    .quantize_row = cf_portable_quantize_row,
    .scale_bias_act_row = cf_portable_scale_bias_act_row,
};
