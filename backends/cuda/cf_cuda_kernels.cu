// cf_cuda_kernels.cu: the CUDA kernels of the CUDA backend: bias +
// activation, LayerNorm/RMSNorm, input gating and the attention core with
// the three relative position terms (NETWORK.md section 5). float32
// throughout; GEMMs are cuBLAS (cf_cuda_backend.c).
#include <math.h>

#include "backends/cuda/cf_cuda_kernels.h"

// cf_op_act values (backends/cf_backend.h).
enum { MISH = 1, RELU = 2, NONE = 3, TANH = 4, SIGMOID = 5, SELU = 6, SWISH = 7, RELU2 = 8 };

__device__ static float activate(int act, float x) {
  switch (act) {
    case MISH: {
      if (x > 20.0f) return x;
      float e = expf(x), n = e * (e + 2.0f);
      return x * n / (n + 2.0f);
    }
    case RELU: return x > 0.0f ? x : 0.0f;
    case TANH: return tanhf(x);
    case SIGMOID: return 1.0f / (1.0f + expf(-x));
    case SELU:
      return 1.0507009873554805f * (x > 0.0f ? x : 1.6732632423543772f * (expf(x) - 1.0f));
    case SWISH: return x / (1.0f + expf(-x));
    case RELU2: return x > 0.0f ? x * x : 0.0f;
    default: return x;
  }
}

__global__ static void bias_act_kernel(long long total, int n, float *y, const float *bias,
                                       int act) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  float v = y[i] + (bias ? bias[i % n] : 0.0f);
  y[i] = activate(act, v);
}

extern "C" int cf_cuda_bias_act(cf_cuda_stream s, int rows, int n, float *y, const float *bias,
                                int act) {
  long long total = (long long)rows * n;
  if (total == 0 || (!bias && act == NONE)) return 0;
  bias_act_kernel<<<(unsigned)((total + 255) / 256), 256, 0, s>>>(total, n, y, bias, act);
  return (int)cudaGetLastError();
}

// Block-wide sum over blockDim.x (a multiple of 32, at most 1024) threads.
__device__ static float block_sum(float v, float *shared) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < (int)(blockDim.x >> 5); w++) total += shared[w];
  return total;
}

// One block per row. The row is staged in y (which may alias x or skip:
// each element is read before this thread writes it).
__global__ static void norm_kernel(int rms, int width, const float *x, float alpha,
                                   const float *skip, const float *gamma, const float *beta,
                                   float eps, float *y) {
  __shared__ float shared[32];
  size_t base = (size_t)blockIdx.x * width;
  float sum = 0.0f, sq = 0.0f;
  for (int c = threadIdx.x; c < width; c += blockDim.x) {
    float v = (skip ? skip[base + c] : 0.0f) + alpha * x[base + c];
    y[base + c] = v;
    sum += v;
    sq += v * v;
  }
  sum = block_sum(sum, shared);
  sq = block_sum(sq, shared);
  float mean = rms ? 0.0f : sum / width;
  float var = rms ? sq / width : 0.0f;
  if (!rms) {
    float d = 0.0f;
    for (int c = threadIdx.x; c < width; c += blockDim.x) {
      float v = y[base + c] - mean;
      d += v * v;
    }
    var = block_sum(d, shared) / width;
  }
  float inv = rsqrtf(var + eps);
  for (int c = threadIdx.x; c < width; c += blockDim.x)
    y[base + c] = (y[base + c] - mean) * inv * gamma[c] + (beta && !rms ? beta[c] : 0.0f);
}

extern "C" int cf_cuda_norm(cf_cuda_stream s, int rms, int rows, int width, const float *x,
                            float alpha, const float *skip, const float *gamma, const float *beta,
                            float eps, float *y) {
  if (rows == 0) return 0;
  norm_kernel<<<rows, 256, 0, s>>>(rms, width, x, alpha, skip, gamma, beta, eps, y);
  return (int)cudaGetLastError();
}

// Relative position p of key k seen from query q: 15 (rank diff + 7) +
// (file diff + 7), the row of a [225] table (NETWORK.md section 5).
__device__ static int rel_pos(int q, int k) {
  return 15 * ((q >> 3) - (k >> 3) + 7) + ((q & 7) - (k & 7) + 7);
}

// The attention core of one (position, head) per block, everything in
// shared memory: q, k and v of the head's 64 tokens, the head's tables
// (head-major, so a table row is `depth` consecutive floats) and the 64x64
// scores. Rows are padded to depth + 1 floats so that threads reading the
// same depth of different rows hit different banks. 256 threads: for the
// scores, thread t takes query t / 4 against keys t % 4, +4, ... (16 keys);
// a warp per 8 rows for the softmax; then (query, depth) pairs for the
// output, consecutive threads writing consecutive depths.
#define ATT_THREADS 256

static size_t att_smem_floats(int depth, int n_tables) {
  const size_t dp = (size_t)depth + 1;
  return 3 * 64 * dp + 64 * 65 + (size_t)n_tables * 225 * dp;
}

__global__ static void __launch_bounds__(ATT_THREADS)
attention_smem_kernel(int heads, int depth, const float *qkv, const float *rpe_q,
                      const float *rpe_k, const float *rpe_v, const float *bias, float scale,
                      float *out) {
  extern __shared__ float sm[];
  const int h = blockIdx.x, b = blockIdx.y, tid = threadIdx.x;
  const int dm = heads * depth, ld = 3 * dm, dp = depth + 1;
  float *Qs = sm, *Ks = Qs + 64 * dp, *Vs = Ks + 64 * dp, *S = Vs + 64 * dp;
  float *next = S + 64 * 65;
  float *RQ = NULL, *RK = NULL, *RV = NULL;
  if (rpe_q) RQ = next, next += 225 * dp;
  if (rpe_k) RK = next, next += 225 * dp;
  if (rpe_v) RV = next;

  const float *tok = qkv + (size_t)b * 64 * ld + h * depth;
  for (int e = tid; e < 64 * depth; e += ATT_THREADS) {
    const int t = e / depth, i = e - t * depth;
    const float *row = tok + (size_t)t * ld;
    Qs[t * dp + i] = row[i];
    Ks[t * dp + i] = row[dm + i];
    Vs[t * dp + i] = row[2 * dm + i];
  }
  const size_t table = (size_t)h * 225 * depth;
  for (int e = tid; e < 225 * depth; e += ATT_THREADS) {
    const int p = e / depth, i = e - p * depth;
    if (RQ) RQ[p * dp + i] = rpe_q[table + e];
    if (RK) RK[p * dp + i] = rpe_k[table + e];
    if (RV) RV[p * dp + i] = rpe_v[table + e];
  }
  __syncthreads();

  {
    const int q = tid >> 2, k0 = tid & 3;
    float acc[16];
    int pk[16];
#pragma unroll
    for (int j = 0; j < 16; j++) acc[j] = 0.0f, pk[j] = rel_pos(q, k0 + 4 * j) * dp;
    for (int i = 0; i < depth; i++) {
      const float qi = Qs[q * dp + i];
#pragma unroll
      for (int j = 0; j < 16; j++) {
        const float ki = Ks[(k0 + 4 * j) * dp + i];
        float a = qi * (ki + (RQ ? RQ[pk[j] + i] : 0.0f));
        if (RK) a += ki * RK[pk[j] + i];
        acc[j] += a;
      }
    }
    const float *brow = bias ? bias + (((size_t)b * heads + h) * 64 + q) * 64 : NULL;
#pragma unroll
    for (int j = 0; j < 16; j++) {
      const int k = k0 + 4 * j;
      S[q * 65 + k] = acc[j] * scale + (brow ? brow[k] : 0.0f);
    }
  }
  __syncthreads();

  {
    const int warp = tid >> 5, lane = tid & 31;
    for (int r = warp * 8; r < warp * 8 + 8; r++) {
      float a = S[r * 65 + lane], c = S[r * 65 + lane + 32];
      float mx = fmaxf(a, c);
      for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
      a = expf(a - mx);
      c = expf(c - mx);
      float sum = a + c;
      for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
      S[r * 65 + lane] = a / sum;
      S[r * 65 + lane + 32] = c / sum;
    }
  }
  __syncthreads();

  float *O = out + (size_t)b * 64 * dm + h * depth;
  for (int e = tid; e < 64 * depth; e += ATT_THREADS) {
    const int q = e / depth, i = e - q * depth;
    const float *w = S + q * 65;
    float o = 0.0f;
    for (int j = 0; j < 64; j++) {
      float v = Vs[j * dp + i];
      if (RV) v += RV[rel_pos(q, j) * dp + i];
      o += w[j] * v;
    }
    O[(size_t)q * dm + i] = o;
  }
}

// Depths whose tables do not fit in shared memory (over about 60): one
// block per (position, head, query), reading everything from global memory;
// thread k scores key k, then the block applies the softmax and threads
// split the output depth. Tables head-major, as above.
__global__ static void attention_kernel(int heads, int depth, const float *qkv,
                                        const float *rpe_q, const float *rpe_k,
                                        const float *rpe_v, const float *bias, float scale,
                                        float *out) {
  __shared__ float w[64];
  __shared__ float stat[2];
  const int q = blockIdx.x, h = blockIdx.y, b = blockIdx.z, k = threadIdx.x;
  const int dm = heads * depth, ld = 3 * dm;
  const float *tok = qkv + (size_t)b * 64 * ld;
  const float *Q = tok + (size_t)q * ld + h * depth;
  const float *K = tok + (size_t)k * ld + dm + h * depth;
  const size_t table = (size_t)h * 225 * depth;
  const size_t pk = table + (size_t)rel_pos(q, k) * depth;
  float acc = 0.0f;
  for (int i = 0; i < depth; i++)
    acc += Q[i] * (K[i] + (rpe_q ? rpe_q[pk + i] : 0.0f)) + (rpe_k ? K[i] * rpe_k[pk + i] : 0.0f);
  float s = acc * scale;
  if (bias) s += bias[(((size_t)b * heads + h) * 64 + q) * 64 + k];
  w[k] = s;
  __syncthreads();
  if (k == 0) {
    float mx = w[0];
    for (int j = 1; j < 64; j++) mx = fmaxf(mx, w[j]);
    stat[0] = mx;
  }
  __syncthreads();
  w[k] = expf(s - stat[0]);
  __syncthreads();
  if (k == 0) {
    float sum = 0.0f;
    for (int j = 0; j < 64; j++) sum += w[j];
    stat[1] = sum;
  }
  __syncthreads();
  w[k] /= stat[1];
  __syncthreads();
  float *O = out + ((size_t)b * 64 + q) * dm + h * depth;
  for (int i = threadIdx.x; i < depth; i += blockDim.x) {
    float o = 0.0f;
    for (int j = 0; j < 64; j++) {
      float v = tok[(size_t)j * ld + 2 * dm + h * depth + i];
      if (rpe_v) v += rpe_v[table + (size_t)rel_pos(q, j) * depth + i];
      o += w[j] * v;
    }
    O[i] = o;
  }
}

extern "C" int cf_cuda_attention_allow_smem(int smem_limit) {
  return (int)cudaFuncSetAttribute(attention_smem_kernel,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit);
}

extern "C" int cf_cuda_attention(cf_cuda_stream s, int batch, int heads, int depth,
                                 const float *qkv, const float *rpe_q, const float *rpe_k,
                                 const float *rpe_v, const float *bias, float scale, float *out,
                                 int smem_limit) {
  if (batch == 0) return 0;
  const int n_tables = (rpe_q != NULL) + (rpe_k != NULL) + (rpe_v != NULL);
  const size_t bytes = att_smem_floats(depth, n_tables) * sizeof(float);
  if (bytes <= (size_t)smem_limit) {
    attention_smem_kernel<<<dim3(heads, batch), ATT_THREADS, bytes, s>>>(
        heads, depth, qkv, rpe_q, rpe_k, rpe_v, bias, scale, out);
    return (int)cudaGetLastError();
  }
  dim3 grid(64, heads, batch);
  attention_kernel<<<grid, 64, 0, s>>>(heads, depth, qkv, rpe_q, rpe_k, rpe_v, bias, scale, out);
  return (int)cudaGetLastError();
}

__global__ static void gate_kernel(long long total, int d, float *x, const float *mult,
                                   const float *add) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  int c = (int)(i % d), t = (int)((i / d) % 64);
  float v = x[i];
  if (mult) v *= mult[c * 64 + t];
  if (add) v += add[c * 64 + t];
  x[i] = v;
}

extern "C" int cf_cuda_gate(cf_cuda_stream s, int batch, int d, float *x, const float *mult,
                            const float *add) {
  long long total = (long long)batch * 64 * d;
  if (total == 0) return 0;
  gate_kernel<<<(unsigned)((total + 255) / 256), 256, 0, s>>>(total, d, x, mult, add);
  return (int)cudaGetLastError();
}
