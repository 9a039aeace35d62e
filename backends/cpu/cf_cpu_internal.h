/* cf_cpu_internal.h: what the CPU backends (openblas/, onednn/) share: the
 * weight record, the per-instance settings and the ops that are not a GEMM
 * (drivers here, inner kernels from the kernel set chosen at creation, see
 * cf_cpu_kernels.h). Each backend supplies its own linear and matmul_nt. */
#ifndef CF_CPU_INTERNAL_H
#define CF_CPU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/cf_backend.h"

/* A weight on a CPU backend. data is 64-byte aligned.
 *   MATRIX: [rows = out][cols = in] as given (both BLAS and oneDNN read it
 *           transposed for free); a backend may keep a reordered copy in
 *           `extra`.
 *   VECTOR: [cols].
 *   GATE:   transposed to [64][d] so a token's gates are contiguous.
 *   RPE_*:  [225][dh*H] as given, plus `table`, the per-head form its
 *           side's kernel reads, built at upload (cf_cpu_rpe_table):
 *           [H][dh][225], transposed with displacements reversed, for the
 *           query and key sides at depths the fast kernel takes (so for one
 *           query the 8 keys of a rank read 8 consecutive floats), else
 *           [H][225][dh] (a row per displacement). See
 *           cf_cpu_attention_layout.h. */
struct cf_bweight {
  cf_weight_role role;
  int rows, cols;
  float *data;
  float *table; /* RPE roles only */
  int heads;    /* RPE roles only: the H the table was built for */
  /* RPE roles, only on an instance with bf16 attention: the bf16 pair
   * form of table (cf_cpu_kernels.h, cf_cpu_attention_bf16_math):
   * [H][dp][225] reversed for the query and key sides, [H][225][dh] pair
   * rows for the value side; NULL where the float32 core runs (depth
   * above CF_CPU_MAX_FAST_DEPTH). */
  uint32_t *table_bf16;
  /* RPE roles, only on an instance with int8 attention: the int8 form of
   * table (cf_cpu_kernels.h, cf_cpu_int8_rpe): quads [H][dq][225]
   * reversed for the query (s8) and key (u8, value + 128) sides, with
   * scales [H][225] and, query side, corrections [H][225]; displacement
   * quads [H][225][dh] with column scales [H][dh] for the value side.
   * NULL where the float32 core runs (depth above CF_CPU_MAX_FAST_DEPTH,
   * or a value that is not finite). */
  uint32_t *table_int8;
  float *table_int8_scale;
  int32_t *table_int8_corr;
  /* Query and key sides at depths up to CF_CPU_JOINED_MAX_DEPTH, only on
   * an instance whose kernel set has scores_file: the joined form of table
   * (cf_cpu_attention_layout.h), [H][8][dh][14][16]; else NULL. */
  float *table_joined;
  /* Likewise from table_int8, on an instance whose int8 core has
   * scores_file: [H][8][dq][14][16]; else NULL. */
  uint32_t *table_int8_joined;
  /* RPE roles, only on an instance with AMX attention, at depths up to
   * CF_AMX_MAX_DEPTH: every head's joined table, then its displacement
   * table (cf_cpu_amx.h), [H][cf_amx_table_elems(dh)] bf16; else NULL. */
  uint16_t *table_amx;
  /* MATRIX role: data in gemm_rows's panels (cf_cpu_gemm_panels); built
   * by onednn on the weight's first per-position call
   * (cf_backend_iface.linear_positions), else NULL. */
  float *data_panels;
  void *extra;  /* backend-owned, freed by extra_free */
  void (*extra_free)(void *extra);
};

struct cf_cpu_kernels;
struct cf_cpu_attention_bf16_math;
struct cf_cpu_attention_int8_math;

/* Settings every CPU backend takes, from cf_backend_config. */
typedef struct cf_cpu_ctx {
  int max_batch;
  int threads; /* worker threads for every op (1 = the calling thread only) */
  const struct cf_cpu_kernels *kernels; /* the kernel set every op runs */
  /* The attention core in bf16 (cf_cpu_attention_bf16.c), or NULL for
   * float32. Set before any weight is uploaded: the RPE weights' bf16
   * tables are built at upload. */
  const struct cf_cpu_attention_bf16_math *attention_bf16;
  /* The attention core in int8 (cf_cpu_attention_int8.c), or NULL. Set,
   * as attention_bf16, before any weight is uploaded: the RPE weights'
   * int8 tables are built at upload. */
  const struct cf_cpu_attention_int8_math *attention_int8;
  /* The AMX attention (cf_cpu_amx.h) where the backend asks for it, set
   * before any upload (the RPE weights' joined tables are built there),
   * and its scratch, kept between calls (freed by cf_cpu_ctx_release). */
  bool attention_amx;
  void *amx_scratch;
  size_t amx_scratch_bytes;
  /* q, k, v widened to float32 for the cores where a call brings them in
   * bf16 (cf_attention_args.qkv_bf16) and the tiles do not take it (a
   * batch below their smallest); grown as calls need, freed with it. */
  float *qkv_wide;
  size_t qkv_wide_floats;
  cf_error first; /* the first failed op since the last sync (cf_cpu_sync) */
  struct cf_backend_fault *fault; /* cf_backend_config.fault: the testing hook, or NULL */
  char variant[256]; /* a backend's variant text where it says more than the kernel set */
} cf_cpu_ctx;

/* Reads threads=N (default 1) from cfg->kv into c and picks the kernel
 * set (cf_cpu_kernels_select: CFORMER_CPU_KERNELS, else the fastest this
 * CPU runs); fails if the options are bad or the forced set cannot run. */
cf_status cf_cpu_ctx_init(cf_cpu_ctx *c, const cf_backend_config *cfg,
                          cf_error *err);

/* The create and destroy slots of a backend whose context is a plain
 * cf_cpu_ctx (openblas, wasm): a context allocated and set up by
 * cf_cpu_ctx_init, and freed. */
cf_status cf_cpu_iface_create(const cf_backend_config *cfg, void **ctx, cf_error *err);
/* What cf_cpu_ctx_init and the ops allocated in c (not c itself). */
void cf_cpu_ctx_release(cf_cpu_ctx *c);
void cf_cpu_iface_destroy(void *ctx);

/* The cf_backend_iface.variant slot: the kernel set's name ("avx2",
 * "portable"); ctx is a cf_cpu_ctx *. */
const char *cf_cpu_kernels_name(void *ctx);

/* 64-byte aligned floats (zeroed); free with cf_cpu_free. */
float *cf_cpu_alloc(size_t n);
void cf_cpu_free(float *p);

/* Memory slots: host memory, so upload/download are memcpy. */
float *cf_cpu_iface_alloc(void *ctx, size_t n, cf_error *err);
void cf_cpu_iface_free(void *ctx, float *p);
void cf_cpu_iface_copy(void *ctx, float *dst, const float *src, size_t n);

cf_bweight *cf_cpu_weight_create(void *ctx, const cf_weight_shape *shape, const float *data,
                                 cf_error *err);
void cf_cpu_weight_free(void *ctx, cf_bweight *w);

/* A MATRIX weight's data [rows][cols] in gemm_rows's panels
 * (cf_cpu_kernels.h, CF_CPU_GEMM_PANEL), newly allocated (cf_cpu_free);
 * NULL when out of memory. */
float *cf_cpu_gemm_panels(const cf_bweight *w);

/* The sync slot: reports c->first (ctx is a cf_cpu_ctx *). */
cf_status cf_cpu_sync(void *ctx, cf_error *err);

/* True when an RPE weight's table is the reversed [H][dh][225] form: the
 * query and key sides at a depth the fast kernel takes. */
bool cf_cpu_rpe_reversed(cf_weight_role role, int depth);

/* y[rows][n] = act(y + bias) in place; bias is a VECTOR [n] or NULL. */
void cf_cpu_bias_act(const cf_cpu_ctx *c, int rows, int n, float *y, const cf_bweight *bias,
                     cf_op_act act);

/* The cf_backend_iface slots of the same names; ctx is a cf_cpu_ctx *
 * (first member of a backend's own context). */
/* cf_cpu_norm, also writing y rounded to bf16 (the kernel set's
 * to_bf16_row) into y_bf16 (cf_backend_iface.norm_bf16). */
void cf_cpu_norm_bf16(void *ctx, cf_norm_kind kind, int rows, int width, const float *x,
                      float alpha, const float *skip, const cf_bweight *gamma,
                      const cf_bweight *beta, float eps, float *y, cf_bf16 *y_bf16);
void cf_cpu_norm(void *ctx, cf_norm_kind kind, int rows, int width, const float *x, float alpha,
                 const float *skip, const cf_bweight *gamma, const cf_bweight *beta, float eps,
                 float *y);
void cf_cpu_attention(void *ctx, const cf_attention_args *args);

/* The bf16 attention of cf_cpu_attention's tasks (c->attention_bf16 set,
 * depth <= CF_CPU_MAX_FAST_DEPTH, every RPE weight given with its bf16
 * table); false, computing nothing, otherwise. */
bool cf_cpu_attention_bf16(cf_cpu_ctx *c, const cf_attention_args *a);

/* The int8 attention of cf_cpu_attention's tasks (c->attention_int8 set,
 * depth <= CF_CPU_MAX_FAST_DEPTH, every RPE weight given with its int8
 * table for this call's heads); false, computing nothing, otherwise. */
bool cf_cpu_attention_int8(cf_cpu_ctx *c, const cf_attention_args *a);

/* The attention op on AMX tiles (cf_cpu_attention_amx.c), where the
 * instance has it and the call suits it (batch, depth, tables); false
 * (nothing done) otherwise. */
bool cf_cpu_attention_amx(cf_cpu_ctx *c, const cf_attention_args *a);

/* The float32 per-head table of an RPE weight (NULL when w is NULL) into
 * *out; false when it was built for another head count or, by `reversed`,
 * another layout (cf_cpu_rpe_reversed). */
bool cf_cpu_rpe_table_of(const cf_bweight *w, const cf_attention_args *a, bool reversed,
                         const float **out);
void cf_cpu_gate(void *ctx, int batch, int d, float *x, const cf_bweight *mult,
                 const cf_bweight *add);
void cf_cpu_copy_2d(void *ctx, int rows, int cols, const float *src, int ld_src, float *dst,
                    int ld_dst);

#define CF_CPU_FEATURES                                                                    \
  (CF_FEAT_RPE_Q | CF_FEAT_RPE_K | CF_FEAT_RPE_V | CF_FEAT_SMOLGEN | CF_FEAT_RMS_NORM | \
   CF_FEAT_GATING)

/* cf_backend_iface.layer_chunk_bytes of the CPU backends, per thread:
 * about an L2 cache or two of a current server core (9 positions of CF-6M,
 * 448 KiB each). Each thread has its own L2, and with several threads a
 * chunk must also give each of them enough rows and (position, head)
 * tasks, so the chunk grows with the thread count. */
#define CF_CPU_LAYER_CHUNK_BYTES ((size_t)4 << 20)
size_t cf_cpu_layer_chunk_bytes(void *ctx);

/* The cf_backend_iface slots every backend built on these kernels fills
 * alike (onednn, openblas, wasm): host memory, the weights' free, the
 * norms, gates and copies, the layer chunk. A backend's table lists it
 * first and then its own slots, so a slot they all share is one edit. */
#define CF_CPU_IFACE_SLOTS                                                              \
  .alloc = cf_cpu_iface_alloc, .free = cf_cpu_iface_free, .upload = cf_cpu_iface_copy, \
  .download = cf_cpu_iface_copy, .weight_free = cf_cpu_weight_free, .norm = cf_cpu_norm, \
  .gate = cf_cpu_gate, .copy_2d = cf_cpu_copy_2d,                                       \
  .layer_chunk_bytes = cf_cpu_layer_chunk_bytes

/* And the compute slots of a backend whose kernels are all these but the
 * matrix product (openblas, wasm): the weights, attention, the failure
 * sync, the kernel set's name. */
#define CF_CPU_IFACE_KERNEL_SLOTS                                                   \
  .weight_create = cf_cpu_weight_create, .attention = cf_cpu_attention,            \
  .sync = cf_cpu_sync, .variant = cf_cpu_kernels_name

#define CF_CPU_ACTIVATIONS                                                       \
  ((1u << CF_OP_ACT_MISH) | (1u << CF_OP_ACT_RELU) | (1u << CF_OP_ACT_NONE) |    \
   (1u << CF_OP_ACT_TANH) | (1u << CF_OP_ACT_SIGMOID) | (1u << CF_OP_ACT_SELU) | \
   (1u << CF_OP_ACT_SWISH) | (1u << CF_OP_ACT_RELU2))

#endif /* CF_CPU_INTERNAL_H */
