/* cf_cuda_backend.c: the CUDA backend's memory, weights, GEMMs (cuBLAS)
 * and op table; the kernels are in cf_cuda_kernels.cu. Ops queue work on
 * one stream and keep the first failure, naming the op, the CUDA or cuBLAS
 * call, its place and its error name and text; sync waits and reports it.
 *
 * This file and the kernels form the shared module libcformer_cuda.so,
 * the only thing that links cuBLAS and the CUDA runtime; the registry
 * reaches it through cf_cuda_module_entry (cf_cuda_module.h). */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "common/cf_kv.h"
#include "backends/cuda/cf_cuda_kernels.h"
#include "backends/cuda/cf_cuda_module.h"

struct cf_bweight {
  cf_weight_role role;
  int rows, cols;
  float *dev; /* on the device: NETWORK.md layout, but RPE tables head-major [H][225][dh] */
};

typedef struct cuda_ctx {
  int max_batch, device;
  int smem_limit; /* shared memory a block may opt in to (the attention kernel) */
  cudaStream_t stream;
  cublasHandle_t blas;
  cf_error first; /* the first failed call since the last sync */
} cuda_ctx;

/* A failed CUDA runtime call (or kernel launch) as "<op>: <call> (file:
 * line): <error name>: <error text>" into err; the call is its source text
 * up to the first parenthesis. */
static void describe_cuda(cf_error *err, const char *op, cudaError_t e, const char *call,
                          const char *file, int line) {
  cf_error_set(err, e == cudaErrorMemoryAllocation ? CF_ERR_NOMEM : CF_ERR_BACKEND,
               "%s: %.*s (%s:%d): %s: %s", op, (int)strcspn(call, "("), call, file, line,
               cudaGetErrorName(e), cudaGetErrorString(e));
}

static void note_cuda(cuda_ctx *c, const char *op, cudaError_t e, const char *call,
                      const char *file, int line) {
  if (e == cudaSuccess || c->first.status != CF_OK) return;
  describe_cuda(&c->first, op, e, call, file, line);
}

static void note_cublas(cuda_ctx *c, const char *op, cublasStatus_t s, const char *call,
                        const char *file, int line) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  cf_backend_note_failure(&c->first,
                          s == CUBLAS_STATUS_ALLOC_FAILED ? CF_ERR_NOMEM : CF_ERR_BACKEND, op,
                          "%.*s (%s:%d): %s: %s", (int)strcspn(call, "("), call, file, line,
                          cublasGetStatusName(s), cublasGetStatusString(s));
}

/* Every call whose failure an op keeps for sync goes through one of these,
 * so the message names it and where it is. Kernel launchers
 * (cf_cuda_kernels.h) return a cudaError_t value. */
#define CUDA_NOTE(c, op, call) note_cuda((c), (op), (cudaError_t)(call), #call, __FILE__, __LINE__)
#define CUBLAS_NOTE(c, op, call) note_cublas((c), (op), (call), #call, __FILE__, __LINE__)

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
  CF_TRY(cf_kv_get_int(cfg->kv, "threads", 1, 256, &threads, err));
  CF_TRY(cf_kv_get_int(cfg->kv, "device", 0, 63, &device, err));
  if (!cuda_probe())
    return cf_error_set(err, CF_ERR_BACKEND, "no NVIDIA GPU found (cudaGetDeviceCount() found "
                                             "none)");
  cuda_ctx *c = calloc(1, sizeof *c);
  if (!c) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  c->max_batch = cfg->max_batch;
  c->device = device;
  CUDA_NOTE(c, "create", cudaSetDevice(device));
  CUDA_NOTE(c, "create", cudaStreamCreate(&c->stream));
  if (c->first.status == CF_OK) CUBLAS_NOTE(c, "create", cublasCreate(&c->blas));
  if (c->first.status == CF_OK) CUBLAS_NOTE(c, "create", cublasSetStream(c->blas, c->stream));
  if (c->first.status == CF_OK)
    CUDA_NOTE(c, "create",
              cudaDeviceGetAttribute(&c->smem_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                     device));
  if (c->first.status == CF_OK)
    CUDA_NOTE(c, "create", cf_cuda_attention_allow_smem(c->smem_limit));
  if (c->first.status != CF_OK) {
    cf_status st = cf_error_set(err, c->first.status, "GPU %d: %s", device, c->first.msg);
    cu_destroy(c);
    return st;
  }
  /* Plain float32 GEMMs: no TF32, so results match the CPU backends. */
  cublasSetMathMode(c->blas, CUBLAS_DEFAULT_MATH);
  *ctx = c;
  return CF_OK;
}

static float *cu_alloc(void *ctx, size_t n, cf_error *err) {
  cuda_ctx *c = ctx;
  void *p = NULL;
  cudaError_t e = cudaMalloc(&p, (n ? n : 1) * sizeof(float));
  if (e != cudaSuccess) {
    if (err) describe_cuda(err, "alloc", e, "cudaMalloc", __FILE__, __LINE__);
    return NULL;
  }
  CUDA_NOTE(c, "alloc", cudaMemsetAsync(p, 0, (n ? n : 1) * sizeof(float), c->stream));
  return p;
}

static void cu_free(void *ctx, float *p) {
  (void)ctx;
  cudaFree(p);
}

static void cu_upload(void *ctx, float *dst, const float *src, size_t n) {
  cuda_ctx *c = ctx;
  CUDA_NOTE(c, "upload",
            cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyHostToDevice, c->stream));
  CUDA_NOTE(c, "upload", cudaStreamSynchronize(c->stream)); /* src may be reused at once */
}

static void cu_download(void *ctx, float *dst, const float *src, size_t n) {
  cuda_ctx *c = ctx;
  CUDA_NOTE(c, "download",
            cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToHost, c->stream));
  CUDA_NOTE(c, "download", cudaStreamSynchronize(c->stream));
}

/* An RPE table [225][dh*H] (element (p, i*H + h)) as [H][225][dh], so the
 * attention kernels read one head's table rows as consecutive floats. */
static float *rpe_head_major(const cf_weight_shape *shape, const float *data) {
  const int heads = shape->heads, depth = shape->cols / heads;
  float *hm = malloc((size_t)shape->rows * shape->cols * sizeof *hm);
  if (!hm) return NULL;
  for (int p = 0; p < shape->rows; p++)
    for (int i = 0; i < depth; i++)
      for (int h = 0; h < heads; h++)
        hm[((size_t)h * shape->rows + p) * depth + i] = data[(size_t)p * shape->cols + i * heads + h];
  return hm;
}

static cf_bweight *cu_weight_create(void *ctx, const cf_weight_shape *shape, const float *data,
                                    cf_error *err) {
  (void)ctx;
  const bool rpe = cf_weight_role_is_rpe(shape->role);
  if (rpe && (shape->rows != 225 || shape->heads <= 0 || shape->cols % shape->heads != 0)) {
    cf_error_set(err, CF_ERR_ARG, "an RPE table must be [225][dh*H] with H > 0 (got [%d][%d], H %d)",
                 shape->rows, shape->cols, shape->heads);
    return NULL;
  }
  cf_bweight *w = calloc(1, sizeof *w);
  float *hm = rpe ? rpe_head_major(shape, data) : NULL;
  if (!w || (rpe && !hm)) {
    free(w);
    free(hm);
    cf_error_set(err, CF_ERR_NOMEM, "out of memory for a weight record");
    return NULL;
  }
  if (hm) data = hm;
  *w = (cf_bweight){.role = shape->role, .rows = shape->rows, .cols = shape->cols};
  size_t bytes = (size_t)shape->rows * shape->cols * sizeof(float);
  cudaError_t e = cudaMalloc((void **)&w->dev, bytes);
  if (e != cudaSuccess) {
    describe_cuda(err, "weight_create", e, "cudaMalloc", __FILE__, __LINE__);
  } else if ((e = cudaMemcpy(w->dev, data, bytes, cudaMemcpyHostToDevice)) != cudaSuccess) {
    describe_cuda(err, "weight_create", e, "cudaMemcpy", __FILE__, __LINE__);
  }
  free(hm);
  if (e != cudaSuccess) {
    cudaFree(w->dev);
    free(w);
    return NULL;
  }
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
  CUBLAS_NOTE(c, "linear",
              cublasSgemm(c->blas, CUBLAS_OP_T, CUBLAS_OP_N, out, rows, in, &one, w->dev, in, x,
                          in, &zero, y, out));
  CUDA_NOTE(c, "linear",
            cf_cuda_bias_act((cf_cuda_stream)c->stream, rows, out, y, b ? b->dev : NULL, (int)act));
}

/* C[b] (m x n) = scale A[b] B[b]^T is column-major C^T = B A^T. */
static void cu_matmul_nt(void *ctx, int batch, int m, int n, int k, const float *a,
                         const float *bm, float scale, float *cm) {
  cuda_ctx *c = ctx;
  const float zero = 0.0f;
  CUBLAS_NOTE(c, "matmul_nt",
              cublasSgemmStridedBatched(c->blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &scale, bm, k,
                                        (long long)n * k, a, k, (long long)m * k, &zero, cm, n,
                                        (long long)m * n, batch));
}

static void cu_norm(void *ctx, cf_norm_kind kind, int rows, int width, const float *x, float alpha,
                    const float *skip, const cf_bweight *gamma, const cf_bweight *beta, float eps,
                    float *y) {
  cuda_ctx *c = ctx;
  CUDA_NOTE(c, "norm",
            cf_cuda_norm((cf_cuda_stream)c->stream, kind == CF_NORM_RMS, rows, width, x, alpha,
                         skip, gamma->dev, beta ? beta->dev : NULL, eps, y));
}

static void cu_attention(void *ctx, const cf_attention_args *a) {
  cuda_ctx *c = ctx;
  CUDA_NOTE(c, "attention",
            cf_cuda_attention((cf_cuda_stream)c->stream, a->batch, a->heads, a->depth, a->qkv,
                              a->rpe_q ? a->rpe_q->dev : NULL, a->rpe_k ? a->rpe_k->dev : NULL,
                              a->rpe_v ? a->rpe_v->dev : NULL, a->bias, a->scale, a->out,
                              c->smem_limit));
}

static void cu_gate(void *ctx, int batch, int d, float *x, const cf_bweight *mult,
                    const cf_bweight *add) {
  cuda_ctx *c = ctx;
  CUDA_NOTE(c, "gate",
            cf_cuda_gate((cf_cuda_stream)c->stream, batch, d, x, mult ? mult->dev : NULL,
                         add ? add->dev : NULL));
}

static void cu_copy_2d(void *ctx, int rows, int cols, const float *src, int ld_src, float *dst,
                       int ld_dst) {
  cuda_ctx *c = ctx;
  CUDA_NOTE(c, "copy_2d",
            cudaMemcpy2DAsync(dst, (size_t)ld_dst * sizeof(float), src,
                              (size_t)ld_src * sizeof(float), (size_t)cols * sizeof(float),
                              (size_t)rows, cudaMemcpyDeviceToDevice, c->stream));
}

static cf_status cu_sync(void *ctx, cf_error *err) {
  cuda_ctx *c = ctx;
  CUDA_NOTE(c, "sync", cudaStreamSynchronize(c->stream));
  return cf_backend_take_failure(&c->first, err);
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
    .device = true,
};

/* The module's one exported symbol (the rest is hidden). */
__attribute__((visibility("default"))) const cf_backend_desc *cf_cuda_module_entry(
    size_t iface_size, size_t desc_size);

const cf_backend_desc *cf_cuda_module_entry(size_t iface_size, size_t desc_size) {
  if (iface_size != sizeof(cf_backend_iface) || desc_size != sizeof(cf_backend_desc)) return NULL;
  return &cuda_module_desc;
}
