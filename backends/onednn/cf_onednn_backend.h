/* cf_onednn_backend.h: the oneDNN backend's registry entry.
 *
 * Projections are oneDNN matmul primitives with the bias and the
 * activation fused as post-ops, created once per (rows, in, out,
 * activation, bias) shape and cached; weights are reordered once into the
 * layout the primitive picks and kept with the weight; the attention
 * policy's batched A B^T
 * is dnnl_sgemm; everything else runs on the shared AVX2 kernels
 * (backends/cpu/). Options: threads=N (default 1): oneDNN's and the
 * kernels' OpenMP team size; precision=bf16|int8 (cf_backend.h, taken out
 * by cf_backend_create): the projections in bf16 or int8 where the CPU runs
 * them (cf_onednn_precision.h); attention=auto|cpu|onednn|amx: the
 * attention op on the CPU kernels' cores or as oneDNN batched products
 * (cf_onednn_attention.h). prepare builds every batch size's primitives
 * at load from the first pass's calls (warm starts, cf_onednn_calls.h). */
#ifndef CF_ONEDNN_BACKEND_H
#define CF_ONEDNN_BACKEND_H

#include "backends/cf_backend.h"

extern const cf_backend_desc cf_backend_onednn_desc;

#endif /* CF_ONEDNN_BACKEND_H */
