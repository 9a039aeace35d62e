/* cf_onednn_internal.h: what the oneDNN backend's files share: the
 * instance, its cached projection primitives and a weight's extra record
 * (cf_onednn_backend.c: the op table; cf_onednn_linear.c: the projections). */
#ifndef CF_ONEDNN_INTERNAL_H
#define CF_ONEDNN_INTERNAL_H

#include <oneapi/dnnl/dnnl.h>
#include <stdbool.h>
#include <stddef.h>

#include "backends/cpu/cf_cpu_internal.h"
#include "backends/onednn/cf_onednn_attention.h"
#include "backends/onednn/cf_onednn_calls.h"
#include "backends/onednn/cf_onednn_precision.h"

/* One cached primitive and the memory objects it runs on (their data
 * handles are pointed at the caller's buffers on each call). */
typedef struct matmul_entry {
  int rows, in, out, act, has_bias;
  cf_precision prec;         /* of the weights (and so of the input) */
  bool bf16_dst;             /* writes bf16 (bf16 activations), not float32 */
  dnnl_memory_desc_t wei_md; /* the weights layout the primitive chose */
  bool wei_plain;            /* that layout is the weight's own ([out][in] = "ba") */
  dnnl_primitive_t prim;
  dnnl_memory_t src, wei, bias, dst;
} matmul_entry;

typedef struct onednn_ctx {
  cf_cpu_ctx cpu; /* first: the shared kernels take the context as a cf_cpu_ctx */
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  matmul_entry *cache; /* grows only when a new shape appears */
  int n_cache, cap_cache;
  /* precision=...: what weights are converted to at weight_create. */
  cf_precision precision;
  bool precision_auto; /* chosen by precision=auto (said in the variant) */
  unsigned f32_uses;    /* f32_roles=...: uses whose matrices stay float32 */
  cf_onednn_tally tally; /* MATRIX weights converted / kept in float32, and why */
  char variant[384];     /* cf_backend_iface.variant text */
  /* A projection's input converted on each call (bf16 or int8) and, for
   * int8, its per-row scales and the matmul's integer products; grown as
   * shapes need. */
  void *xbuf;
  size_t xbuf_floats;
  float *xscale;
  size_t xscale_floats;
  int32_t *acc;
  size_t acc_values;
  /* Warm starts (cf_backend_iface.prepare): the first pass's projections,
   * kept until prepare builds every batch size's primitives from them;
   * `builds` counts the per-shape work (primitives, reordered weights,
   * scratch growths) for the tests that check a warmed instance does
   * none. */
  cf_onednn_calls calls;
  bool first_pass_done; /* a sync has ended the first pass: stop keeping calls */
  long builds;
  /* bf16_activations=0|1: the encoder's activations between ops in bf16
   * at precision=bf16 (cf_backend_iface.bf16_activations). */
  bool bf16_acts;
  /* Body matrices (encoder layers, smolgen) kept float32 at bf16 (a value
   * beyond bf16's range): a layer's projection would then read a rounded
   * input the round trip did not round, so no bf16 activations. */
  int body_kept_f32;
  /* attention=...: the path the attention op runs (cf_onednn_attention.h);
   * attn NULL = the CPU kernels' cores. */
  cf_onednn_attention_choice attention;
  cf_onednn_attention *attn;
} onednn_ctx;

/* What a MATRIX weight keeps in its `extra`: its reduced-precision form
 * (precision=bf16/int8, made at weight_create) and reordered copies, one
 * per layout a primitive asked for (usually one; a few when different
 * batch sizes pick different blocks), made on first use, freed with the
 * weight. */
enum { MAX_LAYOUTS = 4 };
typedef struct od_weight {
  cf_onednn_lowp lowp; /* precision F32: the weight's own float data is used */
  int n;
  dnnl_memory_desc_t md[MAX_LAYOUTS];
  float *data[MAX_LAYOUTS];
} od_weight;

/* Keeps a failed oneDNN call (the first since the last sync) as
 * "<op>: <call>: <status name>", for sync (cf_cpu_sync) to report. */
void cf_onednn_record(onednn_ctx *c, dnnl_status_t s, const char *op, const char *call);
/* The fault_alloc testing hook before an allocation an op makes: true,
 * with the failure kept for sync, when this is the one to fail. */
bool cf_onednn_injected(onednn_ctx *c);
void cf_onednn_entry_free(matmul_entry *e);
/* extra_free of a MATRIX weight's od_weight. */
void cf_onednn_weight_extra_free(void *p);
/* The precision a weight was converted to (F32 when kept or plain). */
cf_precision cf_onednn_precision_of(const cf_bweight *w);

/* The projection Y = act(X W^T + b) on `rows` rows, X and Y float32 or
 * bf16 (x_bf16, y_bf16: bf16 activations), or with run false only what
 * it needs built (primitives, reordered weights, scratch), for prepare;
 * false when a build failed (recorded). */
bool cf_onednn_linear_rows(onednn_ctx *c, int rows, int in, int out, const void *x, bool x_bf16,
                           const cf_bweight *w, const cf_bweight *b, cf_op_act act, void *y,
                           bool y_bf16, bool run);

#endif /* CF_ONEDNN_INTERNAL_H */
