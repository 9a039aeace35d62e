/* cf_onednn_calls.h: the projections (linear calls) of the oneDNN
 * backend's first pass, kept so that cf_backend_iface.prepare can build
 * their primitives for every batch size before any search needs them
 * (docs/BACKENDS.md "Warm starts"). */
#ifndef CF_ONEDNN_CALLS_H
#define CF_ONEDNN_CALLS_H

#include <stdbool.h>

#include "backends/cf_backend.h"

/* One distinct call: its weight, bias, activation and shape (rows at the
 * pass's batch size, 1 in the warm-up; a per-position call's rows at any
 * batch size). */
typedef struct cf_onednn_call {
  const cf_bweight *w, *b;
  int rows, in, out;
  cf_op_act act;
  bool per_position; /* from linear_positions: the same rows at every batch */
  bool layer;          /* from linear_bf16 (an encoder layer's projection) */
  bool x_bf16, y_bf16; /* its input, its output in bf16 */
} cf_onednn_call;

typedef struct cf_onednn_calls {
  cf_onednn_call *v;
  int n, cap;
  bool nomem; /* a call could not be kept: prepare must fail, not skip it */
} cf_onednn_calls;

/* Keeps *call unless an equal one is kept. */
void cf_onednn_calls_add(cf_onednn_calls *l, const cf_onednn_call *call);
void cf_onednn_calls_free(cf_onednn_calls *l);

#endif /* CF_ONEDNN_CALLS_H */
