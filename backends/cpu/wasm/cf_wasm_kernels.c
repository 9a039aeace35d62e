/* cf_wasm_kernels.c: the wasm kernel set's table (the WebAssembly build's:
 * SIMD128 is its baseline, so cf_cpu_kernels_select picks it with no
 * check). Its own code: the matrix product and the row ops; the attention
 * core and the reduced-precision row ops are the portable set's, which
 * the compiler vectorises with SIMD128. */
#include "backends/cpu/portable/cf_portable.h"
#include "backends/cpu/wasm/cf_wasm.h"

const cf_cpu_kernels cf_cpu_kernels_wasm = {CF_CPU_KERNEL_ROW_OPS(wasm),
                                            .gemm_nt = cf_wasm_gemm_nt,
                                            CF_CPU_KERNEL_LOWP_OPS(portable)};
