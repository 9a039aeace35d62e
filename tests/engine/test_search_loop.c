/* test_search_loop.c: the search loop's parts on hand-built states: each
 * stop rule alone and the order they are asked in, the batch target (each
 * rule on the snapshot the loop fills from the tree), the progress throttle, and the MinibatchSize each backend declares. */
#include <stdatomic.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "engine/search/cf_search_internal.h"
#include "tests/cf_test.h"

/* A search with a root of n_edges unvisited moves (0 = not yet expanded)
 * and the given limits; children are made on demand by child(). */
static cf_search *bare(cf_test *t, cf_search_limits *lim, int n_edges) {
  cf_search *s = NULL;
  if (!CHECK(cf_search_create(NULL, &s, NULL) == CF_OK)) return NULL;
  s->root = cf_node_new(&s->pool, NULL, 0);
  if (!CHECK(s->root != NULL)) {
    cf_search_free(s);
    return NULL;
  }
  s->root->proven = CF_UNPROVEN;
  if (n_edges > 0 && !CHECK(cf_node_alloc_edges(&s->pool, s->root, n_edges))) {
    cf_search_free(s);
    return NULL;
  }
  for (int i = 0; i < n_edges; i++) s->root->edges[i] = (cf_sedge){.move = (cf_move)(i + 1), .p = 1.0f / n_edges};
  s->limits = lim;
  return s;
}

/* Root child i with n visits. */
static cf_snode *child(cf_search *s, int i, uint32_t n) {
  cf_snode *c = cf_node_new(&s->pool, s->root, i);
  if (!c) return NULL;
  c->proven = CF_UNPROVEN;
  c->n = n;
  s->root->edges[i].child = c;
  s->root->n += n;
  return c;
}

/* The snapshot the search loop takes of s at now (cf_search_stats_fill),
 * which the stop and pace rules read: valid until the next call. */
static const cf_search_stats *at(const cf_search *s, double now) {
  static cf_search_stats st;
  cf_search_stats_fill(s, now, &st);
  return &st;
}

static void done(cf_search *s) {
  if (!s) return;
  s->limits = NULL;
  cf_search_free(s);
}

/* ---- one test per stop rule ---------------------------------------------- */

static void test_stop_by_flag(cf_test *t) {
  atomic_bool flag = true;
  cf_search_limits lim = {.stop = &flag};
  cf_search *s = bare(t, &lim, 0);
  if (!s) return;
  CHECK(!cf_rule_flag(at(s, 0))); /* no move to answer with yet */
  done(s);
  s = bare(t, &lim, 2);
  if (!s) return;
  CHECK(cf_rule_flag(at(s, 0)));
  atomic_store(&flag, false);
  CHECK(!cf_rule_flag(at(s, 0)));
  lim.stop = NULL;
  CHECK(!cf_rule_flag(at(s, 0)));
  done(s);
}

static void test_stop_by_deadline(cf_test *t) {
  cf_search_limits lim = {.deadline = 10.0};
  cf_search *s = bare(t, &lim, 0);
  if (!s) return;
  CHECK(!cf_rule_deadline(at(s, 11.0))); /* not before the root has a move */
  done(s);
  s = bare(t, &lim, 2);
  if (!s) return;
  CHECK(!cf_rule_deadline(at(s, 9.999)));
  CHECK(cf_rule_deadline(at(s, 10.0)));
  s->owe_batch = true; /* one_minibatch: the batch below the root comes first */
  CHECK(!cf_rule_deadline(at(s, 11.0)));
  s->owe_batch = false;
  lim.deadline = 0;
  CHECK(!cf_rule_deadline(at(s, 1e9)));
  done(s);
}

static void test_stop_by_visits(cf_test *t) {
  cf_search_limits lim = {.visits = 5};
  cf_search *s = bare(t, &lim, 0); /* counts even before the root is expanded */
  if (!s) return;
  s->root->n = 4;
  CHECK(!cf_rule_visits(at(s, 0)));
  s->root->n = 5;
  CHECK(cf_rule_visits(at(s, 0)));
  lim.visits = 0;
  CHECK(!cf_rule_visits(at(s, 0)));
  done(s);
}

static void test_stop_by_depth(cf_test *t) {
  cf_search_limits lim = {.depth = 3};
  cf_search *s = bare(t, &lim, 2);
  if (!s) return;
  CHECK(!cf_rule_depth(at(s, 0))); /* no playouts yet */
  s->playouts = 2;
  s->cum_depth = 5; /* average 2.5 */
  CHECK(!cf_rule_depth(at(s, 0)));
  s->cum_depth = 6; /* average 3 */
  CHECK(cf_rule_depth(at(s, 0)));
  lim.depth = 0;
  CHECK(!cf_rule_depth(at(s, 0)));
  done(s);
}

static void test_stop_by_ram(cf_test *t) {
  cf_search_limits lim = {0};
  cf_search *s = bare(t, &lim, 2);
  if (!s) return;
  const size_t bytes = s->pool.bytes;
  CHECK(!cf_rule_ram(at(s, 0))); /* RamLimitMb 0: no limit */
  s->params.ram_limit_mb = 1;
  s->pool.bytes = 1048575;
  CHECK(!cf_rule_ram(at(s, 0)));
  s->pool.bytes = 1048576;
  CHECK(cf_rule_ram(at(s, 0)));
  s->pool.bytes = bytes;
  done(s);
}

static void test_stop_by_smart_pruning(cf_test *t) {
  cf_search_limits lim = {.visits = 100};
  cf_search *s = bare(t, &lim, 3);
  if (!s) return;
  s->root->n = 1;
  cf_snode *a = child(s, 0, 50), *b = child(s, 1, 10);
  if (!CHECK(a && b)) goto out;
  /* Counts are trusted 0.2 s after the first evaluation, as Lc0's. */
  CHECK(!cf_rule_smart_pruning(at(s, 2.0)));
  s->first_eval_time = 1.0;
  CHECK(!cf_rule_smart_pruning(at(s, 1.1)));
  /* 39 visits left / 1.33 = 29 cannot close a gap of 40. */
  CHECK(cf_rule_smart_pruning(at(s, 2.0)));
  /* A gap of 20 can be closed: go on. */
  a->n = 30;
  b->n = 10;
  s->root->n = 41; /* 59 left / 1.33 = 44 > 20 */
  CHECK(!cf_rule_smart_pruning(at(s, 2.0)));
  /* Off with factor 0, and in a held search. */
  a->n = 50;
  s->root->n = 61;
  s->params.smart_pruning_factor = 0;
  CHECK(!cf_rule_smart_pruning(at(s, 2.0)));
  s->params.smart_pruning_factor = 1.33f;
  lim.infinite = true;
  CHECK(!cf_rule_smart_pruning(at(s, 2.0)));
  lim.infinite = false;
  /* A forced win ends it whatever the counts. */
  a->n = 1;
  b->n = 10;
  b->proven = 1;
  CHECK(cf_rule_smart_pruning(at(s, 2.0)));
  b->proven = CF_UNPROVEN;
  /* Only one move allowed (searchmoves): nothing to choose. */
  const cf_move only[1] = {3};
  lim.allowed = only;
  lim.n_allowed = 1;
  lim.visits = 0;
  CHECK(cf_rule_smart_pruning(at(s, 2.0)));
out:
  done(s);
}

static void test_stop_by_mate(cf_test *t) {
  cf_search_limits lim = {.mate = 1};
  cf_search *s = bare(t, &lim, 2);
  if (!s) return;
  cf_snode *win = child(s, 0, 10), *other = child(s, 1, 3);
  if (!CHECK(win && other)) goto out;
  CHECK(!cf_rule_mate(at(s, 0))); /* nothing proven */
  win->proven = 1;
  win->proven_plies = 2; /* mate in 2 */
  CHECK_INT_EQ(cf_search_mate_of(win), 2);
  CHECK(!cf_rule_mate(at(s, 0)));
  lim.mate = 2;
  CHECK(cf_rule_mate(at(s, 0)));
  lim.mate = 0;
  CHECK(!cf_rule_mate(at(s, 0))); /* no go mate */
  lim.mate = 3;
  win->proven = -1; /* the other way round: mated, not mating */
  CHECK(!cf_rule_mate(at(s, 0)));
out:
  done(s);
}

static void test_stop_by_proof(cf_test *t) {
  cf_search_limits lim = {0};
  cf_search *s = bare(t, &lim, 2);
  if (!s) return;
  CHECK(!cf_rule_proof(at(s, 0)));
  s->root->proven = -1;
  CHECK(cf_rule_proof(at(s, 0)));
  done(s);
}

/* The rules are asked in order: the stop flag before the node limit, the
 * node limit before a proof. */
static void test_stop_rule_order(cf_test *t) {
  atomic_bool flag = true;
  cf_search_limits lim = {.stop = &flag, .visits = 1};
  cf_search *s = bare(t, &lim, 2);
  if (!s) return;
  s->root->n = 1;
  s->root->proven = 0;
  CHECK_INT_EQ(cf_search_stop_of(at(s, 0)), CF_STOP_FLAG);
  atomic_store(&flag, false);
  CHECK_INT_EQ(cf_search_stop_of(at(s, 0)), CF_STOP_VISITS);
  lim.visits = 0;
  s->params.smart_pruning_factor = 0;
  CHECK_INT_EQ(cf_search_stop_of(at(s, 0)), CF_STOP_SOLVED);
  s->root->proven = CF_UNPROVEN;
  CHECK_INT_EQ(cf_search_stop_of(at(s, 0)), CF_STOP_NONE);
  done(s);
}

/* ---- pace ----------------------------------------------------------------- */

static void test_batch_target(cf_test *t) {
  cf_search_limits lim = {.visits = 10};
  cf_search *s = bare(t, &lim, 2);
  if (!s) return;
  s->root->n = 4;
  CHECK_INT_EQ(cf_pace_batch_target(at(s, 0), 32), 6); /* the visits left */
  s->root->n = 12;
  CHECK_INT_EQ(cf_pace_batch_target(at(s, 0), 32), 1); /* never less than one */
  /* A node-limited search keeps whole batches whatever the speed. */
  lim.visits = 0;
  s->sec_per_eval = 0.01;
  CHECK_INT_EQ(cf_pace_batch_target(at(s, 0), 32), 32);
  /* Timed: what fits the 0.1 s stop latency, or the time left. */
  lim.deadline = 100.0;
  CHECK_INT_EQ(cf_pace_batch_target(at(s, 0), 32), 10);
  CHECK_INT_EQ(cf_pace_batch_target(at(s, 99.95), 32), 4);
  CHECK_INT_EQ(cf_pace_batch_target(at(s, 0), 8), 8);
  /* Held (infinite): the latency too. */
  lim.deadline = 0;
  lim.infinite = true;
  CHECK_INT_EQ(cf_pace_batch_target(at(s, 0), 32), 10);
  /* Out of time before any batch was timed: one position. */
  lim.infinite = false;
  lim.deadline = 1.0;
  s->sec_per_eval = 0;
  CHECK_INT_EQ(cf_pace_batch_target(at(s, 2.0), 32), 1);
  CHECK_INT_EQ(cf_pace_batch_target(at(s, 0.5), 32), 32);
  /* The owed batch (one_minibatch) takes what the whole budget fits. */
  s->owe_batch = true;
  s->start_time = 0;
  s->sec_per_eval = 0.1;
  CHECK_INT_EQ(cf_pace_batch_target(at(s, 0.9), 32), 10);
  s->sec_per_eval = 10;
  CHECK_INT_EQ(cf_pace_batch_target(at(s, 0.9), 32), 1);
  done(s);
}

static void test_info_throttle(cf_test *t) {
  cf_info_throttle th;
  cf_info_throttle_init(&th, 0);
  cf_search_info info = {.best = 7, .depth = 1, .seldepth = 2};
  CHECK(cf_info_throttle_due(&th, &info, 0.1));  /* a new best move */
  CHECK(!cf_info_throttle_due(&th, &info, 0.2)); /* nothing new */
  info.seldepth = 3;
  CHECK(cf_info_throttle_due(&th, &info, 0.3));
  info.depth = 2;
  CHECK(cf_info_throttle_due(&th, &info, 0.4));
  CHECK(!cf_info_throttle_due(&th, &info, 5.3));
  CHECK(cf_info_throttle_due(&th, &info, 5.4)); /* 5 s since the last line */
  CHECK(!cf_info_throttle_due(&th, &info, 5.5));
}

/* ---- the MinibatchSize each backend declares ------------------------------ */

static void test_every_backend_declares_a_minibatch(cf_test *t) {
  CHECK(cf_backend_count() > 0);
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    if (!CHECK(d->default_minibatch > 0)) fprintf(stderr, "  backend %s declares none\n", d->name);
    CHECK_INT_EQ(cf_search_default_minibatch(d->name), d->default_minibatch);
  }
  /* Today's values. */
  CHECK_INT_EQ(cf_search_default_minibatch("ref"), 8);
  if (cf_backend_find("onednn")) CHECK_INT_EQ(cf_search_default_minibatch("onednn"), 16);
  if (cf_backend_find("openblas")) CHECK_INT_EQ(cf_search_default_minibatch("openblas"), 16);
  if (cf_backend_find("cuda")) CHECK_INT_EQ(cf_search_default_minibatch("cuda"), 256);
  /* "auto", NULL and "" are the default backend (cuda's on a GPU machine). */
  const cf_backend_desc *d = cf_backend_default();
  if (!CHECK(d != NULL)) return;
  CHECK_INT_EQ(cf_search_default_minibatch("auto"), d->default_minibatch);
  CHECK_INT_EQ(cf_search_default_minibatch(NULL), d->default_minibatch);
  CHECK_INT_EQ(cf_search_default_minibatch(""), d->default_minibatch);
  /* A name no backend has: the CPU figure. */
  CHECK_INT_EQ(cf_search_default_minibatch("no-such-backend"), 32);
}

/* go nodes on a reused tree that already has them: no playout of this run,
 * so depth and seldepth are the kept tree's (Lc0 prints 0 there); with
 * playouts, this run's, as Lc0. */
static void test_reused_tree_depth(cf_test *t) {
  cf_search_limits lim = {.visits = 5};
  cf_search *s = bare(t, &lim, 2);
  if (!s) return;
  cf_snode *a = child(s, 0, 4), *b = child(s, 1, 1);
  if (CHECK(a && b && cf_node_alloc_edges(&s->pool, a, 1))) {
    a->edges[0] = (cf_sedge){.move = 1, .p = 1};
    cf_snode *c = cf_node_new(&s->pool, a, 0);
    if (CHECK(c && cf_node_alloc_edges(&s->pool, c, 1))) {
      c->proven = CF_UNPROVEN;
      c->n = 2;
      a->edges[0].child = c;
      c->edges[0] = (cf_sedge){.move = 1, .p = 1};
      cf_snode *d = cf_node_new(&s->pool, c, 0);
      if (CHECK(d != NULL)) {
        d->proven = CF_UNPROVEN;
        d->n = 1;
        c->edges[0].child = d;
        CHECK_INT_EQ(cf_search_stop_of(at(s, 0)), CF_STOP_VISITS); /* no playout needed */
        cf_search_info info;
        cf_search_fill_info(s, &info);
        /* nodes at depths 1, 1, 2, 3: (1 + 1 + 2 + 3) / 4 = 1 (truncated), deepest 3 */
        CHECK_INT_EQ(info.depth, 1);
        CHECK_INT_EQ(info.seldepth, 3);
        CHECK_INT_EQ(info.visits, 5);
        s->playouts = 2;
        s->cum_depth = 10;
        s->max_depth = 6;
        cf_search_fill_info(s, &info);
        CHECK_INT_EQ(info.depth, 5);
        CHECK_INT_EQ(info.seldepth, 6);
      }
    }
  }
  done(s);
}

CF_TEST_MAIN(test_stop_by_flag, test_stop_by_deadline, test_stop_by_visits, test_stop_by_depth,
             test_stop_by_ram, test_stop_by_smart_pruning, test_stop_by_mate,
             test_stop_by_proof, test_stop_rule_order,
             test_batch_target, test_info_throttle, test_every_backend_declares_a_minibatch,
             test_reused_tree_depth)
