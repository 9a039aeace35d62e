/* cf_onednn_attention.h: the attention op as batched matrix products on
 * oneDNN (the attention=onednn path of the oneDNN backend), beside the
 * CPU kernels' dot-product cores (backends/cpu/cf_cpu_attention*.c).
 *
 * Per head h and position b, with p(q, k) the displacement of query q
 * from key k (cf_cpu_attention_layout.h) and T = 225 displacements:
 *   S   = Q K^T                           (batch H*B of 64x64, depth dh)
 *   Rq  = Q Eq^T, Rk = K Ek^T             (batch H of (B*64)xT: one table
 *                                          per head serves every position)
 *   s[q][k] = (S[q][k] + Rq[q][p] + Rk[k][p]) * scale + bias, softmax -> A
 *   O   = A V + A' Ev                     (A'[q][p(q, k)] = A[q][k], 0 for
 *                                          the displacements q never meets)
 * so the five products run on oneDNN's matmul kernels (AMX tiles where the
 * CPU has them) and only the gathers, the softmax and the conversions are
 * row loops. Every operand is in the backend's precision: float32, bf16
 * (products accumulated in float32), or int8 with one scale per row of
 * each side of a product (q, k and softmax rows, each table displacement
 * for Eq/Ek, each depth channel of V and Ev), applied to the exact integer
 * products in the gathers. Softmax, sums and outputs are float32. */
#ifndef CF_ONEDNN_ATTENTION_H
#define CF_ONEDNN_ATTENTION_H

#include <oneapi/dnnl/dnnl.h>
#include <stdbool.h>

#include "backends/cf_backend.h"
#include "common/cf_kv.h"

/* attention=auto|cpu|onednn|amx. cpu: the CPU cores; onednn: this path;
 * amx: the CPU backends' own AMX tile code (backends/cpu/cf_cpu_amx.h) at
 * batches from CF_AMX_MIN_BATCH, the bf16 cores below, refused (naming
 * the paths there are) where the CPU or OS runs no AMX tiles or the
 * precision is not bf16, so a benchmark cannot time the cores by mistake.
 * auto: amx where it runs, else cpu; never this path, which measured
 * slower than the cores even where AMX runs its products (the .c file
 * says by how much). */
typedef struct cf_onednn_attention_choice {
  bool onednn; /* this path */
  bool amx;    /* the CPU backends' AMX tiles (backends/cpu/cf_cpu_amx.h) */
  const char *why; /* "attention=onednn", "attention=amx", "auto", ... (static) */
} cf_onednn_attention_choice;

/* Reads attention=... from kv (refusing any other value, naming the
 * four). */
cf_status cf_onednn_attention_choose(cf_kv *kv, cf_precision p, cf_onednn_attention_choice *out,
                                     cf_error *err);

typedef struct cf_onednn_attention cf_onednn_attention;

/* What the path runs on: the backend's engine, stream, thread count, its
 * first-failure record (read by its sync) and its count of per-shape
 * builds (primitives, scratch growths). */
typedef struct cf_onednn_attention_env {
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  int threads;
  cf_error *first;
  long *builds;
} cf_onednn_attention_env;

cf_status cf_onednn_attention_create(cf_precision p, const cf_onednn_attention_env *env,
                                     cf_onednn_attention **out, cf_error *err);
void cf_onednn_attention_free(cf_onednn_attention *a);

/* The per-head table of an RPE weight (shape->role an RPE side, data
 * [225][dh*H]) in the path's precision: Eq, Ek as [H][225][dh], Ev as
 * [H][dh][225], with their int8 scales. Fails (CF_ERR_UNSUPPORTED) for a
 * value the precision cannot hold (beyond bf16's range; not finite in
 * int8), naming attention=cpu, which keeps such tables in float32. */
cf_status cf_onednn_attention_table(const cf_onednn_attention *a, const cf_weight_shape *shape,
                                    const float *data, void **table, cf_error *err);
void cf_onednn_attention_table_free(void *table);

/* The op (cf_backend_iface.attention); RPE weights must carry their table
 * in `extra`. A failure is kept in env.first. */
void cf_onednn_attention_run(cf_onednn_attention *a, const cf_attention_args *args);

/* Builds the products and scratch of every batch size 1..max_batch for
 * each head count and depth the op has been called with (warm starts,
 * cf_backend_iface.prepare); false, with the failure in env.first. */
bool cf_onednn_attention_prepare(cf_onednn_attention *a, int max_batch);

#endif /* CF_ONEDNN_ATTENTION_H */
