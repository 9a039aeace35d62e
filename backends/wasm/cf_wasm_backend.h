/* cf_wasm_backend.h: the WebAssembly build's backend, its registry entry.
 *
 * No BLAS runs in a browser: every projection and matmul_nt is the kernel
 * set's own product (cf_cpu_kernels.h, gemm_nt: the wasm set's SIMD128
 * one), followed by the bias and activation pass; everything else runs on
 * the shared CPU kernels (backends/cpu/). Built only in the WebAssembly
 * build (backends/meson.build). Options: threads=N (default 1); the
 * WebAssembly build has no OpenMP, so the ops run on the calling thread. */
#ifndef CF_WASM_BACKEND_H
#define CF_WASM_BACKEND_H

#include "backends/cf_backend.h"

extern const cf_backend_desc cf_backend_wasm_desc;

#endif /* CF_WASM_BACKEND_H */
