/* cf_cuda_module.h: the contract between the CUDA module and its loader.
 *
 * The CUDA backend is built as a separate shared module
 * (libcformer_cuda.so) so that no cformer binary links cuBLAS or the CUDA
 * runtime: mapping them costs ~225 MB of RSS and ~0.45 s before main, and
 * a binary that needs them cannot start where they are missing. The
 * registry's `cuda` entry (cf_cuda_loader.c) dlopens the module on the
 * first probe or create and reads its table through the one exported
 * function below. */
#ifndef CF_CUDA_MODULE_H
#define CF_CUDA_MODULE_H

#include <stddef.h>

#include "backends/cf_backend.h"

#define CF_CUDA_MODULE_FILE "libcformer_cuda.so"
#define CF_CUDA_MODULE_ENTRY "cf_cuda_module_entry"

/* What the backend runs; the loader's registry entry declares the same
 * before the module is loaded. */
#define CF_CUDA_FEATURES                                                                        \
  (CF_FEAT_RPE_Q | CF_FEAT_RPE_K | CF_FEAT_RPE_V | CF_FEAT_SMOLGEN | CF_FEAT_RMS_NORM |         \
   CF_FEAT_GATING)
#define CF_CUDA_ACTIVATIONS                                                                     \
  ((1u << CF_OP_ACT_MISH) | (1u << CF_OP_ACT_RELU) | (1u << CF_OP_ACT_NONE) |                   \
   (1u << CF_OP_ACT_TANH) | (1u << CF_OP_ACT_SIGMOID) | (1u << CF_OP_ACT_SELU) |                \
   (1u << CF_OP_ACT_SWISH) | (1u << CF_OP_ACT_RELU2))

/* The module's entry point: its backend table, or NULL when the caller was
 * built against different struct layouts (a stale module). */
typedef const cf_backend_desc *(*cf_cuda_module_entry_fn)(size_t iface_size, size_t desc_size);

#endif /* CF_CUDA_MODULE_H */
