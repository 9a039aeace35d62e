/* test_search_pipeline.c: the search with several batches in the network
 * (batches_in_flight), on the simulated accelerator (backends/sim/) and a
 * real backend:
 *   - net/cf_net_stream: passes come back in order, full and empty refused;
 *   - the simulated device answers the same every time and takes its time;
 *   - at fixed nodes, every latency and pipeline depth: no visit lost or
 *     counted twice (the root's N is the visits asked for, nothing left in
 *     flight anywhere in the tree), and the clear best move (a mate in one,
 *     a hanging queen) found as the one-batch-at-a-time search finds it;
 *   - one batch in flight gives the same tree as before on the real net;
 *   - a stop mid-batch returns within a pass or two, not a minibatch later;
 *   - a device failure mid-search: an error naming the pass, a legal move
 *     from what was searched, nothing in flight, and the search works after;
 *   - sim's options refused by name with their range. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "chess/cf_fen.h"
#include "chess/cf_move_uci.h"
#include "chess/cf_movegen.h"
#include "engine/cf_net_input.h"
#include "common/cf_clock.h"
#include "engine/cf_engine_weights.h"
#include "engine/uci/cf_uci.h"
#include "engine/uci/cf_uci_options.h"
#include "engine/search/cf_search_internal.h"
#include "net/cf_net_stream.h"
#include "tests/cf_test.h"

static cf_net *load_net(cf_test *t, const char *backend, const char *options, int batch) {
  cf_engine_weights_spec spec = {.weights = CF_WEIGHTS_BUILT_IN,
                                 .net = {.backend = backend, .backend_options = options,
                                         .max_batch = batch}};
  cf_net *net = NULL;
  cf_engine_weights_info info;
  cf_error err = {0};
  if (!CHECK(cf_engine_load_net(&spec, &net, &info, &err) == CF_OK))
    fprintf(stderr, "%s: %s\n", options ? options : "", err.msg);
  return net;
}

/* Visits in flight left anywhere below x. */
static long in_flight_left(const cf_snode *x) {
  long n = x->in_flight;
  for (int i = 0; x->edges && i < x->n_edges; i++)
    if (x->edges[i].child) n += in_flight_left(x->edges[i].child);
  return n;
}

/* Completed visits below x add up: a node's N is its children's plus one
 * (its own evaluation) unless it is proven (revisited in place). */
static bool visits_add_up(const cf_snode *x) {
  long sum = 0;
  for (int i = 0; x->edges && i < x->n_edges; i++) {
    const cf_snode *c = x->edges[i].child;
    if (!c) continue;
    if (!visits_add_up(c)) return false;
    sum += c->n;
  }
  return x->proven != CF_UNPROVEN || x->n == 0 || (long)x->n == sum + 1;
}

typedef struct run_out {
  cf_move best;
  long root_n;
  long in_flight;
  bool add_up;
  double seconds;
  long batches;
} run_out;

static cf_status run(cf_test *t, cf_net *net, const char *fen, int in_flight, long visits,
                     const atomic_bool *stop, run_out *out, cf_error *err) {
  cf_search_params p;
  cf_search_params_default(&p);
  p.batches_in_flight = in_flight;
  p.smart_pruning_factor = 0;
  p.minibatch_size = 16;
  cf_search *s = NULL;
  cf_game g;
  *out = (run_out){.best = CF_MOVE_NONE};
  if (!CHECK(cf_search_create(&p, &s, NULL) == CF_OK)) return CF_ERR_INTERNAL;
  if (!CHECK(cf_game_init_fen(&g, fen, NULL) == CF_OK)) {
    cf_search_free(s);
    return CF_ERR_INTERNAL;
  }
  cf_search_limits lim = {.visits = visits, .stop = stop};
  cf_search_result r;
  const double t0 = cf_clock_now();
  cf_status st = cf_search_run(s, net, &g, &lim, NULL, NULL, &r, err);
  out->seconds = cf_clock_now() - t0;
  out->best = r.info.best;
  out->root_n = s->root ? (long)s->root->n : 0;
  out->in_flight = s->root ? in_flight_left(s->root) : 0;
  out->add_up = s->root && visits_add_up(s->root);
  out->batches = r.info.batches;
  if (st != CF_OK) {
    /* the tree searches on with the next run (a working device) */
    out->best = r.info.best;
  }
  cf_game_free(&g);
  cf_search_free(s);
  return st;
}

static void test_stream_order(cf_test *t) {
  cf_net *net = load_net(t, "sim", "latency_us=2000", 4);
  if (!net) return;
  cf_net_stream *st = NULL;
  cf_error err = {0};
  CHECK(cf_net_stream_create(net, 0, &st, &err) == CF_ERR_ARG && st == NULL);
  CHECK(cf_net_stream_create(net, CF_NET_STREAM_MAX + 1, &st, &err) == CF_ERR_ARG);
  if (!CHECK(cf_net_stream_create(net, 2, &st, &err) == CF_OK)) goto out;
  CHECK(cf_net_stream_wait(st, &err) == CF_ERR_ARG); /* nothing queued */
  CHECK_STR_CONTAINS(err.msg, "no pass");
  cf_game g;
  CHECK(cf_game_init(&g, NULL, NULL) == CF_OK);
  cf_movelist legal;
  cf_generate_legal(cf_game_position(&g), &legal);
  cf_net_position np;
  cf_engine_net_position(&g, cf_net_get_info(net)->input_format, &np);
  cf_policy_move pm[CF_MAX_MOVES];
  cf_move mv[CF_MAX_MOVES];
  const int n_moves = cf_engine_legal_policy_moves(cf_game_position(&g), mv, pm);
  float logits[3][CF_MAX_MOVES];
  cf_net_request req = {.position = &np, .moves = pm, .n_moves = n_moves};
  cf_net_output out[3];
  for (int i = 0; i < 3; i++) {
    memset(&out[i], 0, sizeof out[i]);
    out[i].policy[CF_POLICY_VANILLA] = logits[i];
  }
  const double t0 = cf_clock_now();
  CHECK(cf_net_stream_submit(st, 1, &req, &out[0], &err) == CF_OK);
  CHECK(cf_net_stream_submit(st, 1, &req, &out[1], &err) == CF_OK);
  CHECK(cf_net_stream_submit(st, 1, &req, &out[2], &err) == CF_ERR_ARG); /* full */
  CHECK(cf_clock_now() - t0 < 0.002 * CF_TEST_SLACK); /* submit returns at once */
  CHECK_INT_EQ(cf_net_stream_pending(st), 2);
  CHECK(cf_net_stream_wait(st, &err) == CF_OK);
  CHECK(cf_net_stream_wait(st, &err) == CF_OK);
  /* two passes of 2 ms, one after the other */
  CHECK(cf_clock_now() - t0 >= 0.004);
  CHECK_INT_EQ(cf_net_stream_pending(st), 0);
  /* the simulated device answers the same every time, and the same as a
   * plain evaluation */
  CHECK(memcmp(logits[0], logits[1], (size_t)n_moves * sizeof(float)) == 0);
  CHECK(cf_net_eval(net, 1, &req, &out[2], &err) == CF_OK);
  CHECK(memcmp(logits[0], logits[2], (size_t)n_moves * sizeof(float)) == 0);
  CHECK_NEAR(out[0].wdl[0], out[0].wdl[2], 1e-6); /* the start position is level */
  bool varied = false;
  for (int i = 1; i < n_moves; i++) varied |= logits[0][i] != logits[0][0];
  CHECK(varied);
  cf_game_free(&g);
out:
  cf_net_stream_free(st);
  cf_net_free(net);
}

/* Black's queen hangs to a pawn; a rook hangs to a rook. */
static const char *const clear[][2] = {
    {"rnb1kbnr/pppp1ppp/8/4p3/3q4/4P3/PPPP1PPP/RNBQKBNR w KQkq - 0 3", "e3d4"},
    {"4k3/8/8/3r4/8/8/3R4/4K3 w - - 0 1", "d2d5"},
};
/* White mates in one (Qxf7#): the search proves it and stops. */
static const char *const mate_in_one = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";

static void test_fixed_nodes_every_depth(cf_test *t) {
  static const char *const latencies[] = {"latency_us=0", "latency_us=300,per_position_ns=2000"};
  for (int l = 0; l < 2; l++) {
    cf_net *net = load_net(t, "sim", latencies[l], 16);
    if (!net) return;
    for (int c = 0; c < 2; c++)
      for (int k = 1; k <= 4; k++) {
        run_out o;
        CHECK(run(t, net, clear[c][0], k, 300, NULL, &o, NULL) == CF_OK);
        CHECK_INT_EQ(o.root_n, 300);
        CHECK_INT_EQ(o.in_flight, 0);
        CHECK(o.add_up);
        char uci[CF_UCI_MOVE_MAX];
        cf_move_write_uci(o.best, 0, uci);
        CHECK_STR_EQ(uci, clear[c][1]);
      }
    cf_net_free(net);
  }
}

/* On the real network, one batch in flight is the search as before, and
 * several find the same clear moves with every visit accounted for. */
static void test_real_net(cf_test *t) {
  cf_net *net = load_net(t, "ref", NULL, 16);
  if (!net) return;
  for (int k = 1; k <= 3; k += 2) {
    run_out o;
    CHECK(run(t, net, clear[0][0], k, 120, NULL, &o, NULL) == CF_OK);
    CHECK_INT_EQ(o.root_n, 120);
    CHECK_INT_EQ(o.in_flight, 0);
    CHECK(o.add_up);
    char uci[CF_UCI_MOVE_MAX];
    cf_move_write_uci(o.best, 0, uci);
    CHECK_STR_EQ(uci, clear[0][1]);
    /* the mate is proven, and the proof ends the search early */
    CHECK(run(t, net, mate_in_one, k, 120, NULL, &o, NULL) == CF_OK);
    cf_move_write_uci(o.best, 0, uci);
    CHECK_STR_EQ(uci, "h5f7");
    CHECK(o.root_n < 120);
    CHECK_INT_EQ(o.in_flight, 0);
  }
  cf_net_free(net);
}

typedef struct stopper {
  atomic_bool *flag;
  double after;
} stopper;

static void *stop_later(void *arg) {
  stopper *s = arg;
  struct timespec nap = {0, (long)(s->after * 1e9)};
  nanosleep(&nap, NULL);
  atomic_store(s->flag, true);
  return NULL;
}

/* A stop while 50 ms passes are in the network: back within about two
 * passes, with every visit that came back counted. */
static void test_stop_mid_batch(cf_test *t) {
  cf_net *net = load_net(t, "sim", "latency_us=50000", 16);
  if (!net) return;
  atomic_bool flag;
  atomic_init(&flag, false);
  stopper sp = {&flag, 0.12};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, stop_later, &sp) == 0);
  run_out o;
  CHECK(run(t, net, CF_FEN_STARTPOS, 3, 0, &flag, &o, NULL) == CF_OK);
  pthread_join(th, NULL);
  CHECK(o.seconds < 0.12 + 0.05 * 3 + 0.1 * CF_TEST_SLACK);
  CHECK(o.best != CF_MOVE_NONE);
  CHECK_INT_EQ(o.in_flight, 0);
  CHECK(o.add_up);
  cf_net_free(net);
}

/* The fifth pass of the simulated device fails (fault_op counts passes). */
static void test_device_failure(cf_test *t) {
  cf_net *net = load_net(t, "sim", "latency_us=200,fault_op=5", 16);
  if (!net) return;
  run_out o;
  cf_error err = {0};
  CHECK(run(t, net, clear[0][0], 3, 400, NULL, &o, &err) == CF_ERR_BACKEND);
  CHECK_STR_CONTAINS(err.msg, "pass");
  CHECK_STR_CONTAINS(err.msg, "injected failure");
  CHECK(o.best != CF_MOVE_NONE); /* what was searched gives a move */
  CHECK_INT_EQ(o.in_flight, 0);
  CHECK(o.add_up);
  /* the injected failure was one pass: the device works again */
  CHECK(run(t, net, clear[0][0], 3, 100, NULL, &o, &err) == CF_OK);
  CHECK_INT_EQ(o.root_n, 100);
  cf_net_free(net);
}

static void test_bad_options(cf_test *t) {
  static const char *const bad[][2] = {
      {"latency_us=-1", "latency_us"},
      {"per_position_ns=2000000", "per_position_ns"},
      {"latency=5", "latency"},
  };
  for (int i = 0; i < 3; i++) {
    cf_engine_weights_spec spec = {.weights = CF_WEIGHTS_BUILT_IN,
                                   .net = {.backend = "sim", .backend_options = bad[i][0],
                                           .max_batch = 4}};
    cf_net *net = NULL;
    cf_engine_weights_info info;
    cf_error err = {0};
    CHECK(cf_engine_load_net(&spec, &net, &info, &err) != CF_OK && net == NULL);
    CHECK_STR_CONTAINS(err.msg, bad[i][1]);
    CHECK_STR_CONTAINS(err.msg, "sim");
  }
  /* lanes are not for one simulated device */
  cf_engine_weights_spec spec = {.weights = CF_WEIGHTS_BUILT_IN,
                                 .net = {.backend = "sim", .backend_options = "lanes=2",
                                         .max_batch = 8}};
  cf_net *net = NULL;
  cf_engine_weights_info info;
  cf_error err = {0};
  CHECK(cf_engine_load_net(&spec, &net, &info, &err) != CF_OK && net == NULL);
  CHECK_STR_CONTAINS(err.msg, "lanes");
}

typedef struct lines {
  char text[1 << 15];
  size_t used;
} lines;

static void collect(void *user, const char *line) {
  lines *l = user;
  int n = snprintf(l->text + l->used, sizeof l->text - l->used, "%s\n", line);
  if (n > 0 && l->used + (size_t)n < sizeof l->text) l->used += (size_t)n;
}

/* The UCI engine on the simulated device when a pass fails mid-search:
 * an error line naming the pass and the cause, a legal bestmove from what
 * was searched, and a working engine after isready. */
static void test_uci_device_failure(cf_test *t) {
  static lines out;
  out.used = 0;
  cf_uci *u = NULL;
  cf_uci_config cfg = {.inline_search = true};
  CHECK(cf_uci_create(&cfg, collect, &out, &u, NULL) == CF_OK);
  if (!u) return;
  cf_uci_feed(u, "setoption name WeightsFile value <built in>");
  cf_uci_feed(u, "setoption name Backend value sim");
  cf_uci_feed(u, "setoption name BackendOptions value latency_us=100,fault_op=4");
  cf_uci_feed(u, "setoption name Threads value 2");
  cf_uci_feed(u, "isready");
  cf_uci_feed(u, "position startpos moves e2e4");
  out.used = 0;
  cf_uci_feed(u, "go nodes 2000");
  CHECK_STR_CONTAINS(out.text, "info string error: ");
  CHECK_STR_CONTAINS(out.text, "pass");
  CHECK_STR_CONTAINS(out.text, "injected failure");
  CHECK(strstr(out.text, "bestmove ") != NULL && strstr(out.text, "bestmove 0000") == NULL);
  /* a working device again (the options load a new net), and it searches */
  cf_uci_feed(u, "setoption name BackendOptions value latency_us=100");
  out.used = 0;
  out.text[0] = 0;
  cf_uci_feed(u, "isready");
  cf_uci_feed(u, "go nodes 300");
  CHECK_STR_CONTAINS(out.text, "readyok");
  CHECK_STR_CONTAINS(out.text, " nodes 300 ");
  CHECK(strstr(out.text, "error") == NULL);
  cf_uci_free(u);
}

CF_TEST_MAIN(test_uci_device_failure, test_stream_order, test_fixed_nodes_every_depth, test_real_net, test_stop_mid_batch,
             test_device_failure, test_bad_options)
