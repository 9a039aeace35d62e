/* cf_cuda_backend.c: the CUDA backend's memory, weights, GEMMs (cuBLAS)
 * and op table; the kernels are in cf_cuda_kernels.cu. Ops queue work on
 * one stream and keep the first failure; sync waits and reports it.
 *
 * This file and the kernels form the shared module libcformer_cuda.so,
 * the only thing that links cuBLAS and the CUDA runtime; the registry
 * reaches it through cf_cuda_module_entry (cf_cuda_module.h). */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "backends/cf_backend_options.h"
#include "backends/cuda/cf_cuda_kernels.h"
#include "backends/cuda/cf_cuda_module.h"

struct cf_bweight {
  cf_weight_role role;
  int rows, cols;
  float *dev; /* NETWORK.md layout, on the device */
};

typedef struct cuda_ctx {
  int max_batch, device;
  cudaStream_t stream;
  cublasHandle_t blas;
  int failed; /* first failure since the last sync: 0 none */
  const char *failed_what;
  int failed_code;
} cuda_ctx;

static void record(cuda_ctx *c, int code, const char *what) {
  if (code != 0 && !c->failed) {
    c->failed = 1;
    c->failed_what = what;
    c->failed_code = code;
  }
}

/* The loader checks for /dev/nvidia* before loading this module at all. */
static bool cuda_probe(void) {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

static void cu_destroy(void *ctx) {
  cuda_ctx *c = ctx;
  if (!c) return;
  if (c->blas) cublasDestroy(c->blas);
  if (c->stream) cudaStreamDestroy(c->stream);
  free(c);
}

static cf_status cu_create(const cf_backend_config *cfg, void **ctx, cf_error *err) {
  int threads = 1, device = 0;
  const cf_backend_int_option known[] = {{"threads", 1, 256, &threads},
                                         {"device", 0, 63, &device}};
  CF_TRY(cf_backend_options_parse(cfg->options, known, 2, err));
  if (!cuda_probe())
    return cf_error_set(err, CF_ERR_BACKEND, "no NVIDIA GPU found (cudaGetDeviceCount() found "
                                             "none)");
  cuda_ctx *c = calloc(1, sizeof *c);
  if (!c) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  c->max_batch = cfg->max_batch;
  c->device = device;
  cudaError_t e = cudaSetDevice(device);
  if (e == cudaSuccess) e = cudaStreamCreate(&c->stream);
  if (e != cudaSuccess) {
    cu_destroy(c);
    return cf_error_set(err, CF_ERR_BACKEND, "GPU %d: %s", device, cudaGetErrorString(e));
  }
  if (cublasCreate(&c->blas) != CUBLAS_STATUS_SUCCESS ||
      cublasSetStream(c->blas, c->stream) != CUBLAS_STATUS_SUCCESS) {
    cu_destroy(c);
    return cf_error_set(err, CF_ERR_BACKEND, "cannot initialise cuBLAS");
  }
  /* Plain float32 GEMMs: no TF32, so results match the CPU backends. */
  cublasSetMathMode(c->blas, CUBLAS_DEFAULT_MATH);
  *ctx = c;
  return CF_OK;
}

static float *cu_alloc(void *ctx, size_t n) {
  cuda_ctx *c = ctx;
  void *p = NULL;
  if (cudaMalloc(&p, (n ? n : 1) * sizeof(float)) != cudaSuccess) return NULL;
  record(c, cudaMemsetAsync(p, 0, (n ? n : 1) * sizeof(float), c->stream), "clearing memory");
  return p;
}

static void cu_free(void *ctx, float *p) {
  (void)ctx;
  cudaFree(p);
}

static void cu_upload(void *ctx, float *dst, const float *src, size_t n) {
  cuda_ctx *c = ctx;
  record(c, cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyHostToDevice, c->stream),
         "uploading");
  record(c, cudaStreamSynchronize(c->stream), "uploading"); /* src may be reused at once */
}

static void cu_download(void *ctx, float *dst, const float *src, size_t n) {
  cuda_ctx *c = ctx;
  record(c, cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToHost, c->stream),
         "downloading");
  record(c, cudaStreamSynchronize(c->stream), "downloading");
}

static cf_bweight *cu_weight_create(void *ctx, cf_weight_role role, int rows, int cols,
                                    const float *data) {
  cuda_ctx *c = ctx;
  cf_bweight *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  *w = (cf_bweight){.role = role, .rows = rows, .cols = cols};
  size_t bytes = (size_t)rows * cols * sizeof(float);
  if (cudaMalloc((void **)&w->dev, bytes) != cudaSuccess ||
      cudaMemcpy(w->dev, data, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    cudaFree(w->dev);
    free(w);
    return NULL;
  }
  (void)c;
  return w;
}

static void cu_weight_free(void *ctx, cf_bweight *w) {
  (void)ctx;
  if (!w) return;
  cudaFree(w->dev);
  free(w);
}

/* Row-major Y[rows][out] = X[rows][in] W^T is column-major
 * Y^T (out x rows) = W (W stored [out][in], read transposed) X^T. */
static void cu_linear(void *ctx, int rows, int in, int out, const float *x, const cf_bweight *w,
                      const cf_bweight *b, cf_op_act act, float *y) {
  cuda_ctx *c = ctx;
  const float one = 1.0f, zero = 0.0f;
  record(c,
         (int)cublasSgemm(c->blas, CUBLAS_OP_T, CUBLAS_OP_N, out, rows, in, &one, w->dev, in, x,
                          in, &zero, y, out),
         "in cublasSgemm");
  record(c, cf_cuda_bias_act((cf_cuda_stream)c->stream, rows, out, y, b ? b->dev : NULL, (int)act),
         "launching bias+activation");
}

/* C[b] (m x n) = scale A[b] B[b]^T is column-major C^T = B A^T. */
static void cu_matmul_nt(void *ctx, int batch, int m, int n, int k, const float *a,
                         const float *bm, float scale, float *cm) {
  cuda_ctx *c = ctx;
  const float zero = 0.0f;
  record(c,
         (int)cublasSgemmStridedBatched(c->blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &scale, bm, k,
                                        (long long)n * k, a, k, (long long)m * k, &zero, cm, n,
                                        (long long)m * n, batch),
         "in cublasSgemmStridedBatched");
}

static void cu_norm(void *ctx, cf_norm_kind kind, int rows, int width, const float *x, float alpha,
                    const float *skip, const cf_bweight *gamma, const cf_bweight *beta, float eps,
                    float *y) {
  cuda_ctx *c = ctx;
  record(c,
         cf_cuda_norm((cf_cuda_stream)c->stream, kind == CF_NORM_RMS, rows, width, x, alpha, skip,
                      gamma->dev, beta ? beta->dev : NULL, eps, y),
         "launching norm");
}

static void cu_attention(void *ctx, const cf_attention_args *a) {
  cuda_ctx *c = ctx;
  record(c,
         cf_cuda_attention((cf_cuda_stream)c->stream, a->batch, a->heads, a->depth, a->qkv,
                           a->rpe_q ? a->rpe_q->dev : NULL, a->rpe_k ? a->rpe_k->dev : NULL,
                           a->rpe_v ? a->rpe_v->dev : NULL, a->bias, a->scale, a->out),
         "launching attention");
}

static void cu_gate(void *ctx, int batch, int d, float *x, const cf_bweight *mult,
                    const cf_bweight *add) {
  cuda_ctx *c = ctx;
  record(c,
         cf_cuda_gate((cf_cuda_stream)c->stream, batch, d, x, mult ? mult->dev : NULL,
                      add ? add->dev : NULL),
         "launching gate");
}

static void cu_copy_2d(void *ctx, int rows, int cols, const float *src, int ld_src, float *dst,
                       int ld_dst) {
  cuda_ctx *c = ctx;
  record(c,
         cudaMemcpy2DAsync(dst, (size_t)ld_dst * sizeof(float), src, (size_t)ld_src * sizeof(float),
                           (size_t)cols * sizeof(float), (size_t)rows, cudaMemcpyDeviceToDevice,
                           c->stream),
         "copying");
}

static cf_status cu_sync(void *ctx, cf_error *err) {
  cuda_ctx *c = ctx;
  record(c, cudaStreamSynchronize(c->stream), "running the batch");
  if (!c->failed) return CF_OK;
  c->failed = 0;
  return cf_error_set(err, CF_ERR_BACKEND, "CUDA failed %s (code %d)", c->failed_what,
                      c->failed_code);
}

static const cf_backend_iface cuda_iface = {
    .create = cu_create,
    .destroy = cu_destroy,
    .alloc = cu_alloc,
    .free = cu_free,
    .upload = cu_upload,
    .download = cu_download,
    .weight_create = cu_weight_create,
    .weight_free = cu_weight_free,
    .linear = cu_linear,
    .norm = cu_norm,
    .attention = cu_attention,
    .gate = cu_gate,
    .matmul_nt = cu_matmul_nt,
    .copy_2d = cu_copy_2d,
    .sync = cu_sync,
};

static const cf_backend_desc cuda_module_desc = {
    .name = "cuda",
    .summary = "NVIDIA GPU, float32: cuBLAS + CUDA kernels (options: device=N)",
    .priority = 40,
    .features = CF_CUDA_FEATURES,
    .activations = CF_CUDA_ACTIVATIONS,
    .probe = cuda_probe,
    .unavailable = "needs an NVIDIA GPU (cudaGetDeviceCount() found none)",
    .iface = &cuda_iface,
    .default_minibatch = 256,
};

/* The module's one exported symbol (the rest is hidden). */
__attribute__((visibility("default"))) const cf_backend_desc *cf_cuda_module_entry(
    size_t iface_size, size_t desc_size);

const cf_backend_desc *cf_cuda_module_entry(size_t iface_size, size_t desc_size) {
  if (iface_size != sizeof(cf_backend_iface) || desc_size != sizeof(cf_backend_desc)) return NULL;
  return &cuda_module_desc;
}
