/* cf_openblas_backend.h: the OpenBLAS backend's registry entry.
 *
 * Every projection is one cblas_sgemm (weights [out][in] read transposed),
 * followed by one AVX2 pass for bias and activation; everything else runs
 * on the shared CPU kernels (backends/cpu/). Options: threads=N (default
 * 1), which sets OpenBLAS's thread count and the kernels' OpenMP team. */
#ifndef CF_OPENBLAS_BACKEND_H
#define CF_OPENBLAS_BACKEND_H

#include "backends/cf_backend.h"

extern const cf_backend_desc cf_backend_openblas_desc;

#endif /* CF_OPENBLAS_BACKEND_H */
