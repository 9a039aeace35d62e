/* cf_wasm_kernels.c: the wasm kernel set's table (the WebAssembly build's:
 * SIMD128 is its baseline, so cf_cpu_kernels_select picks it with no
 * check). Its own code: the matrix product and the row ops; the attention
 * core and the reduced-precision row ops are the portable set's, which
 * the compiler vectorises with SIMD128. */
#include "backends/cpu/portable/cf_portable.h"
#include "backends/cpu/wasm/cf_wasm.h"

const cf_cpu_kernels cf_cpu_kernels_wasm = {
    .name = "wasm",
    .bias_act_row = cf_wasm_bias_act_row,
    .norm_row = cf_wasm_norm_row,
    .gate_row = cf_wasm_gate_row,
    .attention = &cf_wasm_attention_math,
    .gemm_nt = cf_wasm_gemm_nt,
    .to_bf16_row = cf_portable_to_bf16_row,
    .quantize_row = cf_portable_quantize_row,
    .scale_bias_act_row = cf_portable_scale_bias_act_row,
};
