/* cf_value_heads.h: the value heads (winner, q, st) and the moves-left
 * head (NETWORK.md section 7).
 *
 *   v0[t] = act(W_ve Y[t] + b)            width cv, flattened token-major
 *   h = act(W1 v0 + b1)                   128
 *   out = W2 h + b2                       3 -> softmax (W, D, L); 1 -> tanh
 *   err = sigmoid(W_err h + b_err)        optional
 *   cat = W_cat h + b_cat                 optional, nb raw logits
 *   moves-left: same shape, relu(W2 h + b2) in plies.
 *
 * The products run on the backend; the final squashing on the host. */
#ifndef CF_VALUE_HEADS_H
#define CF_VALUE_HEADS_H

#include <stdbool.h>

#include "backends/cf_backend.h"
#include "common/cf_status.h"
#include "weights/cf_weights.h"

typedef struct cf_values cf_values;

/* One value head's outputs for one position. */
typedef struct cf_value_result {
  int outputs;  /* 3 (WDL) or 1 (tanh) */
  float wdl[3]; /* win, draw, loss for the side to move (outputs == 3) */
  float q;      /* W - L, or the tanh output */
  bool has_err;
  float err; /* sigmoid error output */
  int n_cat; /* categorical buckets (0 if none) */
} cf_value_result;

/* Activation bits (1u << cf_op_act) these heads need. */
unsigned cf_values_requirements(const cf_net_arch *arch);

/* Uploads the value heads in head_mask (bit 1 << cf_value_head_id; each
 * must exist) and the moves-left head if the net has one. */
cf_status cf_values_create(const cf_weights *w, cf_backend *be, int max_batch, unsigned head_mask,
                           cf_values **out, cf_error *err);

/* Accepts NULL. */
void cf_values_free(cf_values *v);

/* Runs every enabled head on tokens [batch*64][d] (backend memory) and
 * brings the raw outputs to the host. Allocates nothing. */
void cf_values_forward(cf_values *v, int batch, const float *tokens);

/* After cf_values_forward: head's results for position b; cat (if not
 * NULL) receives the n_cat raw categorical logits. */
void cf_values_read(const cf_values *v, cf_value_head_id head, int b, cf_value_result *out,
                    float *cat);

/* After cf_values_forward: moves left of position b, in plies; NAN if the
 * net has no moves-left head. */
float cf_values_moves_left(const cf_values *v, int b);

#endif /* CF_VALUE_HEADS_H */
