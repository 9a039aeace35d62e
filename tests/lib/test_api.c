/* test_api.c: libcformer through its public header only (cformer.h), linked
 * against the shared library as a program outside the tree would be:
 * opening, evaluation against the engine's own agents, choose, and every
 * error path returning a status and a message. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cformer.h"
#include "tests/cf_test.h"
#include "tests/lib/api_test.h"

#define START "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

static cformer_net *open_builtin(cf_test *t, const char *backend) {
  cformer_options o = {.backend = backend};
  cformer_net *net = NULL;
  cformer_error err;
  if (!CHECK(cformer_open_builtin(&o, &net, &err) == CFORMER_OK)) fprintf(stderr, "%s\n", err.message);
  return net;
}

static void test_version_and_names(cf_test *t) {
  CHECK_STR_EQ(cformer_version(), CFORMER_VERSION_STRING);
  CHECK_INT_EQ(CFORMER_VERSION, CFORMER_VERSION_MAJOR * 10000 + CFORMER_VERSION_MINOR * 100 +
                                    CFORMER_VERSION_PATCH);
  CHECK_STR_EQ(cformer_status_name(CFORMER_OK), "ok");
  CHECK_STR_EQ(cformer_status_name(CFORMER_ERR_ARG), "bad argument");
  CHECK_STR_EQ(cformer_status_name((cformer_status)99), "unknown status");
  CHECK(cformer_agent_count() >= 2);
  CHECK_STR_EQ(cformer_agent_name(0), "policy");
  CHECK(cformer_agent_name(-1) == NULL);
  CHECK(cformer_agent_name(cformer_agent_count()) == NULL);
}

static void test_evaluate(cf_test *t) {
  cformer_net *net = open_builtin(t, "ref");
  if (!net) return;
  cformer_net_info info;
  CHECK(cformer_net_get_info(net, &info, NULL) == CFORMER_OK);
  CHECK_STR_EQ(info.backend, "ref");
  CHECK(info.layers > 0 && info.d_model > 0 && info.heads > 0 && info.params > 0);

  const char *moves[] = {"e2e4", "e7e5", "g1f3"};
  cformer_position pos[3] = {{.fen = NULL}, {.fen = START, .moves = moves, .n_moves = 3},
                             {.fen = "7k/5QQ1/8/8/8/8/8/K7 b - - 0 1"}}; /* checkmate */
  static cformer_eval ev[3];
  cformer_error err;
  if (!CHECK(cformer_evaluate(net, 3, pos, 1.0f, ev, &err) == CFORMER_OK)) {
    fprintf(stderr, "%s\n", err.message);
    cformer_close(net);
    return;
  }
  CHECK_INT_EQ(ev[0].n_moves, 20);
  CHECK_INT_EQ(ev[1].n_moves, 29); /* black after 1. e4 e5 2. Nf3 */
  CHECK_INT_EQ(ev[2].n_moves, 0);
  for (int k = 0; k < 2; k++) {
    double sum = 0;
    for (int i = 0; i < ev[k].n_moves; i++) {
      sum += ev[k].policy[i].probability;
      if (i) CHECK(ev[k].policy[i].probability <= ev[k].policy[i - 1].probability);
    }
    CHECK_NEAR(sum, 1.0, 1e-5);
    CHECK_NEAR(ev[k].wdl[0] + ev[k].wdl[1] + ev[k].wdl[2], 1.0, 1e-5);
    CHECK_NEAR(ev[k].q, ev[k].wdl[0] - ev[k].wdl[2], 1e-6);
  }
  /* The policy agent plays the most probable move. */
  cformer_choose_options copt = {.agent = "policy"};
  cformer_choice ch;
  CHECK(cformer_choose(net, &pos[1], &copt, &ch, &err) == CFORMER_OK);
  CHECK_STR_EQ(ch.move, ev[1].policy[0].move);
  CHECK_INT_EQ(ch.evaluations, 1);
  /* A sharper temperature concentrates the same order. */
  static cformer_eval cold;
  CHECK(cformer_evaluate(net, 1, &pos[1], 0.25f, &cold, NULL) == CFORMER_OK);
  CHECK_STR_EQ(cold.policy[0].move, ev[1].policy[0].move);
  CHECK(cold.policy[0].probability > ev[1].policy[0].probability);
  CHECK(cformer_choose(net, &pos[2], NULL, &ch, NULL) == CFORMER_OK);
  CHECK_STR_EQ(ch.move, "0000");
  cformer_close(net);
}

static void test_mate_in_one(cf_test *t) {
  cformer_net *net = open_builtin(t, NULL);
  if (!net) return;
  cformer_position pos = {.fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"};
  cformer_choose_options o = {.agent = "value"};
  cformer_choice ch;
  CHECK(cformer_choose(net, &pos, &o, &ch, NULL) == CFORMER_OK);
  CHECK_STR_EQ(ch.move, "a1a8");
  CHECK_INT_EQ(ch.mate, 1);
  cformer_close(net);
}

/* A finished game, with every agent: no move (mate 0: none to give) and
 * the game's result as the score, as UCI's score mate 0 / cp 0. */
static void test_game_over(cf_test *t) {
  cformer_net *net = open_builtin(t, NULL);
  if (!net) return;
  static const struct {
    const char *fen;
    float q, wdl[3];
  } over[] = {{"7k/5QQ1/8/8/8/8/8/K7 b - - 0 1", -1, {0, 0, 1}},  /* checkmate */
              {"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 0, {0, 1, 0}}}; /* stalemate */
  static const char *const agents[] = {"policy", "value", "search"};
  for (size_t i = 0; i < sizeof over / sizeof over[0]; i++)
    for (size_t a = 0; a < sizeof agents / sizeof agents[0]; a++) {
      cformer_position pos = {.fen = over[i].fen};
      cformer_choose_options o = {.agent = agents[a], .nodes = 10};
      cformer_choice ch;
      memset(&ch, 0x55, sizeof ch);
      CHECK(cformer_choose(net, &pos, &o, &ch, NULL) == CFORMER_OK);
      CHECK_STR_EQ(ch.move, "0000");
      CHECK_STR_EQ(ch.ponder, "");
      CHECK_INT_EQ(ch.mate, 0);
      CHECK_INT_EQ(ch.evaluations, 0);
      CHECK_NEAR(ch.q, over[i].q, 0);
      for (int k = 0; k < 3; k++) CHECK_NEAR(ch.wdl[k], over[i].wdl[k], 0);
    }
  cformer_close(net);
}

static void test_errors(cf_test *t) {
  cformer_net *bad = (cformer_net *)1;
  EXPECT_ERR(cformer_open_file("/nonexistent/net.pb.gz", NULL, &bad, err), CFORMER_ERR_IO,
             "/nonexistent/net.pb.gz");
  CHECK(bad == NULL);
  EXPECT_ERR(cformer_open_file(NULL, NULL, &bad, err), CFORMER_ERR_ARG, "no path");
  /* Only regular files: a device is refused at once, without reading. */
  EXPECT_ERR(cformer_open_file("/dev/zero", NULL, &bad, err), CFORMER_ERR_IO,
             "/dev/zero: is a character device, not a regular file");
  static const char garbage[] = "this is not a network";
  EXPECT_ERR(cformer_open_bytes(garbage, sizeof garbage, "junk", NULL, &bad, err),
             CFORMER_ERR_FORMAT, "junk");
  cformer_options o = {.backend = "no-such-backend"};
  EXPECT_ERR(cformer_open_builtin(&o, &bad, err), CFORMER_ERR_ARG, "no-such-backend");
  o = (cformer_options){.backend = "ref", .backend_options = "bogus=1"};
  EXPECT_ERR(cformer_open_builtin(&o, &bad, err), CFORMER_ERR_ARG, "bogus");
  o = (cformer_options){.history_fill = "sometimes"};
  EXPECT_ERR(cformer_open_builtin(&o, &bad, err), CFORMER_ERR_ARG, "sometimes");
  o = (cformer_options){.max_batch = -1};
  EXPECT_ERR(cformer_open_builtin(&o, &bad, err), CFORMER_ERR_ARG, "max_batch");
  o = (cformer_options){.threads = -2};
  EXPECT_ERR(cformer_open_builtin(&o, &bad, err), CFORMER_ERR_ARG, "threads");
  CHECK(cformer_open_builtin(NULL, NULL, NULL) == CFORMER_ERR_ARG); /* NULL err is fine */

  cformer_net *net = open_builtin(t, "ref");
  if (!net) return;
  static cformer_eval ev;
  cformer_position fen = {.fen = "not a fen"};
  EXPECT_ERR(cformer_evaluate(net, 1, &fen, 1, &ev, err), CFORMER_ERR_ARG, "position 0");
  const char *illegal[] = {"e2e4", "e2e4"};
  cformer_position two[2] = {{.fen = NULL}, {.fen = NULL, .moves = illegal, .n_moves = 2}};
  static cformer_eval ev2[2];
  EXPECT_ERR(cformer_evaluate(net, 2, two, 1, ev2, err), CFORMER_ERR_ARG, "position 1, move 2");
  cformer_position no_list = {.fen = NULL, .moves = NULL, .n_moves = 3};
  EXPECT_ERR(cformer_evaluate(net, 1, &no_list, 1, &ev, err), CFORMER_ERR_ARG, "no move list");
  EXPECT_ERR(cformer_evaluate(net, 1, &two[0], -1.0f, &ev, err), CFORMER_ERR_ARG, "temperature");
  EXPECT_ERR(cformer_evaluate(net, 1, &two[0], NAN, &ev, err), CFORMER_ERR_ARG, "temperature");
  EXPECT_ERR(cformer_evaluate(net, -1, two, 1, &ev, err), CFORMER_ERR_ARG, "count");
  EXPECT_ERR(cformer_evaluate(NULL, 1, two, 1, &ev, err), CFORMER_ERR_ARG, "NULL");
  cformer_choice ch;
  cformer_choose_options c = {.agent = "nope"};
  EXPECT_ERR(cformer_choose(net, &two[0], &c, &ch, err), CFORMER_ERR_ARG, "unknown agent 'nope'");
  c = (cformer_choose_options){.nodes = -1};
  EXPECT_ERR(cformer_choose(net, &two[0], &c, &ch, err), CFORMER_ERR_ARG, ">= 0");
  c = (cformer_choose_options){.temperature = INFINITY};
  EXPECT_ERR(cformer_choose(net, &two[0], &c, &ch, err), CFORMER_ERR_ARG, ">= 0");
  c = (cformer_choose_options){.movetime = NAN};
  EXPECT_ERR(cformer_choose(net, &two[0], &c, &ch, err), CFORMER_ERR_ARG, ">= 0");
  float planes[CFORMER_PLANES * CFORMER_SQUARES];
  EXPECT_ERR(cformer_planes(net, &fen, planes, NULL, err), CFORMER_ERR_ARG, "position 0");
  /* After all that the net still works. */
  CHECK(cformer_evaluate(net, 1, &two[0], 1, &ev, NULL) == CFORMER_OK);
  CHECK_INT_EQ(ev.n_moves, 20);
  cformer_close(net);
  cformer_close(NULL);
}

static void test_planes(cf_test *t) {
  cformer_net *net = open_builtin(t, "ref");
  if (!net) return;
  static float planes[CFORMER_PLANES * CFORMER_SQUARES];
  int transform = -1;
  cformer_position start = {.fen = NULL};
  CHECK(cformer_planes(net, &start, planes, &transform, NULL) == CFORMER_OK);
  CHECK(transform >= 0);
  /* Plane 0: our pawns on the second rank (squares 8..15). */
  int pawns = 0;
  for (int sq = 0; sq < 64; sq++) pawns += planes[sq] == 1.0f;
  CHECK_INT_EQ(pawns, 8);
  for (int sq = 8; sq < 16; sq++) CHECK(planes[sq] == 1.0f);
  cformer_close(net);
}

/* Tablebases: counts, errors that name the problem, and the search using
 * them (the only drawing move of a K+R v K position, whatever the net says). */
static void test_tablebases(cf_test *t) {
  char good[1024], paths[2200];
  snprintf(good, sizeof good, "%s/syzygy", cf_test_data_dir());
  cformer_tablebase_info info;
  cformer_error err;
  cformer_status st = cformer_set_tablebases(good, &info, &err);
  if (st == CFORMER_ERR_UNSUPPORTED) {
    CHECK_STR_CONTAINS(err.message, "libfathom-dev");
    return;
  }
  CHECK_INT_EQ(st, CFORMER_OK);
  CHECK(info.wdl_tables == 11 && info.dtz_tables == 11 && info.max_pieces == 4);
  snprintf(paths, sizeof paths, "%s/no-such-dir:%s", good, good);
  CHECK_INT_EQ(cformer_set_tablebases(paths, &info, &err), CFORMER_ERR_IO);
  CHECK_STR_CONTAINS(err.message, "no-such-dir");
  CHECK_INT_EQ(info.max_pieces, 4); /* the good directory loaded all the same */
  cformer_net *net = NULL;
  if (!CHECK_INT_EQ(cformer_open_builtin(NULL, &net, &err), CFORMER_OK)) return;
  cformer_position pos = {.fen = "8/8/8/8/8/2k5/3R4/K7 b - - 0 1"};
  cformer_choose_options o = {.nodes = 50};
  cformer_choice c;
  CHECK_INT_EQ(cformer_choose(net, &pos, &o, &c, &err), CFORMER_OK);
  CHECK_STR_EQ(c.move, "c3d2");
  cformer_close(net);
  CHECK_INT_EQ(cformer_set_tablebases(NULL, &info, &err), CFORMER_OK);
  CHECK_INT_EQ(info.max_pieces, 0);
}

CF_TEST_MAIN(test_version_and_names, test_evaluate, test_mate_in_one, test_game_over, test_errors, test_planes,
             test_tablebases)
