/* cf_portable_kernels.c: the portable kernel set's table: what every CPU
 * runs, and the fallback when no faster set fits (cf_cpu_dispatch.c). */
#include "backends/cpu/portable/cf_portable.h"

const cf_cpu_kernels cf_cpu_kernels_portable = {CF_CPU_KERNEL_ROW_OPS(portable),
                                                .gemm_nt = cf_portable_gemm_nt,
                                                CF_CPU_KERNEL_LOWP_OPS(portable)};
