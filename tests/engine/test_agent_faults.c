/* test_agent_faults.c: a network failing anywhere in a move's work, for
 * every agent (policy, value, search). The N-th op of the backend fails
 * (backend option fault_op=N, cf_backend_fault.h):
 *   - through the agent API, for every N from 1 to one past the last op a
 *     move makes: the agent returns the error naming the op, with its best
 *     move so far (legal) or none, and leaves the game as it was; past the
 *     last op it plays what an agent without the hook plays;
 *   - through the UCI engine, for the first, a middle and the last op: one
 *     `info string error: ...`, then exactly one bestmove, legal or 0000,
 *     and the engine keeps answering.
 * The N-th allocation (fault_alloc=N) fails the engine's network load
 * instead: reported, no move to play, and the next working load plays. */
#include <stdio.h>
#include <string.h>

#include "chess/cf_fen.h"
#include "chess/cf_move_uci.h"
#include "chess/cf_movegen.h"
#include "tests/cf_test.h"
#include "tests/engine/uci_transcript.h"
#include "tests/weights/weights_test_util.h"

static const char *const agents[] = {"policy", "value", "search"};

/* A few legal moves, so a loop over every op of a move stays short. */
static const char *const FEN = "7k/8/8/8/8/8/6PP/7K w - - 0 1";

/* One move of agent on a fresh 2-layer RPE net with fault options opts;
 * st and err get the outcome. */
static cf_status choose(cf_test *t, const cf_weights *w, const char *agent, const char *opts,
                        cf_agent_result *res, cf_error *err) {
  cf_net_options o = {.backend = "ref", .backend_options = opts, .max_batch = 4};
  cf_net *net = NULL;
  if (!CHECK(cf_net_create(w, &o, &net, err) == CF_OK)) return CF_ERR_INTERNAL;
  cf_game g;
  cf_status st = CF_ERR_INTERNAL;
  if (CHECK(cf_game_init_fen(&g, FEN, err) == CF_OK)) {
    cf_agent_request req = {.net = net, .game = &g, .max_evals = 12};
    memset(res, 0, sizeof *res);
    res->best = CF_MOVE_NONE; /* what a failure before any move leaves */
    st = cf_agent_find(agent)->choose(&req, res, err);
    CHECK_INT_EQ(g.count, 1); /* the game as it was */
    if (res->best != CF_MOVE_NONE) CHECK(cf_move_is_legal(cf_game_position(&g), res->best));
    cf_game_free(&g);
  }
  cf_net_free(net);
  return st;
}

static void api_loop(cf_test *t, const cf_weights *w, const char *agent) {
  cf_agent_result want, got;
  cf_error err = {0};
  if (!CHECK(choose(t, w, agent, NULL, &want, &err) == CF_OK)) {
    fprintf(stderr, "%s: %s\n", agent, err.msg);
    return;
  }
  int n = 1, with_move = 0;
  for (; n < 5000; n++) {
    char opts[32], expect[64];
    snprintf(opts, sizeof opts, "fault_op=%d", n);
    cf_status st = choose(t, w, agent, opts, &got, &err);
    if (st == CF_OK) break;
    snprintf(expect, sizeof expect, "injected failure (op %d,", n);
    if (!CHECK(st == CF_ERR_BACKEND && strstr(err.msg, expect)))
      fprintf(stderr, "%s fault_op=%d: status %d '%s'\n", agent, n, (int)st, err.msg);
    with_move += got.best != CF_MOVE_NONE;
  }
  /* Past the last op, the move of a network without the hook. The first
   * pass's failure leaves nothing to play; the value agent and the search
   * have the root's move when a later pass fails. */
  CHECK(n < 5000);
  CHECK_INT_EQ(got.best, want.best);
  CHECK(n > 10);
  if (strcmp(agent, "policy") != 0) CHECK(with_move > 0);
  printf("%s agent: each of its %d ops failed once, reported (%d times with a move so far)\n",
         agent, n - 1, with_move);
}

static void test_agents_api(cf_test *t) {
  cf_error err = {0};
  cf_test_shape s = {.layers = 2, .d = 16, .heads = 2, .dff = 32, .rpe = true, .rms = true,
                     .input_format = 4, .cv = 4, .cm = 2, .seed = 7};
  cf_weights *w = cf_test_random_net(&s, &err);
  if (!CHECK(w != NULL)) return;
  for (int i = 0; i < 3; i++) api_loop(t, w, agents[i]);
  cf_weights_free(w);
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static cf_uci *engine(cf_test *t, transcript *tr) {
  uci_transcript_init(tr);
  cf_uci_config cfg = {.max_batch = 8};
  cf_uci *u = NULL;
  cf_error err = {0};
  CHECK(cf_uci_create(&cfg, uci_transcript_collect, tr, &u, &err) == CF_OK);
  return u;
}

/* One move of `agent` with the n-th op failing; true when it failed. */
static bool one_move(cf_test *t, cf_uci *u, transcript *tr, const char *agent, int n) {
  char lines[256];
  snprintf(lines, sizeof lines,
           "setoption name Agent value %s\nsetoption name BackendOptions value fault_op=%d\n"
           "position fen %s\ngo nodes 12",
           agent, n, FEN);
  const char *o = uci_transcript_run(u, tr, lines);
  const int errors = count(o, "info string error: ");
  char expect[64], mv[8];
  snprintf(expect, sizeof expect, "injected failure (op %d,", n);
  bool ok = CHECK(errors <= 1) && CHECK_INT_EQ(count(o, "bestmove "), 1);
  if (errors) ok = ok && CHECK(strstr(o, expect) != NULL);
  if (ok && !uci_bestmove_legal(o, FEN, "", mv))
    ok = CHECK(errors == 1 && strstr(o, "bestmove 0000"));
  ok = ok && CHECK_STR_CONTAINS(uci_transcript_run(u, tr, "isready"), "readyok");
  if (!ok) fprintf(stderr, "%s, fault_op=%d:\n%s\n", agent, n, o);
  return errors > 0;
}

/* The engine's answers at the first op, one in the middle and one past
 * the last (found by doubling, then halving). */
static void test_engine_answers(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  uci_transcript_run(u, &tr, "setoption name Backend value ref\n"
                             "setoption name MinibatchSize value 8\n"
                             "setoption name SmartPruningFactor value 0");
  for (int i = 0; i < 3; i++) {
    CHECK(one_move(t, u, &tr, agents[i], 1));
    int hi = 2;
    while (hi < 100000 && one_move(t, u, &tr, agents[i], hi)) hi *= 2;
    int lo = hi / 2; /* failed; hi did not */
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      *(one_move(t, u, &tr, agents[i], mid) ? &lo : &hi) = mid;
    }
    CHECK(lo > 10);
    printf("%s agent in the engine: ops 1, ..., %d fail with an error line and a bestmove\n",
           agents[i], lo);
  }
  cf_uci_free(u);
}

/* An allocation failing while the network loads: reported at the load, no
 * move, the engine answers on, and a load without the fault plays. */
static void test_load_allocation(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  const int at[] = {1, 5, 40};
  for (int i = 0; i < 3; i++) {
    char lines[256];
    snprintf(lines, sizeof lines,
             "setoption name Backend value ref\nsetoption name BackendOptions value "
             "fault_alloc=%d\nposition startpos\ngo nodes 5",
             at[i]);
    const char *o = uci_transcript_run(u, &tr, lines);
    CHECK_STR_CONTAINS(o, "info string error: ");
    CHECK_STR_CONTAINS(o, "injected failure (allocation");
    CHECK_STR_CONTAINS(o, "bestmove 0000");
    CHECK_STR_CONTAINS(uci_transcript_run(u, &tr, "isready"), "readyok");
  }
  char mv[8];
  const char *o = uci_transcript_run(u, &tr, "setoption name BackendOptions value\ngo nodes 5");
  CHECK_INT_EQ(count(o, "info string error"), 0);
  CHECK(uci_bestmove_legal(o, CF_FEN_STARTPOS, "", mv));
  cf_uci_free(u);
}

CF_TEST_MAIN(test_agents_api, test_engine_answers, test_load_allocation)
