/* bench_inputs.h: the suite's positions as requests for one net, with
 * output buffers bound to the heads the net computes, so the throughput
 * sweep and the signature's root pass can call cf_net_eval on any slice. */
#ifndef BENCH_INPUTS_H
#define BENCH_INPUTS_H

#include "chess/cf_move.h"
#include "net/cf_net.h"
#include "tools/bench/bench_suite.h"

typedef struct bench_input {
  cf_net_position position;
  int n_moves;
  cf_move moves[CF_MAX_MOVES];
  cf_policy_move policy_moves[CF_MAX_MOVES];
  float logits[CF_POLICY_HEAD_COUNT][CF_MAX_MOVES];
} bench_input;

typedef struct bench_inputs {
  int count;                 /* suite positions */
  bench_input *inputs;       /* [count], owned */
  int capacity;              /* request/output slots (>= the largest batch) */
  cf_net_request *requests;  /* [capacity]: slot i is suite position i % count */
  cf_net_output *outputs;    /* [capacity] */
  float *value_cat;          /* owned categorical logits of every slot */
} bench_inputs;

/* Prepares every suite position for net and capacity request slots. */
cf_status bench_inputs_create(const bench_suite *suite, const cf_net *net, int capacity,
                              bench_inputs *out, cf_error *err);
void bench_inputs_free(bench_inputs *in);

#endif /* BENCH_INPUTS_H */
