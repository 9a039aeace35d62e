/* cf_net.c: network lifetime and the batch evaluation:
 * planes (host) -> encoder body -> policy and value heads (backend) ->
 * per-move gather and squashing (host). */
#include "net/cf_net.h"

#include <math.h>
#include <stdlib.h>

#include "backends/cf_backend.h"
#include "encoder/cf_encoder.h"
#include "net/cf_net_options.h"

struct cf_net {
  cf_net_info info;
  cf_history_fill fill;
  cf_backend *be;
  cf_encoder *encoder;
  cf_policy *policy;
  cf_values *values;
  cf_planes *planes; /* [max_batch] host staging */
  int *transforms;   /* [max_batch] */
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

static cf_status create(cf_net *net, const cf_weights *w, const cf_net_options *given,
                        cf_error *err) {
  const cf_net_arch *a = &w->arch;
  /* Network keys of the option string (batch_size, policy_head, ...) apply
   * here; the rest goes to the backend. */
  cf_net_options resolved;
  char backend_rest[512];
  CF_TRY(cf_net_options_resolve(given, &resolved, backend_rest, sizeof backend_rest, err));
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

  cf_backend_config cfg = {.max_batch = net->info.max_batch, .options = o->backend_options};
  CF_TRY(cf_backend_create(o->backend, &cfg, &net->be, err));
  net->info.backend = net->be->desc->name;
  unsigned features, acts;
  cf_encoder_requirements(a, &features, &acts);
  acts |= cf_policy_requirements(a) | cf_values_requirements(a);
  CF_TRY(cf_backend_check(net->be, features, acts, err));

  const int B = net->info.max_batch;
  CF_TRY(cf_encoder_create(w, net->be, B, &net->encoder, err));
  CF_TRY(cf_policy_create(w, net->be, B, net->info.policy_heads, &net->policy, err));
  CF_TRY(cf_values_create(w, net->be, B, net->info.value_heads, &net->values, err));
  net->planes = malloc((size_t)B * sizeof *net->planes);
  net->transforms = malloc((size_t)B * sizeof *net->transforms);
  if (!net->planes || !net->transforms) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  return CF_OK;
}

cf_status cf_net_create(const cf_weights *w, const cf_net_options *opts, cf_net **out,
                        cf_error *err) {
  *out = NULL;
  cf_net_options defaults = {0};
  cf_net *net = calloc(1, sizeof *net);
  if (!net) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  cf_status st = create(net, w, opts ? opts : &defaults, err);
  if (st != CF_OK) {
    cf_net_free(net);
    return st;
  }
  *out = net;
  return CF_OK;
}

void cf_net_free(cf_net *net) {
  if (!net) return;
  cf_values_free(net->values);
  cf_policy_free(net->policy);
  cf_encoder_free(net->encoder);
  cf_backend_free(net->be);
  free(net->planes);
  free(net->transforms);
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

/* Writes position b's results from the heads' host-side outputs. */
static void read_outputs(cf_net *net, int b, const cf_net_request *r, cf_net_output *o) {
  o->transform = net->transforms[b];
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++)
    if (net->info.value_heads >> h & 1)
      cf_values_read(net->values, (cf_value_head_id)h, b, &o->value[h], o->value_cat[h]);
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
  o->moves_left = cf_values_moves_left(net->values, b);
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
    if (o->policy[h])
      cf_policy_gather(net->policy, (cf_policy_head_id)h, b, r->moves, r->n_moves,
                       r->position ? r->position->boards[0].black_to_move : r->black_to_move,
                       net->transforms[b], o->policy[h]);
}

/* One backend pass over n <= max_batch positions. */
static cf_status eval_pass(cf_net *net, int n, const cf_net_request *req, cf_net_output *out,
                           cf_error *err) {
  for (int b = 0; b < n; b++) {
    if (req[b].position) {
      net->transforms[b] = cf_net_encode_planes(req[b].position, net->fill, &net->planes[b]);
    } else {
      net->planes[b] = *req[b].planes;
      net->transforms[b] = req[b].transform;
    }
  }
  const float *tokens = cf_encoder_forward(net->encoder, n, net->planes); /* [n*64][d] */
  cf_policy_forward(net->policy, n, tokens);
  cf_values_forward(net->values, n, tokens);
  CF_TRY(cf_op_sync(net->be, err));
  for (int b = 0; b < n; b++) read_outputs(net, b, &req[b], &out[b]);
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
