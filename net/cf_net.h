/* cf_net.h: the library's face. Create a network from loaded weights on a
 * compute backend, evaluate batches of positions, free it.
 *
 *     cf_net_options opts = {.max_batch = 16};          // zero = defaults
 *     cf_net *net;
 *     if (cf_net_create(weights, &opts, &net, &err) != CF_OK) ...;
 *     cf_weights_free(weights);                          // not retained
 *     cf_net_request req[n] = ...;  cf_net_output out[n] = ...;
 *     cf_net_eval(net, n, req, out, &err);
 *     cf_net_free(net);
 *
 * The caller owns requests and outputs (including the logit arrays the
 * outputs point to); cf_net_eval allocates nothing. One cf_net must not be
 * evaluated from two threads at once. */
#ifndef CF_NET_H
#define CF_NET_H

#include <stdbool.h>

#include "common/cf_kv.h"
#include "common/cf_status.h"
#include "net/cf_net_planes.h"
#include "net/cf_net_position.h"
#include "policy_head/cf_policy_head.h"
#include "policy_head/cf_policy_move.h"
#include "value_heads/cf_value_heads.h"
#include "weights/cf_weights.h"

typedef struct cf_net cf_net;

typedef struct cf_net_options {
  const char *backend;          /* registry name; NULL or "" = the default backend */
  /* The options, "key=value" items: the network's keys batch_size, lanes,
   * policy_head, value_head (net/cf_net_options.h), the backend's (threads=N,
   * precision=..., docs/BACKENDS.md); a key nobody reads is an error naming
   * the backend and the keys it reads. One of: backend_kv, a list parsed
   * where the text entered (common/cf_kv.h; the engine, the library's API
   * and the tools set their defaults on it), not changed here; or
   * backend_options, the same as text, parsed here. Neither = none. */
  const cf_kv *backend_kv;
  const char *backend_options;
  int max_batch;                /* positions per backend pass; 0 = 1 */
  unsigned policy_heads;        /* bits 1u << cf_policy_head_id to compute; 0 = vanilla */
  unsigned value_heads;         /* extra value heads (bits 1u << CF_VALUE_Q, CF_VALUE_ST);
                                   the winner head is always computed */
  cf_history_fill history_fill; /* default fen_only */
  int lanes;                    /* threads evaluating parts of a pass side by side, each
                                   with its own copy of the backend state (net/cf_net_lanes.h);
                                   0 = 1 */
} cf_net_options;

/* What a created net computes. */
typedef struct cf_net_info {
  const char *backend; /* the backend's registry name */
  const char *backend_variant; /* its code path (cf_backend_variant: the CPU backends'
                                  kernel set, "avx512", "avx2", "portable"); NULL if
                                  the backend has only one */
  int max_batch;
  int input_format;
  unsigned policy_heads;              /* heads computed (bits 1u << cf_policy_head_id) */
  unsigned value_heads;               /* heads computed, winner included */
  int value_cat[CF_VALUE_HEAD_COUNT]; /* categorical logits per value head (0 = none) */
  bool has_moves_left;
  cf_history_fill history_fill; /* how requests given as positions are encoded */
  int lanes;                    /* evaluation lanes (cf_net_options.lanes) */
} cf_net_info;

/* One position to evaluate and the legal moves whose logits are wanted. */
typedef struct cf_net_request {
  const cf_net_position *position; /* its input_format must be the net's */
  const cf_policy_move *moves;     /* real coordinates; castling as king takes own rook */
  int n_moves;
  /* Alternatively, ready-made input planes (position NULL), e.g. from
   * training data or another encoder; transform and black_to_move then say
   * how the moves map onto the policy. */
  const cf_planes *planes;
  int transform;
  bool black_to_move;
} cf_net_request;

/* One position's results. The caller sets the pointers of what it wants
 * before cf_net_eval; everything else is written by it. */
typedef struct cf_net_output {
  float *policy[CF_POLICY_HEAD_COUNT];   /* in: n_moves floats per computed head, or NULL to skip;
                                            out: raw logits, moves in request order */
  float *value_cat[CF_VALUE_HEAD_COUNT]; /* in: info.value_cat[h] floats, or NULL */
  float wdl[3];                          /* winner head: win, draw, loss for the side to move;
                                            a 1-output head: ((1 + q) / 2, 0, (1 - q) / 2) */
  float q;                               /* W - L */
  float moves_left;                      /* plies; NAN without a moves-left head */
  cf_value_result value[CF_VALUE_HEAD_COUNT]; /* every computed value head, winner included */
  int transform; /* canonical transform of the input (CF_TRANSFORM_*) */
} cf_net_output;

/* Uploads w to the backend and allocates everything evaluation needs for
 * opts->max_batch positions. opts may be NULL (defaults). Fails, naming the
 * feature and backend, if the backend cannot run this network. w is not
 * retained. */
cf_status cf_net_create(const cf_weights *w, const cf_net_options *opts, cf_net **out,
                        cf_error *err);

/* Warms a created net: where the backend builds its kernels per shape
 * (oneDNN's primitives, cf_backend_iface.prepare), one pass at batch 1 on
 * each lane and then every shape of batch sizes 1 to max_batch, so the
 * first search of a process, and the first at each batch size, runs as
 * fast as the next. Nothing for the other backends (their first pass
 * builds nothing per shape) or an instance behind the fault hooks. Fails
 * as cf_net_eval does. The engine calls it at every network load. */
cf_status cf_net_warm(cf_net *net, cf_error *err);

/* For tests: the per-shape builds the lanes' backends have made since
 * creation (cf_backend_shape_builds); a warmed net's stays put. */
long cf_net_shape_builds(const cf_net *net);

/* Accepts NULL. */
void cf_net_free(cf_net *net);

const cf_net_info *cf_net_get_info(const cf_net *net);

/* Evaluates n positions (any n >= 0: larger batches run in passes of
 * max_batch). Blocks until done. Allocates nothing. */
cf_status cf_net_eval(cf_net *net, int n, const cf_net_request *requests, cf_net_output *outputs,
                      cf_error *err);

#endif /* CF_NET_H */
