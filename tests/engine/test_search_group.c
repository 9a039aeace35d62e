/* test_search_group.c: many searches sharing the network's batches
 * (engine/search/cf_search_group.h):
 *   - at fixed nodes, each job's result (best move, every root move's
 *     visits, Q and prior, the PV, evaluations, depth) is bit for bit the
 *     one cf_search_run gives alone, on ref, on the simulated device and
 *     on the default backend; positions with no legal move and with one
 *     legal move among them;
 *   - one network call a round (per part on a device), fewer calls than
 *     the searches' batches;
 *   - a device failure: the searches in the failed call fail naming the
 *     pass, the others end as asked, each keeps a legal move, nothing in
 *     flight;
 *   - an empty group is fine. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chess/cf_movegen.h"
#include "engine/cf_engine_weights.h"
#include "engine/search/cf_search_group.h"
#include "engine/search/cf_search_internal.h"
#include "engine/uci/cf_uci_options.h"
#include "tests/cf_test.h"

static const char *const fens[] = {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1b1k2r/2p2ppp/p1n2n2/4p3/Pb2P3/1B3N2/1P3PPP/RNBK3R w kq - 0 12",
    "r2q1rk1/2p1bppp/p1n1b3/3np3/Pp6/1BPP1N1P/1P3PP1/RNBQ1RK1 w - - 1 12",
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", /* mate in one */
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",                                   /* stalemate */
    "8/8/8/8/8/5k2/4q3/7K w - - 0 1",                                   /* one legal move */
    "r2qk2r/p1p2ppp/4b3/2npQ3/8/2P2N2/PP3PPP/RNB1K2R w KQkq - 1 12",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", /* back-rank mate in one */
};
#define N_POS ((int)(sizeof fens / sizeof fens[0]))

static cf_net *load_net(cf_test *t, const char *backend, const char *options) {
  cf_engine_weights_spec spec = {.weights = CF_WEIGHTS_BUILT_IN,
                                 .net = {.backend = backend, .backend_options = options,
                                         .max_batch = 256}};
  cf_net *net = NULL;
  cf_engine_weights_info info;
  cf_error err = {0};
  if (!CHECK(cf_engine_load_net(&spec, &net, &info, &err) == CF_OK))
    fprintf(stderr, "%s %s: %s\n", backend, options ? options : "", err.msg);
  return net;
}

static cf_search *new_search(cf_test *t) {
  cf_search_params p;
  cf_search_params_default(&p);
  p.nn_cache_size = 4096;
  p.smart_pruning_factor = 0; /* reads the clock */
  cf_search *s = NULL;
  CHECK(cf_search_create(&p, &s, NULL) == CF_OK);
  return s;
}

/* What a search left: its result and its root's statistics. */
typedef struct outcome {
  cf_status status;
  cf_search_result r;
  int n_stats, pv_len;
  cf_search_move_stats stats[CF_MAX_MOVES];
  cf_move pv[64];
  long in_flight;
} outcome;

static long in_flight_left(const cf_snode *x) {
  long n = x->in_flight;
  for (int i = 0; x->edges && i < x->n_edges; i++)
    if (x->edges[i].child) n += in_flight_left(x->edges[i].child);
  return n;
}

static void record(cf_search *s, cf_status st, const cf_search_result *r, outcome *o) {
  o->status = st;
  o->r = *r;
  o->n_stats = cf_search_root_stats(s, o->stats, CF_MAX_MOVES);
  o->pv_len = cf_search_pv(s, CF_MOVE_NONE, o->pv, 64);
  o->in_flight = s->root ? in_flight_left(s->root) : 0;
}

static bool same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

static void check_same(cf_test *t, const char *what, int i, const outcome *a, const outcome *b) {
  bool same = a->status == b->status && a->r.info.best == b->r.info.best &&
              a->n_stats == b->n_stats && a->pv_len == b->pv_len &&
              a->r.info.evals == b->r.info.evals && a->r.info.visits == b->r.info.visits &&
              a->r.info.depth == b->r.info.depth && a->r.info.seldepth == b->r.info.seldepth &&
              same_bits(a->r.info.q, b->r.info.q) && a->r.ponder == b->r.ponder;
  for (int k = 0; same && k < a->n_stats; k++)
    same = a->stats[k].move == b->stats[k].move && a->stats[k].n == b->stats[k].n &&
           same_bits(a->stats[k].q, b->stats[k].q) && same_bits(a->stats[k].p, b->stats[k].p);
  for (int k = 0; same && k < a->pv_len; k++) same = a->pv[k] == b->pv[k];
  if (!CHECK(same))
    fprintf(stderr, "%s: position %d (%s): alone best %d evals %ld q %.9g, grouped best %d evals %ld q %.9g\n",
            what, i, fens[i], a->r.info.best, a->r.info.evals, a->r.info.q, b->r.info.best,
            b->r.info.evals, b->r.info.q);
}

/* Every position alone, then all of them as one group: the same. */
static void compare_on(cf_test *t, const char *backend, const char *options, long visits) {
  cf_net *net = load_net(t, backend, options);
  if (!net) return;
  static outcome alone[N_POS], grouped[N_POS];
  cf_search_job jobs[N_POS];
  cf_game games[N_POS];
  long alone_batches = 0, grouped_batches = 0;
  for (int i = 0; i < N_POS; i++) {
    cf_search *s = new_search(t);
    CHECK(cf_game_init_fen(&games[i], fens[i], NULL) == CF_OK);
    cf_search_limits lim = {.visits = visits};
    cf_search_result r;
    cf_error err = {0};
    const cf_status st = cf_search_run(s, net, &games[i], &lim, NULL, NULL, &r, &err);
    record(s, st, &r, &alone[i]);
    alone_batches += r.info.batches;
    cf_search_free(s);
    jobs[i] = (cf_search_job){.search = new_search(t), .game = &games[i],
                              .limits = {.visits = visits}};
  }
  cf_error err = {0};
  CHECK(cf_search_run_group(net, jobs, N_POS, NULL, &err) == CF_OK);
  for (int i = 0; i < N_POS; i++) {
    record(jobs[i].search, jobs[i].status, &jobs[i].result, &grouped[i]);
    check_same(t, backend, i, &alone[i], &grouped[i]);
    CHECK(grouped[i].in_flight == 0);
    grouped_batches += jobs[i].result.info.batches;
    cf_search_free(jobs[i].search);
    cf_game_free(&games[i]);
  }
  /* each search made the batches it makes alone; the group sent them in
   * fewer network calls (checked through the sim device below) */
  CHECK(grouped_batches == alone_batches);
  CHECK(alone[4].r.info.best == CF_MOVE_NONE); /* stalemate */
  CHECK(alone[5].r.info.best != CF_MOVE_NONE);
  cf_net_free(net);
}

/* ThreadSanitizer (CI's job for the threaded parts) runs the tests on sim,
 * whose two parts take turns through the stream's thread; the CPU backends
 * here run on the caller's thread only and take minutes under it. */
#if defined(__SANITIZE_THREAD__)
#define TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TSAN 1
#endif
#endif
#ifdef TSAN
#define CPU_ONLY_TEST() CF_SKIP("a CPU backend: no thread of its own to check")
#else
#define CPU_ONLY_TEST() ((void)0)
#endif

static void test_same_as_alone_ref(cf_test *t) {
  CPU_ONLY_TEST();
  if (!t->skipped) compare_on(t, "ref", NULL, 60);
}
static void test_same_as_alone_sim(cf_test *t) { compare_on(t, "sim", "latency_us=50", 300); }
static void test_same_as_alone_default(cf_test *t) {
  CPU_ONLY_TEST();
  if (!t->skipped) compare_on(t, "auto", NULL, 200);
}

/* One network call a round: on a CPU backend as many as the longest
 * search has batches; on a device two parts take turns, each with one call
 * a round (so at most twice that); always fewer than the searches' batches. */
static void calls_on(cf_test *t, const char *backend, const char *options, int parts) {
  cf_net *net = load_net(t, backend, options);
  if (!net) return;
  cf_search_job jobs[N_POS];
  cf_game games[N_POS];
  long batches_max = 0;
  for (int i = 0; i < N_POS; i++) {
    CHECK(cf_game_init_fen(&games[i], fens[i], NULL) == CF_OK);
    jobs[i] = (cf_search_job){.search = new_search(t), .game = &games[i], .limits = {.visits = 100}};
  }
  cf_error err = {0};
  cf_search_group_stats stats;
  CHECK(cf_search_run_group(net, jobs, N_POS, &stats, &err) == CF_OK);
  long evals = 0, batches = 0;
  for (int i = 0; i < N_POS; i++) {
    evals += jobs[i].result.info.evals;
    batches += jobs[i].result.info.batches;
    if (jobs[i].result.info.batches > batches_max) batches_max = jobs[i].result.info.batches;
    cf_search_free(jobs[i].search);
    cf_game_free(&games[i]);
  }
  CHECK(stats.leaves == evals);
  const bool ok = parts == 1 ? stats.calls == batches_max
                             : stats.calls >= batches_max && stats.calls <= 2 * batches_max;
  if (!CHECK(ok && stats.calls < batches))
    fprintf(stderr, "%s: calls %ld, longest search %ld batches, all %ld\n", backend, stats.calls,
            batches_max, batches);
  cf_net_free(net);
}

static void test_calls_cpu(cf_test *t) {
  CPU_ONLY_TEST();
  if (!t->skipped) calls_on(t, "ref", NULL, 1);
}
static void test_calls_device(cf_test *t) { calls_on(t, "sim", "latency_us=10", 2); }

/* The device fails on its third pass: the searches whose leaves were in
 * it fail, naming the pass; the others end as asked; every one keeps a
 * legal move and leaves nothing in flight. */
static void test_device_failure(cf_test *t) {
  cf_net *net = load_net(t, "sim", "latency_us=10,fault_op=3");
  if (!net) return;
  cf_search_job jobs[3];
  cf_game games[3];
  for (int i = 0; i < 3; i++) {
    CHECK(cf_game_init_fen(&games[i], fens[i], NULL) == CF_OK);
    jobs[i] = (cf_search_job){.search = new_search(t), .game = &games[i], .limits = {.visits = 400}};
  }
  cf_error err = {0};
  CHECK(cf_search_run_group(net, jobs, 3, NULL, &err) != CF_OK);
  CHECK_STR_CONTAINS(err.msg, "injected failure");
  int failed = 0;
  for (int i = 0; i < 3; i++) {
    if (jobs[i].status != CF_OK) {
      failed++;
      CHECK_STR_CONTAINS(jobs[i].error.msg, "injected failure");
    } else {
      CHECK(jobs[i].result.info.visits == 400);
    }
    const cf_move best = jobs[i].result.info.best;
    CHECK(best != CF_MOVE_NONE && cf_move_is_legal(cf_game_position(&games[i]), best));
    CHECK(in_flight_left(jobs[i].search->root) == 0);
    cf_search_free(jobs[i].search);
    cf_game_free(&games[i]);
  }
  CHECK(failed >= 1);
  cf_net_free(net);
}

static void test_empty_group(cf_test *t) {
  cf_net *net = load_net(t, "ref", NULL);
  if (!net) return;
  cf_error err = {0};
  CHECK(cf_search_run_group(net, NULL, 0, NULL, &err) == CF_OK);
  cf_net_free(net);
}

CF_TEST_MAIN(test_same_as_alone_ref, test_same_as_alone_sim, test_same_as_alone_default,
             test_calls_cpu, test_calls_device, test_device_failure, test_empty_group)
