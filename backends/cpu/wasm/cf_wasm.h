/* cf_wasm.h: the wasm kernel set's functions (WebAssembly SIMD128),
 * gathered into its table by cf_wasm_kernels.c. Each has the signature and
 * meaning of the table slot of the same name (cf_cpu_kernels.h). Built
 * with -msimd128, in the WebAssembly build only (backends/meson.build). */
#ifndef CF_WASM_H
#define CF_WASM_H

#include "backends/cpu/cf_cpu_kernels.h"

void cf_wasm_gemm_nt(int m, int n, int k, float scale, const float *a, const float *b, float *c);
void cf_wasm_bias_act_row(int n, float *y, const float *bias, cf_op_act act);
void cf_wasm_norm_row(cf_norm_kind kind, int w, const float *x, float alpha, const float *skip,
                      const float *gamma, const float *beta, float eps, float *y);
void cf_wasm_gate_row(int n, float *x, const float *mult, const float *add);
extern const cf_cpu_attention_math cf_wasm_attention_math;

#endif /* CF_WASM_H */
