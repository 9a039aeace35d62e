/* bench_inputs.c: see bench_inputs.h. Slots past the suite size reuse its
 * positions (i % count) but own their output logits, since two slots of one
 * batch must not write the same buffer. */
#include "tools/bench/bench_inputs.h"

#include <stdlib.h>

#include "engine/cf_net_input.h"

cf_status bench_inputs_create(const bench_suite *suite, const cf_net *net, int capacity,
                              bench_inputs *out, cf_error *err) {
  *out = (bench_inputs){0};
  const cf_net_info *info = cf_net_get_info(net);
  int cats = 0;
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++) cats += info->value_cat[h];
  if (capacity < suite->count) capacity = suite->count;
  out->count = suite->count;
  out->capacity = capacity;
  out->inputs = calloc((size_t)suite->count, sizeof *out->inputs);
  out->requests = calloc((size_t)capacity, sizeof *out->requests);
  out->outputs = calloc((size_t)capacity, sizeof *out->outputs);
  /* one logit block per slot beyond the suite (slot i < count uses inputs[i]'s) */
  float *slot_logits = NULL;
  out->value_cat = calloc((size_t)capacity * (size_t)(cats ? cats : 1) +
                              (size_t)(capacity - suite->count) * CF_POLICY_HEAD_COUNT *
                                  CF_MAX_MOVES,
                          sizeof(float));
  if (!out->inputs || !out->requests || !out->outputs || !out->value_cat) {
    bench_inputs_free(out);
    return cf_error_set(err, CF_ERR_NOMEM, "out of memory preparing %d positions", capacity);
  }
  slot_logits = out->value_cat + (size_t)capacity * (size_t)(cats ? cats : 1);
  for (int i = 0; i < suite->count; i++) {
    bench_input *in = &out->inputs[i];
    const cf_game *game = &suite->entries[i].game;
    cf_engine_net_position(game, info->input_format, &in->position);
    in->n_moves = cf_engine_legal_policy_moves(cf_game_position(game), in->moves,
                                               in->policy_moves);
  }
  for (int s = 0; s < capacity; s++) {
    bench_input *in = &out->inputs[s % suite->count];
    out->requests[s] = (cf_net_request){
        .position = &in->position, .moves = in->policy_moves, .n_moves = in->n_moves};
    cf_net_output *o = &out->outputs[s];
    for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++) {
      if (!(info->policy_heads >> h & 1)) continue;
      if (s < suite->count) {
        o->policy[h] = in->logits[h];
      } else {
        o->policy[h] = slot_logits + ((size_t)(s - suite->count) * CF_POLICY_HEAD_COUNT +
                                      (size_t)h) * CF_MAX_MOVES;
      }
    }
    float *cat = out->value_cat + (size_t)s * (size_t)(cats ? cats : 1);
    for (int h = 0, at = 0; h < CF_VALUE_HEAD_COUNT; h++) {
      o->value_cat[h] = info->value_cat[h] ? cat + at : NULL;
      at += info->value_cat[h];
    }
  }
  return CF_OK;
}

void bench_inputs_free(bench_inputs *in) {
  free(in->inputs);
  free(in->requests);
  free(in->outputs);
  free(in->value_cat);
  *in = (bench_inputs){0};
}
