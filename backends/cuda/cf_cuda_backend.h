/* cf_cuda_backend.h: the CUDA backend's registry entry.
 *
 * float32 on one NVIDIA GPU: cuBLAS for the projections and the batched
 * A B^T, CUDA kernels (cf_cuda_kernels.cu) for bias + activation, norms,
 * gating and the RPE attention core. Built when nvcc and cuBLAS are found
 * (meson option `cuda`) as the shared module libcformer_cuda.so
 * (cf_cuda_module.h); this entry, linked into every binary, loads it with
 * dlopen only when `cuda` is probed or created, so CPU-only use never maps
 * a CUDA library. Its probe fails, with the reason in `unavailable`, when
 * the module is not found, when there is no /dev/nvidia* device (checked
 * before loading anything), when the module or a library it needs
 * (libcudart, libcublas) cannot be loaded, or when cudaGetDeviceCount finds
 * no GPU; so it is never the default without a GPU. Options: threads=N is
 * accepted (one string fits every backend) and has no effect; device=N
 * picks the GPU (default 0).
 *
 * The module is looked for at $CF_CUDA_MODULE (a full path) if set, else
 * next to the running binary, in the build tree, and in the install
 * directory (<libdir>/cformer), in that order. */
#ifndef CF_CUDA_BACKEND_H
#define CF_CUDA_BACKEND_H

#include "backends/cf_backend.h"

extern const cf_backend_desc cf_backend_cuda_desc;

/* Loads the module regardless of whether a GPU exists (the probe checks
 * for one first); for tests and diagnostics. Fails naming the file tried
 * and, from dlerror, the library that is missing. */
cf_status cf_cuda_module_load(cf_error *err);

/* True once the module is loaded in this process. */
bool cf_cuda_module_loaded(void);

#endif /* CF_CUDA_BACKEND_H */
