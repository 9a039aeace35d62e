/* cf_avx2_kernels.c: the avx2 kernel set's table. Chosen by
 * cf_cpu_kernels_select only on a CPU with AVX2, FMA and F16C. */
#include "backends/cpu/avx2/cf_avx2.h"

const cf_cpu_kernels cf_cpu_kernels_avx2 = {CF_CPU_KERNEL_ROW_OPS(avx2),
                                            .gemm_rows = cf_avx2_gemm_rows,
                                            CF_CPU_KERNEL_LOWP_OPS(avx2)};
