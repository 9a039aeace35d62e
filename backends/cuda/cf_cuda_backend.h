/* cf_cuda_backend.h: the CUDA backend's registry entry.
 *
 * float32 on one NVIDIA GPU: cuBLAS for the projections and the batched
 * A B^T, CUDA kernels (cf_cuda_kernels.cu) for bias + activation, norms,
 * gating and the RPE attention core. Built when nvcc and cuBLAS are found
 * (meson option `cuda`); its probe needs /dev/nvidia* and a device from
 * cudaGetDeviceCount, so it is never the default without a GPU. Options:
 * threads=N is accepted (one string fits every backend) and has no effect;
 * device=N picks the GPU (default 0). */
#ifndef CF_CUDA_BACKEND_H
#define CF_CUDA_BACKEND_H

#include "backends/cf_backend.h"

extern const cf_backend_desc cf_backend_cuda_desc;

#endif /* CF_CUDA_BACKEND_H */
