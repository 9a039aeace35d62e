/* cf_backend.h: the compute seam between the network code and the machines
 * that run it.
 *
 * The network (encoder/, policy_head/, value_heads/) is written once against
 * the ops below; a backend implements them. A backend is a table of function
 * pointers (cf_backend_iface, filled with designated initializers) plus an
 * opaque instance pointer. One registry table (cf_backend_registry.c) lists
 * every backend with its priority: the default is the highest-priority one
 * whose probe succeeds; test doubles have negative priority and are never
 * the default.
 *
 * Memory. Activations live in buffers the backend allocates (`alloc`): plain
 * host memory for CPU backends, device memory for GPU backends. Callers may
 * do pointer arithmetic on them (views into a buffer) but must not
 * dereference them; data crosses with `upload`/`download`. Weights are handed
 * over once, at network creation (`weight_create`), so a backend can reorder
 * or convert them then; ops see them only as opaque cf_bweight handles.
 *
 * Errors (zstd's discipline: the first failure wins and always reaches the
 * caller). Ops return nothing, so a layer reads as a list of ops; a backend
 * whose op fails (a CUDA launch, a oneDNN primitive, an argument a BLAS call
 * refuses) keeps the first failure since its last sync, naming the op, the
 * library call and its cause (cf_backend_note_failure), and reports it from
 * `sync`, which every backend has and cf_net_eval calls once per pass before
 * reading any output. What an op could only fail at on first use (a
 * per-head table, a reordered weight) is built at upload time, where
 * weight_create can refuse with its cause. The backend options
 * fault_alloc=N and fault_op=N make the N-th allocation or op of an
 * instance fail (cf_backend_fault.h), on every backend, so the callers'
 * error paths can be tested anywhere; the reference's fail_after=N makes
 * every sync after the first N fail.
 *
 * Shapes. Every op has a batch dimension; token-wise ops take rows =
 * batch * 64. "[A][B]" is row-major: element (a, b) at a*B + b. */
#ifndef CF_BACKEND_H
#define CF_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cf_kv.h"
#include "common/cf_status.h"

/* Activation fused into an op. The values are NETWORK.md's
 * ActivationFunction numbers, so a resolved network activation converts by
 * value (encoder/ checks that with static asserts). */
typedef enum cf_op_act {
  CF_OP_ACT_MISH = 1,
  CF_OP_ACT_RELU = 2,
  CF_OP_ACT_NONE = 3,
  CF_OP_ACT_TANH = 4,
  CF_OP_ACT_SIGMOID = 5,
  CF_OP_ACT_SELU = 6,
  CF_OP_ACT_SWISH = 7,
  CF_OP_ACT_RELU2 = 8,
  CF_OP_ACT_MAX = 8
} cf_op_act;

const char *cf_op_act_name(cf_op_act act);

/* True for the values an op can fuse (not DEFAULT 0, not SOFTMAX 9): a
 * resolved network activation v converts with (cf_op_act)v when this holds. */
static inline bool cf_op_act_valid(int v) { return v >= CF_OP_ACT_MISH && v <= CF_OP_ACT_MAX; }

typedef enum cf_norm_kind {
  CF_NORM_LAYER, /* (x - mean) / sqrt(var + eps) * gamma + beta */
  CF_NORM_RMS,   /* x / sqrt(mean(x^2) + eps) * gamma */
} cf_norm_kind;

/* Features a network may need beyond the required ops. A backend declares
 * those it runs in cf_backend_desc.features; cf_backend_check compares. */
enum {
  CF_FEAT_RPE_Q = 1u << 0,   /* attention: query-side relative position term */
  CF_FEAT_RPE_K = 1u << 1,   /* attention: key-side relative position term */
  CF_FEAT_RPE_V = 1u << 2,   /* attention: value-side relative position term */
  CF_FEAT_SMOLGEN = 1u << 3, /* attention: additive per-position score bias */
  CF_FEAT_RMS_NORM = 1u << 4,
  CF_FEAT_GATING = 1u << 5, /* embedding multiplicative / additive gates */
  CF_FEAT_COUNT = 6
};

/* "RPE q (relative position, query side)", ... for error messages. */
const char *cf_feature_name(unsigned feature_bit);

/* A weight tensor in the backend's own layout. Opaque; owned by the backend
 * instance that created it and freed with weight_free. */
typedef struct cf_bweight cf_bweight;

/* What a weight is for, so a backend can choose its layout. The data handed
 * to weight_create is always in NETWORK.md section 2 layout. */
typedef enum cf_weight_role {
  CF_WEIGHT_MATRIX, /* [rows = out][cols = in], for linear and smolgen's global matrix */
  CF_WEIGHT_VECTOR, /* [cols]: bias, gamma, beta (rows = 1) */
  CF_WEIGHT_GATE,   /* [rows = d][cols = 64]: channel c of token t at c*64 + t */
  /* Relative position tables [rows = 225][cols = dh*H]: element
   * (p, i*H + h), one role per side so a backend can build the layout that
   * side's kernel reads when the weight is uploaded (shape.heads = H). */
  CF_WEIGHT_RPE_Q,
  CF_WEIGHT_RPE_K,
  CF_WEIGHT_RPE_V,
} cf_weight_role;

static inline bool cf_weight_role_is_rpe(cf_weight_role r) {
  return r == CF_WEIGHT_RPE_Q || r == CF_WEIGHT_RPE_K || r == CF_WEIGHT_RPE_V;
}

/* Which part of the network a weight belongs to, so a backend running a
 * reduced precision can keep some parts in float32 (the f32_roles=...
 * option, cf_backend_config.f32_uses). BODY is 0, so a zero-initialised
 * shape is a body weight. */
typedef enum cf_weight_use {
  CF_WEIGHT_USE_BODY = 0,            /* encoder layers, smolgen, the embedding's FFN */
  CF_WEIGHT_USE_INPUT_EMBEDDING = 1, /* projections reading the input planes (ip_emb_w and
                                      * the dense embedding's preprocessing matrix) */
  CF_WEIGHT_USE_HEAD = 2,            /* policy, value and moves-left heads */
  CF_WEIGHT_USE_COUNT = 3
} cf_weight_use;

/* What weight_create is handed besides the data. */
typedef struct cf_weight_shape {
  cf_weight_role role;
  int rows, cols;
  int heads;         /* RPE roles: H (cols = dh * H); 0 otherwise */
  cf_weight_use use; /* a hint: backends without reduced precisions ignore it */
} cf_weight_shape;

/* Arguments of the attention core op (NETWORK.md section 5 steps 2-4). */
typedef struct cf_attention_args {
  int batch;
  int heads;               /* H */
  int depth;               /* dh; dm = H * dh */
  const float *qkv;        /* [batch*64][3*dm]: token t holds q | k | v, head h at h*dh */
  /* qkv holds cf_bf16 values, [batch*64][3*dm] from its start: set only
   * where the backend said it reads them (attention_takes_bf16). */
  bool qkv_bf16;
  const cf_bweight *rpe_q; /* [225][dh*H] or NULL */
  const cf_bweight *rpe_k; /* [225][dh*H] or NULL */
  const cf_bweight *rpe_v; /* [225][dh*H] or NULL */
  const float *bias;       /* [batch][H][64 q][64 k] added after scaling (smolgen), or NULL */
  float scale;             /* 1 / sqrt(dh) */
  float *out;              /* [batch*64][dm] */
  /* The output as bf16 (cf_bf16), [batch*64][dm] from out's start, in
   * place of float32; the backend may use out's floats as scratch first.
   * Set only by a net whose backend keeps bf16 activations
   * (cf_backend_iface.bf16_activations). */
  bool out_bf16;
} cf_attention_args;

/* A bfloat16 value: a float32's upper 16 bits, rounded to nearest even. */
typedef uint16_t cf_bf16;

/* Number formats a backend may run the projections (linear) in. F32 is
 * every backend's; the others trade accuracy for speed where a backend
 * declares them (cf_backend_desc.precisions) and the CPU runs them.
 * docs/BACKENDS.md "Precision" gives the tolerances. */
typedef enum cf_precision {
  CF_PRECISION_F32 = 0,  /* float32 throughout */
  CF_PRECISION_BF16 = 1, /* bfloat16 weights and inputs, float32 accumulation and output */
  CF_PRECISION_INT8 = 2, /* int8 weights (per output channel) and inputs (per row), f32 output */
  CF_PRECISION_COUNT = 3
} cf_precision;

/* "f32", "bf16", "int8". */
const char *cf_precision_name(cf_precision p);

/* Per-instance settings. Options are "key=value" items in one list
 * (common/cf_kv.h) that cf_backend_create and then the backend's create
 * read their keys from. Every backend reads threads=N (the reference only
 * threads=1), and through cf_backend_create precision=..., f32_roles=...,
 * fault_alloc=N and fault_op=N, so one list can be handed to any backend. */
typedef struct cf_backend_config {
  int max_batch; /* largest batch the instance will see */
  /* The options, one of: kv, a list parsed by the caller, who reads its own
   * keys from it too and checks once every reader has run that every key
   * was read (cf_kv_check_all_read; cf_net_create does); or options, the
   * same as text ("key=value,...", NULL or "" = none), which
   * cf_backend_create parses and checks itself. Backends read kv
   * (cf_backend_create sets it) and never see text. */
  cf_kv *kv;
  const char *options;
  /* Set by cf_backend_create from the precision=... option; only a
   * precision the backend declares in cf_backend_desc.precisions reaches
   * it. */
  cf_precision precision;
  /* precision=auto: `precision` is what cf_backend_auto_precision picked
   * (so the backend can say so in its variant string). */
  bool precision_auto;
  /* Set by cf_backend_create from the f32_roles=... option: bit (1u << cf_weight_use) for each use
   * whose MATRIX weights stay float32 under a reduced precision. Every
   * backend accepts the option; one that runs only float32 has nothing to
   * keep. 0 = none. */
  unsigned f32_uses;
  /* The fault_alloc=N testing hook for allocations a backend makes inside
   * weight_create or an op (a per-head table, a oneDNN primitive): it asks
   * cf_backend_fault_alloc before each. NULL (always, unless the option is
   * given) = none. */
  struct cf_backend_fault *fault;
} cf_backend_config;

/* The table a backend fills. Slots marked optional may be NULL. */
typedef struct cf_backend_iface {
  /* Lifecycle. */
  cf_status (*create)(const cf_backend_config *cfg, void **ctx, cf_error *err);
  void (*destroy)(void *ctx);

  /* Memory: n floats of backend memory (zeroed); NULL on failure, with
   * err (which may be NULL) naming the call and its cause. */
  float *(*alloc)(void *ctx, size_t n, cf_error *err);
  void (*free)(void *ctx, float *p);
  void (*upload)(void *ctx, float *dst, const float *host_src, size_t n);
  void (*download)(void *ctx, float *host_dst, const float *src, size_t n);

  /* Weights: copies data (rows*cols floats, NETWORK.md layout) and builds
   * every layout the ops will read, so no op has to allocate for it later.
   * NULL on failure, with err naming the call and its cause. */
  cf_bweight *(*weight_create)(void *ctx, const cf_weight_shape *shape, const float *data,
                               cf_error *err);
  void (*weight_free)(void *ctx, cf_bweight *w);

  /* Y[rows][out] = act(X[rows][in] W^T + b). W is a MATRIX [out][in]; b a
   * VECTOR [out] or NULL; Y must not overlap X. One sgemm (or matmul
   * primitive) plus post-ops. */
  void (*linear)(void *ctx, int rows, int in, int out, const float *x, const cf_bweight *w,
                 const cf_bweight *b, cf_op_act act, float *y);

  /* Optional: linear over positions x rows_each rows, the rows of one
   * position consecutive, for a backend whose matmuls round a row
   * differently with the number of rows in the call (oneDNN picks its
   * kernels by shape: measured on an AVX2 CPU). It computes each
   * position's rows as they would be alone, so a position's outputs do not
   * depend on what else is in its batch. The layers with one row (or one
   * row a head) a position go through it (cf_op_linear_positions: the
   * value heads' dense layers, smolgen, the dense embedding); those over a
   * position's 64 tokens gave the same bits at every batch tested
   * (tests/net/test_batch_invariance.c). NULL = linear over all the rows. */
  void (*linear_positions)(void *ctx, int positions, int rows_each, int in, int out,
                           const float *x, const cf_bweight *w, const cf_bweight *b, cf_op_act act,
                           float *y);

  /* Y[rows][width] = Norm(skip + alpha * X) with gamma (and beta for
   * LayerNorm); skip may be NULL (then Norm(alpha * X)). Y may alias X or
   * skip. gamma, beta are VECTORs [width]; beta is NULL for RMSNorm. */
  void (*norm)(void *ctx, cf_norm_kind kind, int rows, int width, const float *x, float alpha,
               const float *skip, const cf_bweight *gamma, const cf_bweight *beta, float eps,
               float *y);

  /* Multi-head attention core with relative position terms (see args). */
  void (*attention)(void *ctx, const cf_attention_args *args);

  /* Optional (CF_FEAT_GATING): X[batch][64][d] in place:
   * x[t][c] = x[t][c] * mult[c][t] + add[c][t]; mult or add may be NULL. */
  void (*gate)(void *ctx, int batch, int d, float *x, const cf_bweight *mult,
               const cf_bweight *add);

  /* C[b][m][n] = scale * A[b][m][k] B[b][n][k]^T for b < batch (batched
   * A B^T; the attention policy's from-to logits). */
  void (*matmul_nt)(void *ctx, int batch, int m, int n, int k, const float *a, const float *bm,
                    float scale, float *c);

  /* dst[r*ld_dst + c] = src[r*ld_src + c] for r < rows, c < cols (column
   * concatenation of token features). */
  void (*copy_2d)(void *ctx, int rows, int cols, const float *src, int ld_src, float *dst,
                  int ld_dst);

  /* Waits for queued ops and reports the first failure since the last
   * call (then forgets it): "<op>: <call>: <cause>". Required: a backend
   * whose ops cannot fail returns CF_OK. */
  cf_status (*sync)(void *ctx, cf_error *err);

  /* Optional: which of its code paths this instance runs, for display (the
   * CPU backends' kernel set: "avx2", "portable"). NULL = only one. */
  const char *(*variant)(void *ctx);

  /* Optional: how many bytes of one layer's activations the network should
   * keep in flight. Larger batches then run each encoder layer a chunk of
   * positions at a time, so the activations stay in the CPU caches between
   * ops (the CPU backends: CF_CPU_LAYER_CHUNK_BYTES per thread). NULL or 0 =
   * the whole batch at once (GPU backends, whose kernels want the largest
   * batches). */
  size_t (*layer_chunk_bytes)(void *ctx);

  /* Optional: a simulated device (backends/sim/). It runs no op and holds
   * no weights: the network answers each pass from the positions
   * themselves (net/cf_net_sim.h) and the pass takes this many seconds for
   * n positions, counted from its start. A backend with this slot needs
   * only create, destroy, alloc, free and sync. */
  double (*pass_seconds)(void *ctx, int n);

  /* Optional: a backend whose kernels are built per shape (oneDNN's
   * primitives, a weight reordered for the layout one of them picks)
   * builds, here, every one the network will ask for at batch sizes 1 to
   * max_batch, so no pass after it builds any (cf_net_warm: the first
   * search, and the first at each batch size, as fast as the next). It
   * learns the network's calls from the one pass at batch 1 that
   * cf_net_warm makes just before; a call with r rows there has n * r at
   * batch n. Fails with the first failure, as sync would. NULL = the
   * backend builds nothing per shape. */
  cf_status (*prepare)(void *ctx, int max_batch, cf_error *err);

  /* Optional (bf16 activations): true when this instance keeps the
   * activations between an encoder layer's ops in bfloat16, the precision
   * its matmuls read, instead of a float32 round trip between an op and
   * the next matmul's conversion (docs/PRECISION.md): the layer then asks
   * for bf16 where a matmul reads (linear_bf16, norm_bf16), and for the
   * attention's q, k, v and output in bf16 where it takes them so
   * (attention_takes_bf16: qkv_bf16, out_bf16). The residual stream
   * stays float32. Asked once the weights are uploaded (a backend may
   * decline for what they hold). Requires linear_bf16 and norm_bf16.
   * NULL = float32 activations. */
  bool (*bf16_activations)(void *ctx);
  /* Optional, with bf16_activations: whether the attention op reads q, k
   * and v and writes its output in bf16 as they are (qkv_bf16, out_bf16)
   * for a call of this batch and depth; where it says no, the layer keeps
   * them float32 (a call that gets bf16 anyway still computes the same,
   * widening q, k, v and narrowing its output). */
  bool (*attention_takes_bf16)(void *ctx, int batch, int depth);
  /* linear on a weight in bf16, with its input (x_bf16) and/or output
   * (y_bf16) as cf_bf16 arrays in place of float32 ([rows][in],
   * [rows][out]). Every projection of an encoder layer comes through it,
   * so that a backend that builds per shape (prepare) builds both outputs
   * of one whose output was float32 in the warm-up (q, k, v at a batch
   * the attention takes bf16 at). */
  void (*linear_bf16)(void *ctx, int rows, int in, int out, const void *x, bool x_bf16,
                      const cf_bweight *w, const cf_bweight *b, cf_op_act act, void *y,
                      bool y_bf16);
  /* norm that also writes y rounded to bf16 into y_bf16 [rows][width]. */
  void (*norm_bf16)(void *ctx, cf_norm_kind kind, int rows, int width, const float *x,
                    float alpha, const float *skip, const cf_bweight *gamma,
                    const cf_bweight *beta, float eps, float *y, cf_bf16 *y_bf16);

  /* Optional, for tests: how many per-shape builds (primitives, reordered
   * weights, scratch growths) the instance has made since its creation;
   * a warmed instance's count stays put. NULL = it makes none. */
  long (*shape_builds)(void *ctx);
} cf_backend_iface;

/* One registry entry. */
typedef struct cf_backend_desc {
  const char *name;
  const char *summary;
  int priority;         /* default backend = highest available; test doubles < 0 */
  unsigned features;    /* CF_FEAT_* it runs (a NULL gate slot clears CF_FEAT_GATING) */
  unsigned activations; /* bit (1u << cf_op_act) for each activation it fuses */
  bool (*probe)(void);  /* cheap availability check (a GPU present?); NULL = always */
  const char *unavailable; /* why probe can fail, for messages ("needs an NVIDIA GPU") */
  const cf_backend_iface *iface;
  /* Bit (1u << cf_precision) for each precision beyond F32 it may run
   * (create still refuses one the CPU lacks); 0 = float32 only. */
  unsigned precisions;
  /* The search's MinibatchSize when the user leaves it at 0: the batch
   * that keeps this backend busy while one network call stays short enough
   * to stop on (docs/SEARCH.md). Every registered backend declares one. */
  int default_minibatch;
  /* Optional: what precision=auto runs on this CPU: the fastest of the
   * declared precisions the CPU runs natively whose accuracy on a trained
   * network stays within docs/PRECISION.md's bound for auto. NULL = f32. */
  cf_precision (*auto_precision)(void);
  /* Optional: an environment variable the backend's library reads once,
   * when the process loads it, and the value it should run with on this
   * CPU; false when nothing needs setting (or the user set it). Library
   * code cannot act on it (the library is loaded already); a program can,
   * by setting it and executing itself again before it does anything
   * else (tools/cf_startup_env.h). */
  bool (*startup_env)(const char **name, const char **value);
  /* It computes on a device of its own (a GPU, the simulated accelerator),
   * so the search keeps several batches on it at once: the UCI engine's
   * Threads are batches in flight there (Lc0's search threads), and lanes
   * on the CPU backends. */
  bool device;
} cf_backend_desc;

/* A backend instance. iface is the table its ops go through: desc->iface,
 * or the fault-injecting wrapper around it (cf_backend_fault.h). */
typedef struct cf_backend {
  const cf_backend_desc *desc;
  const cf_backend_iface *iface;
  void *ctx;
} cf_backend;

/* Registry: every compiled-in backend, highest priority first. */
int cf_backend_count(void);
const cf_backend_desc *cf_backend_at(int i);
/* For tests only: lists d (a test double: priority < 0, else ignored)
 * after the compiled-in backends, so it is found by name and never the
 * default; NULL takes it out. Call before any engine or network looks at
 * the registry (the UCI Backend option lists the names once), from one
 * thread. */
void cf_backend_set_test_double(const cf_backend_desc *d);
/* NULL if no backend has that name. */
const cf_backend_desc *cf_backend_find(const char *name);
/* The highest-priority backend whose probe succeeds (never one with
 * priority < 0); NULL if none. */
const cf_backend_desc *cf_backend_default(void);

/* The first compiled-in backend's startup_env that asks for a value
 * (cf_backend_desc.startup_env): true with *name and *value set, else
 * false. */
bool cf_backend_startup_env(const char **name, const char **value);

/* What precision=auto runs on d on this CPU (F32 when d has no
 * auto_precision). */
cf_precision cf_backend_auto_precision(const cf_backend_desc *d);

/* Creates an instance of the named backend (NULL or "" = the default).
 * Fails naming the backend if it is unknown, unavailable or incomplete, if
 * an option's value is refused, or if the options ask for a precision it
 * does not declare (naming the backends that do). The precision=... item
 * is read here and handed over as cfg->precision; precision=auto is every
 * backend's and is never refused: it becomes cf_backend_auto_precision(d).
 * The f32_roles=... item is read the same way (cfg->f32_uses) and never
 * refused for a valid value. Options given as text are parsed here and an
 * unknown key is refused here, naming the backend and the keys it reads;
 * with a list (cfg->kv) that check is the caller's. */
cf_status cf_backend_create(const char *name, const cf_backend_config *cfg, cf_backend **out,
                            cf_error *err);
/* Accepts NULL. */
void cf_backend_free(cf_backend *be);

/* The instance's code path (cf_backend_iface.variant), e.g. "avx2"; NULL
 * for a backend with only one. */
const char *cf_backend_variant(const cf_backend *be);

/* Whether be is a simulated device (cf_backend_iface.pass_seconds), and
 * how long its pass of n positions takes. */
bool cf_backend_simulated(const cf_backend *be);
double cf_backend_pass_seconds(const cf_backend *be, int n);

/* cf_backend_iface.prepare on be (CF_OK when it has none, or when be runs
 * behind the fault hooks' wrapper, whose counts are the caller's ops). */
cf_status cf_backend_prepare(cf_backend *be, int max_batch, cf_error *err);
/* Whether be has per-shape builds to prepare (cf_backend_iface.prepare). */
bool cf_backend_has_prepare(const cf_backend *be);
/* cf_backend_iface.shape_builds on be; 0 when it has none. For tests. */
long cf_backend_shape_builds(const cf_backend *be);

/* The instance's cf_backend_iface.layer_chunk_bytes; 0 when it has none. */
size_t cf_backend_layer_chunk_bytes(const cf_backend *be);

/* Whole-network capability check: fails naming the first needed feature or
 * activation the backend lacks, and the backend. */
cf_status cf_backend_check(const cf_backend *be, unsigned features, unsigned activations,
                           cf_error *err);

/* Thin dispatchers, so layer code reads `cf_op_linear(be, ...)`. */
/* n floats of backend memory for `what` ("encoder activations"); fails
 * naming the backend, the size and the cause. */
cf_status cf_op_buffer(cf_backend *be, size_t n, const char *what, float **out, cf_error *err);
/* The same without a message: NULL on failure. */
float *cf_op_alloc(cf_backend *be, size_t n);
void cf_op_free(cf_backend *be, float *p);
void cf_op_upload(cf_backend *be, float *dst, const float *host_src, size_t n);
void cf_op_download(cf_backend *be, float *host_dst, const float *src, size_t n);
/* Uploads a weight; a NULL data or zero size gives NULL (an absent tensor). */
cf_status cf_op_weight(cf_backend *be, cf_weight_role role, int rows, int cols, const float *data,
                       cf_bweight **out, cf_error *err);
/* The same for a weight with a use other than BODY (cf_op_weight's). */
cf_status cf_op_weight_use(cf_backend *be, cf_weight_use use, cf_weight_role role, int rows,
                           int cols, const float *data, cf_bweight **out, cf_error *err);
/* The same for a relative position table of `heads` heads (an RPE role). */
cf_status cf_op_weight_rpe(cf_backend *be, cf_weight_role role, int heads, int rows, int cols,
                           const float *data, cf_bweight **out, cf_error *err);
void cf_op_weight_free(cf_backend *be, cf_bweight *w);
void cf_op_linear(cf_backend *be, int rows, int in, int out, const float *x, const cf_bweight *w,
                  const cf_bweight *b, cf_op_act act, float *y);
/* cf_op_linear over positions x rows_each rows, the rows of one position
 * consecutive, through the backend's linear_positions where it has one;
 * cf_iface_linear_positions the same on a table and context (a wrapper's
 * inner backend). */
void cf_iface_linear_positions(const cf_backend_iface *iface, void *ctx, int positions,
                               int rows_each, int in, int out, const float *x,
                               const cf_bweight *w, const cf_bweight *b, cf_op_act act, float *y);
void cf_op_linear_positions(cf_backend *be, int positions, int rows_each, int in, int out,
                            const float *x, const cf_bweight *w, const cf_bweight *b,
                            cf_op_act act, float *y);
void cf_op_norm(cf_backend *be, cf_norm_kind kind, int rows, int width, const float *x, float alpha,
                const float *skip, const cf_bweight *gamma, const cf_bweight *beta, float eps,
                float *y);
/* bf16 activations (cf_backend_iface.bf16_activations): whether be keeps
 * them, whether its attention takes q, k, v and its output in bf16 at this
 * batch and depth (attention_takes_bf16), and the two ops that read or
 * write them. */
bool cf_backend_bf16_activations(const cf_backend *be);
bool cf_backend_attention_takes_bf16(const cf_backend *be, int batch, int depth);
void cf_op_linear_bf16(cf_backend *be, int rows, int in, int out, const void *x, bool x_bf16,
                       const cf_bweight *w, const cf_bweight *b, cf_op_act act, void *y,
                       bool y_bf16);
void cf_op_norm_bf16(cf_backend *be, cf_norm_kind kind, int rows, int width, const float *x,
                     float alpha, const float *skip, const cf_bweight *gamma,
                     const cf_bweight *beta, float eps, float *y, cf_bf16 *y_bf16);
void cf_op_attention(cf_backend *be, const cf_attention_args *args);
void cf_op_gate(cf_backend *be, int batch, int d, float *x, const cf_bweight *mult,
                const cf_bweight *add);
void cf_op_matmul_nt(cf_backend *be, int batch, int m, int n, int k, const float *a, const float *b,
                     float scale, float *c);
void cf_op_copy_2d(cf_backend *be, int rows, int cols, const float *src, int ld_src, float *dst,
                   int ld_dst);
cf_status cf_op_sync(cf_backend *be, cf_error *err);

/* For backends: keeps the first failure since the last sync in *first
 * (status CF_OK = none yet) as "<op>: <message>"; later ones are dropped,
 * being most often consequences of the first. */
void cf_backend_note_failure(cf_error *first, cf_status status, const char *op, const char *fmt,
                             ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* For a backend's sync: reports *first into err and clears it; CF_OK when
 * nothing failed. */
cf_status cf_backend_take_failure(cf_error *first, cf_error *err);

#endif /* CF_BACKEND_H */
