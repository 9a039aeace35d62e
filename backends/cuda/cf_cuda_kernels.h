/* cf_cuda_kernels.h: C launchers of the CUDA kernels (cf_cuda_kernels.cu),
 * so the backend itself stays C. Every launcher queues work on `stream`
 * and returns the launch status (a cudaError_t value, 0 = success). */
#ifndef CF_CUDA_KERNELS_H
#define CF_CUDA_KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CUstream_st *cf_cuda_stream;

/* y[rows][n] = act(y + bias) in place; bias [n] or NULL; act is a cf_op_act. */
int cf_cuda_bias_act(cf_cuda_stream s, int rows, int n, float *y, const float *bias, int act);

/* y = Norm(skip + alpha x) row-wise; rms != 0: RMSNorm (beta unused). */
int cf_cuda_norm(cf_cuda_stream s, int rms, int rows, int width, const float *x, float alpha,
                 const float *skip, const float *gamma, const float *beta, float eps, float *y);

/* Attention core, see cf_attention_args; RPE tables head-major
 * [H][225][dh] (NETWORK.md's [225][dh*H] rearranged at upload), or NULL;
 * bias [batch][H][64][64] or NULL. smem_limit: the device's shared memory
 * per block (opt-in); a head's work runs from shared memory when it fits. */
int cf_cuda_attention(cf_cuda_stream s, int batch, int heads, int depth, const float *qkv,
                      const float *rpe_q, const float *rpe_k, const float *rpe_v,
                      const float *bias, float scale, float *out, int smem_limit);

/* Lets the shared-memory attention kernel use up to smem_limit bytes on the
 * current device (once per backend, before the first cf_cuda_attention). */
int cf_cuda_attention_allow_smem(int smem_limit);

/* x[b][t][c] = x * mult[c][t] + add[c][t]; mult or add may be NULL. */
int cf_cuda_gate(cf_cuda_stream s, int batch, int d, float *x, const float *mult,
                 const float *add);

#ifdef __cplusplus
}
#endif

#endif /* CF_CUDA_KERNELS_H */
