/* test_search_prefetch.c: MaxPrefetch (Lc0's prefetch into the NN cache,
 * with LcZeroGather), on trees built by hand over the start position and
 * on whole runs of the built-in network:
 *   - a batch with fewer leaves than MaxPrefetch takes the rest in
 *     positions not yet visited, in Lc0's order: worked out by hand on an
 *     even-prior root, exactly which ones;
 *   - they land in the NN cache and are no visits: the root's count, the
 *     evaluations and the playouts count the leaves alone, every count and
 *     mean stays exact; a later walk that reaches one is a cache hit;
 *   - MaxPrefetch 0, a batch already that full, no cache, and LcZeroGather
 *     off: nothing prefetched, and off, the search is what it was;
 *   - a run to a node limit ends at it exactly. */
#include <math.h>
#include <string.h>

#include "chess/cf_fen.h"
#include "engine/cf_engine_weights.h"
#include "tests/engine/search_hand_tree.h"

/* A start-position root evaluated once (value root_v for White), its 20
 * moves at even priors, each child evaluated once too when child_sharp >
 * 0 (ht_hand_tree); LcZeroGather on with MaxPrefetch `max_prefetch`, an
 * NN cache of `cache` entries, ready to gather. */
static bool prefetch_tree(cf_test *t, ht_fixture *fx, long cache, int max_prefetch, float root_v,
                          float child_sharp) {
  if (!ht_setup(t, fx, cache, CF_FEN_STARTPOS) ||
      !ht_hand_tree(t, fx->s, &fx->g, 0, root_v, child_sharp))
    return false;
  fx->s->params.lczero_gather = true;
  fx->s->params.max_prefetch = max_prefetch;
  ht_begin(fx->s, fx->net, &fx->g, &fx->lim);
  return true;
}

/* With no child visited. */
static bool even_root(cf_test *t, ht_fixture *fx, long cache, int max_prefetch) {
  return prefetch_tree(t, fx, cache, max_prefetch, 0.1f, 0);
}

/* Gathers one walk's batch into slot 0 (one leaf); returns the positions
 * for the network. */
static int gather_one_walk(cf_test *t, cf_search *s) {
  const int n = cf_search_gather(s, &s->slots[0], 1, NULL);
  CHECK_INT_EQ(s->slots[0].n_leaves, 1);
  return n;
}

/* Evaluates slot 0's n positions and backs the batch up. */
static void evaluate(cf_test *t, cf_search *s, int n) {
  cf_batch *b = &s->slots[0];
  const cf_status st = cf_net_eval(s->net, n, b->requests, b->outputs, NULL);
  CHECK(cf_search_finish(s, b, st, NULL) == CF_OK);
}

/* Whether the cache holds the position after the root's edge i and then,
 * when j >= 0, that child's edge j. */
static bool cached_after(cf_search *s, cf_game *g, int i, int j) {
  const cf_snode *c = s->root->edges[i].child;
  if (cf_game_push(g, s->root->edges[i].move, NULL) != CF_OK) return false;
  const bool deeper = j >= 0 && c && c->edges;
  if (deeper && cf_game_push(g, c->edges[j].move, NULL) != CF_OK) return false;
  cf_search_net_eval ev;
  const bool got = cf_search_cached_eval(s, g, &ev);
  if (deeper) cf_game_pop(g);
  cf_game_pop(g);
  return got;
}

/* One walk's batch (want 1) on the even root: the walk takes the first
 * move (ties go to the first), which then waits: its Q + U drops to
 * 0.025 cpuct - 0.1 and it comes last. The other 19 tie at 0.05 cpuct
 * - 0.1 (unvisited: FPU -0.1, the root's Q with nothing visited); Lc0's
 * share of each is the whole budget left, since the next one's Q + U is
 * below minus the FPU (+0.1). So, with MaxPrefetch 8, moves 1 to 7 are
 * prefetched, one each, and nothing else. */
static void test_prefetch_in_lc0_order(cf_test *t) {
  ht_fixture fx;
  if (even_root(t, &fx, 100000, 8)) {
    cf_search *s = fx.s;
    const cf_batch *b = &s->slots[0];
    const int n = gather_one_walk(t, s);
    CHECK(b->leaves[0].node == s->root->edges[0].child);
    CHECK_INT_EQ(b->n_prefetched, 7);
    CHECK_INT_EQ(n, 8);
    for (int k = 1; k < n; k++) CHECK(b->leaves[k].node == NULL);
    CHECK_INT_EQ(fx.g.count, 1); /* the game is back at the root */
    evaluate(t, s, n);
    for (int i = 0; i < s->root->n_edges; i++)
      CHECK(cached_after(s, &fx.g, i, -1) == (i <= 7)); /* the leaf and edges 1 to 7 */
    CHECK_INT_EQ(s->prefetched, 7);
  }
  ht_teardown(&fx);
}

/* Shares below the root: every root move visited once at value 0 (even
 * priors), each child with prior 0.5 on its first move. The walk takes
 * move 0 and its first reply. Moves 1 to 19 then tie in Q + U (move 0,
 * with the walk's visit waiting, comes last); the share of each is
 * int(P puct / (U of the next) - 1) + 1 = int(2 - 1) + 1 = 2, spent below
 * it: the first reply (share 2 of the child's budget: its rival is far
 * behind) and the second (share 1 left). With MaxPrefetch 8 the budget of
 * 7 covers moves 1 to 3 with both replies and move 4 with its first. */
static void test_prefetch_shares(cf_test *t) {
  ht_fixture fx;
  if (prefetch_tree(t, &fx, 100000, 8, 0.0f, 0.5f)) {
    cf_search *s = fx.s;
    const int n = gather_one_walk(t, s);
    CHECK_INT_EQ(n, 8);
    evaluate(t, s, n);
    CHECK(cached_after(s, &fx.g, 0, 0)); /* the leaf */
    CHECK(!cached_after(s, &fx.g, 0, 1));
    for (int i = 1; i <= 3; i++) {
      CHECK(cached_after(s, &fx.g, i, 0));
      CHECK(cached_after(s, &fx.g, i, 1));
      CHECK(!cached_after(s, &fx.g, i, 2));
    }
    CHECK(cached_after(s, &fx.g, 4, 0));
    CHECK(!cached_after(s, &fx.g, 4, 1));
    CHECK(!cached_after(s, &fx.g, 5, 0));
    ht_check_exact(t, s->root);
  }
  ht_teardown(&fx);
}

/* Prefetched positions are no visits: after a batch the root has one
 * visit per leaf, the evaluations and playouts count leaves only, every
 * count and mean is exact; the next batches meet prefetched positions and
 * back them up from the cache, out of order. */
static void test_prefetched_are_no_visits(cf_test *t) {
  ht_fixture fx;
  if (even_root(t, &fx, 100000, 32)) {
    cf_search *s = fx.s;
    const uint32_t before = s->root->n;
    const long evals = s->evals, playouts = s->playouts, hits = s->cache_hits;
    const long terminal = s->terminal_visits;
    CHECK(cf_search_batch(s, 4, NULL) == CF_OK);
    CHECK_INT_EQ(s->evals - evals, 4);
    CHECK_INT_EQ(s->playouts - playouts, 4);
    CHECK_INT_EQ(s->prefetched, 16); /* the 16 moves not walked; the 4 leaves wait */
    CHECK_INT_EQ(s->root->n, before + 4);
    CHECK_INT_EQ(s->cache_hits - hits, 0);
    ht_check_exact(t, s->root);
    for (int k = 0; k < 6; k++) CHECK(cf_search_batch(s, 4, NULL) == CF_OK);
    CHECK(s->cache_hits - hits >= 1); /* walks reached prefetched positions */
    const long made = s->playouts - playouts;
    CHECK_INT_EQ(made, (s->evals - evals) + (s->cache_hits - hits) + (s->terminal_visits - terminal));
    CHECK_INT_EQ(s->root->n, before + (uint32_t)made);
    ht_check_exact(t, s->root);
  }
  ht_teardown(&fx);
}

/* The positions one batch of `want` on the even root sends to the
 * network, and how many of them were prefetched. */
static int batch_size(cf_test *t, long cache, int max_prefetch, bool lczero_gather, int want,
                      int *prefetched) {
  ht_fixture fx;
  int n = -1;
  if (even_root(t, &fx, cache, max_prefetch)) {
    cf_search *s = fx.s;
    s->params.lczero_gather = lczero_gather;
    cf_batch *b = &s->slots[0];
    n = cf_search_gather(s, b, want, NULL);
    *prefetched = b->n_prefetched;
    CHECK_INT_EQ(n, b->n_leaves + b->n_prefetched);
    CHECK(cf_search_finish(s, b, CF_ERR_NOMEM, NULL) == CF_ERR_NOMEM); /* walks taken back */
    CHECK_INT_EQ(s->prefetched, 0);
    ht_check_exact(t, s->root);
  }
  ht_teardown(&fx);
  return n;
}

/* MaxPrefetch 0 is none; a batch whose leaves already reach MaxPrefetch
 * takes none; nor without a cache, nor without LcZeroGather. */
static void test_when_nothing_is_prefetched(cf_test *t) {
  int prefetched = -1;
  CHECK_INT_EQ(batch_size(t, 100000, 8, true, 2, &prefetched), 8); /* the control: 2 leaves */
  CHECK_INT_EQ(prefetched, 6);
  CHECK_INT_EQ(batch_size(t, 100000, 0, true, 2, &prefetched), 2);
  CHECK_INT_EQ(prefetched, 0);
  CHECK_INT_EQ(batch_size(t, 100000, 4, true, 4, &prefetched), 4);
  CHECK_INT_EQ(prefetched, 0);
  CHECK_INT_EQ(batch_size(t, 0, 8, true, 2, &prefetched), 2);
  CHECK_INT_EQ(prefetched, 0);
  CHECK_INT_EQ(batch_size(t, 100000, 8, false, 2, &prefetched), 2);
  CHECK_INT_EQ(prefetched, 0);
}

/* A whole run to a node limit from the start position, MinibatchSize 8,
 * with LcZeroGather and MaxPrefetch as given: the root statistics. */
static int run_to(cf_test *t, bool lczero_gather, int max_prefetch, cf_search_move_stats *out,
                  cf_search_result *r, cf_search_counters *c) {
  cf_engine_weights_spec spec = {.weights = CF_WEIGHTS_BUILT_IN, .net = {.max_batch = 8}};
  cf_net *net = NULL;
  cf_engine_weights_info info;
  cf_error err = {0};
  cf_search_params p;
  cf_search_params_default(&p);
  p.minibatch_size = 8;
  p.smart_pruning_factor = 0;
  p.lczero_gather = lczero_gather;
  p.max_prefetch = max_prefetch;
  cf_search *s = NULL;
  cf_game g;
  int n = -1;
  if (CHECK(cf_engine_load_net(&spec, &net, &info, &err) == CF_OK) &&
      CHECK(cf_search_create(&p, &s, NULL) == CF_OK) &&
      CHECK(cf_game_init_fen(&g, CF_FEN_STARTPOS, NULL) == CF_OK)) {
    cf_search_limits lim = {.visits = 100};
    if (CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, r, NULL) == CF_OK)) {
      n = cf_search_root_stats(s, out, CF_MAX_MOVES);
      cf_search_get_counters(s, c);
    }
    cf_game_free(&g);
  }
  cf_search_free(s);
  cf_net_free(net);
  return n;
}

/* With LcZeroGather the run prefetches (MaxPrefetch 32, Lc0's default),
 * ends at the node limit exactly, and counts as visits what it visited
 * alone. Without LcZeroGather MaxPrefetch changes nothing: the same root
 * statistics, to the bit, at 32 and at 0. */
static void test_runs(cf_test *t) {
  cf_search_move_stats a[CF_MAX_MOVES], b[CF_MAX_MOVES];
  cf_search_result ra, rb;
  cf_search_counters ca, cb;
  const int na = run_to(t, true, 32, a, &ra, &ca);
  CHECK(na > 0);
  CHECK(ca.prefetched > 0);
  CHECK_INT_EQ(ra.info.visits, 100);
  CHECK_INT_EQ(ra.info.playouts, 100);
  CHECK(ra.info.cache_hits >= 1);
  CHECK_INT_EQ(ra.info.evals + ra.info.cache_hits + ca.terminal_visits, ra.info.playouts);
  const int nb = run_to(t, true, 0, b, &rb, &cb);
  CHECK_INT_EQ(cb.prefetched, 0);
  CHECK(nb > 0);
  CHECK_INT_EQ(rb.info.visits, 100);

  const int n32 = run_to(t, false, 32, a, &ra, &ca);
  const int n0 = run_to(t, false, 0, b, &rb, &cb);
  CHECK_INT_EQ(ca.prefetched, 0);
  CHECK_INT_EQ(n32, n0);
  CHECK_INT_EQ(ra.info.visits, rb.info.visits);
  CHECK_INT_EQ(ra.info.evals, rb.info.evals);
  for (int i = 0; i < n32 && i < n0; i++) {
    CHECK(a[i].move == b[i].move);
    CHECK_INT_EQ(a[i].n, b[i].n);
    CHECK(a[i].q == b[i].q || (isnan(a[i].q) && isnan(b[i].q)));
  }
}

CF_TEST_MAIN(test_prefetch_in_lc0_order, test_prefetch_shares, test_prefetched_are_no_visits,
             test_when_nothing_is_prefetched, test_runs)
