/* cf_avx512_kernels.c: the avx512 kernel set's table. Chosen by
 * cf_cpu_kernels_select only on a CPU with AVX-512 F, DQ, BW, VL and FMA
 * whose OS saves the zmm and mask registers. */
#include "backends/cpu/avx512/cf_avx512.h"

const cf_cpu_kernels cf_cpu_kernels_avx512 = {CF_CPU_KERNEL_ROW_OPS(avx512),
                                              .gemm_rows = cf_avx512_gemm_rows,
                                              CF_CPU_KERNEL_LOWP_OPS(avx512)};
