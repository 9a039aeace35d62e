/* test_batch_invariance.c: a position's outputs do not depend on the
 * batch it is evaluated in, bit for bit, on the backends that promise it
 * (ref, and onednn in float32: docs/SEARCH_PIPELINE.md, "Many searches,
 * one call").
 * Analysis of many positions at once (cf_search_group.h) gives the
 * records of one position at a time only because of it.
 *
 * Every parity net and the twin network: each case alone, then all cases
 * in one call, then in calls of 3 (so a case sits at other rows beside
 * other positions); every output compared by its bits: policy logits of
 * each head, W/D/L, Q, moves left, every value head and their categorical
 * outputs. oneDNN's matmuls round a row differently with the number of
 * rows on some CPUs (measured on an AMD EPYC with AVX2 only), which the
 * per-position calls of the value heads, smolgen and the dense embedding
 * (cf_backend_iface.linear_positions) take out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "net/cf_net.h"
#include "tests/cf_test.h"
#include "tests/net/cf_parity.h"
#include "tests/net/cf_parity_check.h"
#include "tests/net/cf_parity_game.h"

enum { SPLITS = 3 };

typedef struct run {
  cf_parity_out buf;
  cf_net_output out;
} run;

/* The outputs of case i under split s against those of the case alone. */
static bool same_output(const cf_net *net, const run *a, const run *b, int n_moves) {
  const cf_net_info *info = cf_net_get_info(net);
  bool same = memcmp(a->out.wdl, b->out.wdl, sizeof a->out.wdl) == 0 &&
              memcmp(&a->out.q, &b->out.q, sizeof a->out.q) == 0 &&
              memcmp(&a->out.moves_left, &b->out.moves_left, sizeof a->out.moves_left) == 0 &&
              memcmp(a->out.value, b->out.value, sizeof a->out.value) == 0;
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
    if (a->out.policy[h])
      same = same && memcmp(a->out.policy[h], b->out.policy[h], n_moves * sizeof(float)) == 0;
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++)
    if (a->out.value_cat[h])
      same = same && memcmp(a->out.value_cat[h], b->out.value_cat[h],
                            (size_t)info->value_cat[h] * sizeof(float)) == 0;
  return same;
}

static void run_net(cf_test *t, const char *dir, const char *name, const char *backend,
                    const char *options) {
  char msg[512];
  cf_parity_case *cases;
  int n;
  cf_weights *w = NULL;
  if (!CHECK(cf_parity_load_net_in(dir, name, &cases, &n, &w, msg, sizeof msg))) {
    fprintf(stderr, "%s\n", msg);
    return;
  }
  cf_net_options opts = {.backend = backend, .max_batch = n + 5, .backend_options = options};
  cf_parity_all_heads(w, &opts);
  cf_net *net = NULL;
  cf_error err = {0};
  const cf_status st = cf_net_create(w, &opts, &net, &err);
  cf_weights_free(w);
  if (!CHECK(st == CF_OK)) {
    fprintf(stderr, "%s on %s: %s\n", name, backend, err.msg);
    free(cases);
    return;
  }
  const int format = cf_net_get_info(net)->input_format;
  cf_parity_game *games = calloc((size_t)n, sizeof *games);
  cf_net_request *req = calloc((size_t)n, sizeof *req);
  run *runs = calloc((size_t)SPLITS * n, sizeof *runs);
  cf_net_output *outs = calloc((size_t)n, sizeof *outs);
  bool ok = true;
  for (int i = 0; ok && i < n; i++) {
    ok = CHECK(cf_parity_game_build(&cases[i], format, &games[i], msg, sizeof msg));
    req[i] = (cf_net_request){.position = &games[i].position, .moves = games[i].moves,
                              .n_moves = games[i].n_moves};
  }
  const int steps[SPLITS] = {1, n, 3};
  for (int s = 0; ok && s < SPLITS; s++) {
    for (int i = 0; i < n; i++) cf_parity_bind_output(net, &outs[i], &runs[s * n + i].buf);
    for (int i = 0; ok && i < n; i += steps[s]) {
      const int m = n - i < steps[s] ? n - i : steps[s];
      ok = CHECK(cf_net_eval(net, m, req + i, outs + i, &err) == CF_OK);
      if (!ok) fprintf(stderr, "%s on %s: %s\n", name, backend, err.msg);
    }
    for (int i = 0; i < n; i++) runs[s * n + i].out = outs[i];
  }
  int differ = 0;
  for (int s = 1; ok && s < SPLITS; s++)
    for (int i = 0; i < n; i++)
      if (!same_output(net, &runs[i], &runs[s * n + i], games[i].n_moves)) {
        differ++;
        fprintf(stderr, "%s on %s (%s): case %s differs in calls of %d from alone\n", name,
                backend, options ? options : "defaults", cases[i].id, steps[s]);
      }
  CHECK_INT_EQ(differ, 0);
  printf("  %s on %s (%s): %d cases, alone = all at once = calls of 3: %s\n", name, backend,
         options ? options : "defaults", n, ok && !differ ? "yes" : "no");
  cf_net_free(net);
  free(games);
  free(req);
  free(runs);
  free(outs);
  free(cases);
}

static void run_every_net(cf_test *t, const char *backend, const char *options) {
  const cf_backend_desc *d = cf_backend_find(backend);
  if (!d || (d->probe && !d->probe())) {
    CF_SKIP("backend not available in this build");
    return;
  }
  for (int k = 0; k < cf_parity_net_count; k++)
    run_net(t, cf_parity_dir(), cf_parity_nets[k], backend, options);
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/twin", cf_test_data_dir());
  run_net(t, dir, "cformer-twin", backend, options);
}

static void test_ref(cf_test *t) { run_every_net(t, "ref", NULL); }
static void test_onednn_f32(cf_test *t) { run_every_net(t, "onednn", "precision=f32"); }
/* Two lanes (the engine's Threads 2 on a CPU backend): each lane a
 * one-thread instance with its share of the batch. (threads=2, oneDNN's
 * own threads inside each matmul, splits a call's work by its shape and
 * is not invariant.) */
static void test_onednn_f32_two_lanes(cf_test *t) {
  run_every_net(t, "onednn", "precision=f32,lanes=2");
}

CF_TEST_MAIN(test_ref, test_onednn_f32, test_onednn_f32_two_lanes)
