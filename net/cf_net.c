/* cf_net.c: network lifetime and the batch evaluation:
 * planes (host) -> encoder body -> policy and value heads (backend) ->
 * per-move gather and squashing (host). */
#include "net/cf_net.h"

#include <math.h>
#include <stdlib.h>

#include "backends/cf_backend.h"
#include "encoder/cf_encoder.h"
#include "net/cf_net_lanes.h"
#include "net/cf_net_options.h"
#include "net/cf_net_sim.h"

#include "common/cf_clock.h"

/* Everything one pass needs: a lane evaluates its share of a batch
 * (cf_net_lanes.h). */
typedef struct cf_net_lane {
  cf_backend *be;
  cf_encoder *encoder;
  cf_policy *policy;
  cf_values *values;
  cf_planes *planes; /* [max_batch] host staging */
  int *transforms;   /* [max_batch] */
  /* The current pass's share and its outcome. */
  int n;
  const cf_net_request *req;
  cf_net_output *out;
  cf_status st;
  cf_error err;
} cf_net_lane;

/* A lane takes at least this many positions of a pass: below it, the
 * backend's per-call cost outweighs what a second core brings. */
#define MIN_POSITIONS_PER_LANE 4

struct cf_net {
  cf_net_info info;
  cf_history_fill fill;
  int n_lanes;
  cf_net_lane *lanes;  /* [n_lanes] */
  cf_lane_pool *pool;  /* n_lanes - 1 sleeping threads */
};

static cf_status check_arch(const cf_net_arch *a, cf_error *err) {
  if (!cf_input_is_supported(a->input_format))
    return cf_error_set(err, CF_ERR_UNSUPPORTED, "input format %d is not supported",
                        a->input_format);
  if (a->policy_format != 0 && a->policy_format != 3)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "policy format %d is not supported (only attention policy, 3)",
                        a->policy_format);
  if (!a->has_value[CF_VALUE_WINNER])
    return cf_error_set(err, CF_ERR_UNSUPPORTED, "the network has no winner value head");
  return CF_OK;
}

/* Options a caller could get wrong are errors, never silently ignored. */
static cf_status check_options(const cf_net_options *o, cf_error *err) {
  if (o->max_batch < 0) return cf_error_set(err, CF_ERR_ARG, "max batch %d < 0", o->max_batch);
  if (o->policy_heads >> CF_POLICY_HEAD_COUNT)
    return cf_error_set(err, CF_ERR_ARG, "policy head mask 0x%x names unknown heads",
                        o->policy_heads);
  if (o->value_heads >> CF_VALUE_HEAD_COUNT)
    return cf_error_set(err, CF_ERR_ARG, "value head mask 0x%x names unknown heads",
                        o->value_heads);
  if ((unsigned)o->history_fill > CF_HISTORY_FILL_ALWAYS)
    return cf_error_set(err, CF_ERR_ARG, "history fill %d is not a cf_history_fill",
                        (int)o->history_fill);
  return CF_OK;
}

/* One lane's backend instance and the heads' state on it. Its backend
 * reads its keys from kv; once the first lane's has, every reader of the
 * options has run, and a key none of them read is refused, before any
 * weight is uploaded. */
static cf_status create_lane(cf_net *net, cf_net_lane *lane, const cf_weights *w,
                             const cf_net_options *o, cf_kv *kv, cf_error *err) {
  const cf_net_arch *a = &w->arch;
  cf_backend_config cfg = {.max_batch = net->info.max_batch, .kv = kv};
  CF_TRY(cf_backend_create(o->backend, &cfg, &lane->be, err));
  if (lane == net->lanes) {
    cf_status st = cf_kv_check_all_read(kv, err);
    if (st != CF_OK) {
      cf_error_prefix(err, "backend '%s'", lane->be->desc->name);
      return st;
    }
  }
  const int B = net->info.max_batch;
  lane->planes = malloc((size_t)B * sizeof *lane->planes);
  lane->transforms = malloc((size_t)B * sizeof *lane->transforms);
  if (!lane->planes || !lane->transforms) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  /* A simulated device holds no weights: it answers from the planes. */
  if (cf_backend_simulated(lane->be)) return CF_OK;
  unsigned features, acts;
  cf_encoder_requirements(a, &features, &acts);
  acts |= cf_policy_requirements(a) | cf_values_requirements(a);
  CF_TRY(cf_backend_check(lane->be, features, acts, err));

  CF_TRY(cf_encoder_create(w, lane->be, B, &lane->encoder, err));
  CF_TRY(cf_policy_create(w, lane->be, B, net->info.policy_heads, &lane->policy, err));
  CF_TRY(cf_values_create(w, lane->be, B, net->info.value_heads, &lane->values, err));
  return CF_OK;
}

static cf_status create(cf_net *net, const cf_weights *w, const cf_net_options *given,
                        cf_kv *kv, cf_error *err) {
  const cf_net_arch *a = &w->arch;
  /* The network's keys of the options (batch_size, policy_head, ...) apply
   * here; the backend reads its own from the same list. */
  cf_net_options resolved = *given;
  CF_TRY(cf_net_options_read(kv, &resolved, err));
  const cf_net_options *o = &resolved;
  CF_TRY(check_options(o, err));
  CF_TRY(check_arch(a, err));
  net->fill = o->history_fill;
  net->info.max_batch = o->max_batch > 0 ? o->max_batch : 1;
  net->info.input_format = a->input_format;
  net->info.policy_heads = o->policy_heads ? o->policy_heads : 1u << CF_POLICY_VANILLA;
  net->info.value_heads = o->value_heads | 1u << CF_VALUE_WINNER;
  net->info.has_moves_left = a->has_moves_left;
  net->info.history_fill = o->history_fill;
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++)
    net->info.value_cat[h] = (net->info.value_heads >> h & 1) ? a->value_cat[h] : 0;

  net->n_lanes = o->lanes > 0 ? o->lanes : 1;
  net->info.lanes = net->n_lanes;
  net->lanes = calloc((size_t)net->n_lanes, sizeof *net->lanes);
  if (!net->lanes) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  for (int i = 0; i < net->n_lanes; i++) {
    cf_status st = create_lane(net, &net->lanes[i], w, o, kv, err);
    if (st != CF_OK) {
      if (net->n_lanes > 1) cf_error_prefix(err, "lane %d of %d", i + 1, net->n_lanes);
      return st;
    }
  }
  if (net->n_lanes > 1 && cf_backend_simulated(net->lanes[0].be))
    return cf_error_set(err, CF_ERR_ARG,
                        "backend '%s' simulates one device, which runs one pass at a time: "
                        "lanes=%d is not for it",
                        net->lanes[0].be->desc->name, net->n_lanes);
  net->info.backend = net->lanes[0].be->desc->name;
  net->info.backend_variant = cf_backend_variant(net->lanes[0].be);
  return cf_lane_pool_create(net->n_lanes - 1, &net->pool, err);
}

cf_status cf_net_create(const cf_weights *w, const cf_net_options *opts, cf_net **out,
                        cf_error *err) {
  *out = NULL;
  cf_net_options defaults = {0};
  if (!opts) opts = &defaults;
  /* The options read here: a copy of the caller's list (reading marks it),
   * or the text parsed once. */
  cf_kv *kv = NULL;
  CF_TRY(opts->backend_kv ? cf_kv_clone(opts->backend_kv, &kv, err)
                          : cf_kv_parse(opts->backend_options, &kv, err));
  cf_net *net = calloc(1, sizeof *net);
  cf_status st = net ? create(net, w, opts, kv, err)
                     : cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  cf_kv_free(kv);
  if (st != CF_OK) {
    cf_net_free(net);
    return st;
  }
  *out = net;
  return CF_OK;
}

void cf_net_free(cf_net *net) {
  if (!net) return;
  cf_lane_pool_free(net->pool);
  for (int i = 0; net->lanes && i < net->n_lanes; i++) {
    cf_net_lane *lane = &net->lanes[i];
    cf_values_free(lane->values);
    cf_policy_free(lane->policy);
    cf_encoder_free(lane->encoder);
    cf_backend_free(lane->be);
    free(lane->planes);
    free(lane->transforms);
  }
  free(net->lanes);
  free(net);
}

const cf_net_info *cf_net_get_info(const cf_net *net) { return &net->info; }

static cf_status check_request(const cf_net *net, int i, const cf_net_request *r,
                               const cf_net_output *o, cf_error *err) {
  if (!r->position) {
    if (!r->planes) return cf_error_set(err, CF_ERR_ARG, "request %d: no position or planes", i);
  } else if (r->position->count < 1 || r->position->count > CF_NET_HISTORY) {
    return cf_error_set(err, CF_ERR_ARG, "request %d: position has %d boards", i,
                        r->position->count);
  } else if (r->position->input_format != net->info.input_format)
    return cf_error_set(err, CF_ERR_ARG,
                        "request %d: position built for input format %d, the net uses %d", i,
                        r->position->input_format, net->info.input_format);
  if (r->n_moves < 0 || (r->n_moves > 0 && !r->moves))
    return cf_error_set(err, CF_ERR_ARG, "request %d: bad move list", i);
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
    if (o->policy[h] && !(net->info.policy_heads >> h & 1))
      return cf_error_set(err, CF_ERR_ARG, "request %d: policy head '%s' is not computed", i,
                          cf_policy_head_name((cf_policy_head_id)h));
  return CF_OK;
}

/* Writes position b's results from the lane's host-side outputs. */
static void read_outputs(const cf_net *net, const cf_net_lane *lane, int b, const cf_net_request *r,
                         cf_net_output *o) {
  o->transform = lane->transforms[b];
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++)
    if (net->info.value_heads >> h & 1)
      cf_values_read(lane->values, (cf_value_head_id)h, b, &o->value[h], o->value_cat[h]);
  const cf_value_result *win = &o->value[CF_VALUE_WINNER];
  o->q = win->q;
  if (win->outputs == 3) {
    for (int i = 0; i < 3; i++) o->wdl[i] = win->wdl[i];
  } else {
    /* A single tanh output (value format CLASSICAL) has no draw: W and L
     * split Q, as Lc0 reports such nets. */
    o->wdl[0] = (1.0f + win->q) / 2.0f;
    o->wdl[1] = 0.0f;
    o->wdl[2] = (1.0f - win->q) / 2.0f;
  }
  o->moves_left = cf_values_moves_left(lane->values, b);
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
    if (o->policy[h])
      cf_policy_gather(lane->policy, (cf_policy_head_id)h, b, r->moves, r->n_moves,
                       r->position ? r->position->boards[0].black_to_move : r->black_to_move,
                       lane->transforms[b], o->policy[h]);
}

/* One backend pass of a lane over its lane->n <= max_batch positions. */
static cf_status lane_pass(const cf_net *net, cf_net_lane *lane, cf_error *err) {
  const int n = lane->n;
  const cf_net_request *req = lane->req;
  for (int b = 0; b < n; b++) {
    if (req[b].position) {
      lane->transforms[b] = cf_net_encode_planes(req[b].position, net->fill, &lane->planes[b]);
    } else {
      lane->planes[b] = *req[b].planes;
      lane->transforms[b] = req[b].transform;
    }
  }
  if (cf_backend_simulated(lane->be)) {
    /* The simulated device: its answers, then the rest of its pass time. */
    const double start = cf_clock_now();
    for (int b = 0; b < n; b++)
      cf_net_sim_answer(&net->info, &lane->planes[b], lane->transforms[b], &req[b], &lane->out[b]);
    cf_net_sim_wait_until(start + cf_backend_pass_seconds(lane->be, n));
    return cf_op_sync(lane->be, err);
  }
  const float *tokens = cf_encoder_forward(lane->encoder, n, lane->planes); /* [n*64][d] */
  cf_policy_forward(lane->policy, n, tokens);
  cf_values_forward(lane->values, n, tokens);
  CF_TRY(cf_op_sync(lane->be, err));
  for (int b = 0; b < n; b++) read_outputs(net, lane, b, &req[b], &lane->out[b]);
  return CF_OK;
}

typedef struct pass_job {
  const cf_net *net;
} pass_job;

static void run_lane(void *arg, int job) {
  const cf_net *net = ((pass_job *)arg)->net;
  cf_net_lane *lane = &net->lanes[job];
  lane->err = (cf_error){0};
  lane->st = lane_pass(net, lane, &lane->err);
}

/* One pass over n <= max_batch positions, split across the lanes that
 * get at least MIN_POSITIONS_PER_LANE each. */
static cf_status eval_pass(cf_net *net, int n, const cf_net_request *req, cf_net_output *out,
                           cf_error *err) {
  int used = n / MIN_POSITIONS_PER_LANE;
  if (used > net->n_lanes) used = net->n_lanes;
  if (used < 1) used = 1;
  const int share = (n + used - 1) / used;
  for (int i = 0; i < used; i++) {
    const int from = i * share, to = from + share < n ? from + share : n;
    net->lanes[i].n = to > from ? to - from : 0;
    net->lanes[i].req = req + from;
    net->lanes[i].out = out + from;
  }
  pass_job job = {.net = net};
  cf_lane_pool_run(net->pool, used, run_lane, &job);
  for (int i = 0; i < used; i++)
    if (net->lanes[i].st != CF_OK) {
      if (err) *err = net->lanes[i].err;
      return net->lanes[i].st;
    }
  return CF_OK;
}

cf_status cf_net_eval(cf_net *net, int n, const cf_net_request *requests, cf_net_output *outputs,
                      cf_error *err) {
  for (int i = 0; i < n; i++) CF_TRY(check_request(net, i, &requests[i], &outputs[i], err));
  for (int start = 0; start < n; start += net->info.max_batch) {
    int m = n - start < net->info.max_batch ? n - start : net->info.max_batch;
    CF_TRY(eval_pass(net, m, requests + start, outputs + start, err));
  }
  return CF_OK;
}

cf_status cf_net_warm(cf_net *net, cf_error *err) {
  if (!cf_backend_has_prepare(net->lanes[0].be)) return CF_OK;
  cf_net_board board;
  cf_net_board_startpos(&board);
  cf_net_position pos;
  cf_net_position_init(&pos, net->info.input_format, &board);
  cf_net_position_mark_start(&pos);
  const cf_net_request req = {.position = &pos};
  /* Each lane's backend is an instance of its own, with its own shapes. */
  for (int i = 0; i < net->n_lanes; i++) {
    cf_net_lane *lane = &net->lanes[i];
    cf_net_output out = {0};
    lane->n = 1;
    lane->req = &req;
    lane->out = &out;
    CF_TRY(lane_pass(net, lane, err));
    CF_TRY(cf_backend_prepare(lane->be, net->info.max_batch, err));
  }
  return CF_OK;
}

long cf_net_shape_builds(const cf_net *net) {
  long n = 0;
  for (int i = 0; i < net->n_lanes; i++) n += cf_backend_shape_builds(net->lanes[i].be);
  return n;
}
