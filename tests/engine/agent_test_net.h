/* agent_test_net.h: a small random network for the engine tests (header
 * only), built in memory so the tests need no files. */
#ifndef AGENT_TEST_NET_H
#define AGENT_TEST_NET_H

#include "net/cf_net.h"
#include "tests/weights/weights_test_util.h"

/* A 2-layer RPE net, input format 4; NULL on failure (err says why). */
static inline cf_net *agent_test_net(int max_batch, uint64_t seed, cf_error *err) {
  cf_test_shape s = {.layers = 2, .d = 16, .heads = 2, .dff = 32, .rpe = true, .rms = true,
                     .input_format = 4, .cv = 4, .cm = 2, .seed = seed};
  cf_weights *w = cf_test_random_net(&s, err);
  if (!w) return NULL;
  cf_net_options o = {.max_batch = max_batch};
  cf_net *net = NULL;
  cf_status st = cf_net_create(w, &o, &net, err);
  cf_weights_free(w);
  return st == CF_OK ? net : NULL;
}

#endif /* AGENT_TEST_NET_H */
