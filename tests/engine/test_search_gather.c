/* test_search_gather.c: how the search fills a batch (fill_batches), on
 * trees built by hand over real positions and evaluated by the built-in
 * network:
 *   - a full batch where collisions happen (each stands for the visits its
 *     path would take in a row, which steers the next walks elsewhere);
 *   - under a sharp prior, the batch ends when its collision visits reach
 *     the budget, exactly; MaxCollisionEvents caps the events; without
 *     fill_batches a collision is one visit;
 *   - leaves the NN cache knows and positions that end the game are backed
 *     up out of order and take no place in the batch;
 *   - with LcZeroGather a walk's visits past its new leaf stay there as a
 *     collision, in flight above the leaf only (Lc0's);
 *   - afterwards every count and value is exact: each node's visits are
 *     one plus its children's, its mean is its own value and its
 *     children's (sign-flipped) averaged over those visits, nothing is left
 *     in flight. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chess/cf_fen.h"
#include "chess/cf_movegen.h"
#include "engine/cf_engine_weights.h"
#include "engine/uci/cf_uci_options.h"
#include "engine/search/cf_search_internal.h"
#include "tests/cf_test.h"

#include "tests/engine/search_hand_tree.h"

/* Start position, priors of 0.5 on one move at both plies: collisions
 * (each standing for the visits its path would take in a row) steer the
 * next walks elsewhere, and a batch of 32 is full, in one network call. */
static void test_full_batch_with_collisions(cf_test *t) {
  ht_fixture fx;
  cf_search *s = NULL;
  if (ht_setup(t, &fx, 0, CF_FEN_STARTPOS) && ht_hand_tree(t, (s = fx.s), &fx.g, 0.5f, 0.1f, 0.5f)) {
    const uint32_t before = s->root->n;
    cf_search_limits lim = {0};
    ht_begin(s, fx.net, &fx.g, &lim);
    const long leaves = s->leaves_evaluated, batches = s->batches, coll = s->collisions;
    const long cv = s->collision_visits;
    CHECK(cf_search_batch(s, 32, NULL) == CF_OK);
    CHECK_INT_EQ(s->leaves_evaluated - leaves, 32);
    CHECK_INT_EQ(s->batches - batches, 1);
    CHECK(s->collisions > coll); /* the prior did collide */
    CHECK(s->collision_visits - cv > s->collisions - coll); /* some collision stood for more than one visit */
    CHECK(s->collision_visits - cv <= 3 * 32); /* within the budget */
    CHECK_INT_EQ(s->root->n, before + 32);
    CHECK(ht_check_exact(t, s->root) > 1 + 20); /* grandchildren were reached and checked */
    /* A second batch fills too, and the game is back at the root. */
    CHECK(cf_search_batch(s, 32, NULL) == CF_OK);
    CHECK_INT_EQ(s->root->n, before + 64);
    CHECK_INT_EQ(fx.g.count, 1);
    ht_check_exact(t, s->root);
  }
  ht_teardown(&fx);
}

/* One batch of 32 on the start position with priors of 0.9 then 0.95 on
 * one move, where one visit after another PUCT would send hundreds of
 * visits to the first leaf, which is waiting; MaxCollisionEvents (0: its
 * default) and
 * fill_batches as given. Checks that the root gained a visit per leaf and
 * that every count and value is exact; returns the leaves evaluated (-1 if
 * the tree could not be built) and the batch's collision events and visits. */
static long sharp_batch(cf_test *t, int max_collisions, bool fill, long *events, long *visits) {
  ht_fixture fx;
  cf_search *s = NULL;
  long got = -1;
  if (ht_setup(t, &fx, 0, CF_FEN_STARTPOS) && ht_hand_tree(t, (s = fx.s), &fx.g, 0.9f, 0.1f, 0.95f)) {
    if (max_collisions > 0) s->params.max_collision_events = max_collisions;
    s->params.fill_batches = fill;
    const uint32_t before = s->root->n;
    cf_search_limits lim = {0};
    ht_begin(s, fx.net, &fx.g, &lim);
    const long leaves = s->leaves_evaluated, coll = s->collisions, cv = s->collision_visits;
    CHECK(cf_search_batch(s, 32, NULL) == CF_OK);
    got = s->leaves_evaluated - leaves;
    *events = s->collisions - coll;
    *visits = s->collision_visits - cv;
    CHECK_INT_EQ(s->root->n, before + (uint32_t)got);
    ht_check_exact(t, s->root);
  }
  ht_teardown(&fx);
  return got;
}

/* Each collision stands for as many visits as the budget has left, and the
 * batch ends when the budget (three visits per leaf wanted on a tree this
 * small) is spent, exactly. */
static void test_sharp_prior_spends_the_budget(cf_test *t) {
  long events = 0, visits = 0;
  const long got = sharp_batch(t, 0, true, &events, &visits);
  CHECK(got >= 1);
  CHECK(got < 32);
  CHECK_INT_EQ(visits, 3 * 32);
  CHECK(events < 3 * 32); /* fewer events than visits */
}

/* MaxCollisionEvents caps the events: the first collision ends the batch. */
static void test_collision_events_cap(cf_test *t) {
  long events = 0, visits = 0;
  const long got = sharp_batch(t, 1, true, &events, &visits);
  CHECK_INT_EQ(events, 1);
  CHECK(got >= 1);
  CHECK(got < 32);
}

/* Without fill_batches (single-visit collisions, at most the batch size of
 * them) the sharp prior ends the batch part empty too, after 32 events of
 * one visit each. */
static void test_single_visit_collisions_stop_short(cf_test *t) {
  long events = 0, visits = 0;
  const long got = sharp_batch(t, 0, false, &events, &visits);
  CHECK(got >= 1);
  CHECK(got < 32);
  CHECK_INT_EQ(events, 32);
  CHECK_INT_EQ(visits, 32);
}

/* The NN cache answers the leaves one batch evaluated: the same walks on
 * the same tree meet them again and back them up at once, without the
 * network: the batch's one network call holds only new leaves, and the
 * root has a visit for each of them and each cache hit. */
static void test_cached_leaves_out_of_order(cf_test *t) {
  ht_fixture fx;
  cf_search *s = NULL;
  if (ht_setup(t, &fx, 100000, CF_FEN_STARTPOS) && ht_hand_tree(t, (s = fx.s), &fx.g, 0.5f, 0.1f, 0.5f)) {
    cf_search_limits lim = {0};
    ht_begin(s, fx.net, &fx.g, &lim);
    CHECK(cf_search_batch(s, 16, NULL) == CF_OK);
    CHECK_INT_EQ(s->cache_hits, 0);
    /* The same tree again: its 16 leaves are cached now. */
    cf_node_free_subtree(&s->pool, s->root);
    s->root = NULL;
    if (ht_hand_tree(t, s, &fx.g, 0.5f, 0.1f, 0.5f)) {
      const uint32_t before = s->root->n;
      const long leaves = s->leaves_evaluated, batches = s->batches;
      CHECK(cf_search_batch(s, 16, NULL) == CF_OK);
      const long got = s->leaves_evaluated - leaves;
      CHECK(got >= 1);
      CHECK(got <= 16);
      CHECK_INT_EQ(s->batches - batches, 1);
      CHECK(s->cache_hits >= 1);
      CHECK(s->cache_hits <= 16);
      CHECK_INT_EQ(s->root->n, before + (uint32_t)got + (uint32_t)s->cache_hits);
      ht_check_exact(t, s->root);
    }
  }
  ht_teardown(&fx);
}

/* Black's king on a8 against a queen on c7: every king move and some queen
 * moves stalemate. Those walks end on a drawn position, are scored exactly
 * (0) on the spot and take no place in the batch. (Even priors, and a root
 * good for White, so the draws do not draw every walk.) */
static void test_terminal_leaves_out_of_order(cf_test *t) {
  ht_fixture fx;
  cf_search *s = NULL;
  if (ht_setup(t, &fx, 0, "k7/2Q5/8/8/8/8/8/6K1 w - - 0 1") &&
      ht_hand_tree(t, (s = fx.s), &fx.g, 0, -0.5f, 0)) {
    const uint32_t before = s->root->n;
    cf_search_limits lim = {0};
    ht_begin(s, fx.net, &fx.g, &lim);
    const long leaves = s->leaves_evaluated, batches = s->batches, terminal = s->terminal_visits;
    CHECK(cf_search_batch(s, 8, NULL) == CF_OK);
    CHECK(s->terminal_visits - terminal >= 1);
    CHECK_INT_EQ(s->leaves_evaluated - leaves, 8);
    CHECK_INT_EQ(s->batches - batches, 1);
    CHECK_INT_EQ(s->root->n, before + 8 + (uint32_t)(s->terminal_visits - terminal));
    /* Each stalemate child: a draw, exactly. */
    int draws = 0;
    double sum = s->root->v;
    for (int i = 0; i < s->root->n_edges; i++) {
      const cf_snode *c = s->root->edges[i].child;
      if (!c || !c->n) continue;
      sum += -c->wl * c->n;
      if (c->flags & CF_NODE_TERMINAL) {
        draws++;
        CHECK(c->proven == 0 && c->wl == 0.0 && c->d == 1.0f);
      }
    }
    CHECK(draws >= 1);
    CHECK_NEAR(s->root->wl, sum / s->root->n, 1e-12);
    ht_check_exact(t, s->root);
  }
  ht_teardown(&fx);
}


/* OutOfOrderEval off (Lc0's in-order backups), on the stalemate position
 * above: a walk that ends on a stalemate takes a place in the batch and
 * waits, its visit in flight, for the batch's backup; then every count is
 * exact. */
static void test_terminal_leaves_in_order(cf_test *t) {
  ht_fixture fx;
  cf_search *s = NULL;
  if (ht_setup(t, &fx, 0, "k7/2Q5/8/8/8/8/8/6K1 w - - 0 1") &&
      ht_hand_tree(t, (s = fx.s), &fx.g, 0, -0.5f, 0)) {
    s->params.out_of_order_eval = false;
    const uint32_t before = s->root->n;
    cf_search_limits lim = {0};
    ht_begin(s, fx.net, &fx.g, &lim);
    cf_batch *b = &s->slots[0];
    const long terminal = s->terminal_visits;
    const int n = cf_search_gather(s, b, 8, NULL);
    CHECK(n >= 0);
    CHECK(b->n_settled >= 1);
    CHECK(n + b->n_settled <= 8); /* the settled leaves take places */
    CHECK_INT_EQ(s->terminal_visits - terminal, b->n_settled);
    CHECK_INT_EQ(s->root->n, before); /* nothing backed up yet */
    for (int i = 0; i < b->n_settled; i++) {
      CHECK_INT_EQ(b->settled[i].node->n, 0);
      CHECK(b->settled[i].node->in_flight >= 1);
    }
    const int settled = b->n_settled;
    const cf_status st = n > 0 ? cf_net_eval(s->net, n, b->requests, b->outputs, NULL) : CF_OK;
    CHECK(cf_search_finish(s, b, st, NULL) == CF_OK);
    CHECK_INT_EQ(s->root->n, before + (uint32_t)n + (uint32_t)settled);
    ht_check_exact(t, s->root);
  }
  ht_teardown(&fx);
}

/* MaxOutOfOrderEvalsFactor bounds a batch's out-of-order backups: at 0.25
 * a batch of 8 makes at most 2 (then ends). */
static void test_out_of_order_bound(cf_test *t) {
  ht_fixture fx;
  cf_search *s = NULL;
  if (ht_setup(t, &fx, 0, "k7/2Q5/8/8/8/8/8/6K1 w - - 0 1") &&
      ht_hand_tree(t, (s = fx.s), &fx.g, 0, -0.5f, 0)) {
    /* Every root move's walk settles: a proven draw at each child. */
    for (int i = 0; i < s->root->n_edges; i++) {
      cf_snode *c = cf_node_new(&s->pool, s->root, i);
      if (!CHECK(c != NULL)) break;
      s->root->edges[i].child = c;
      c->proven = 0;
      c->flags = CF_NODE_TERMINAL;
      c->d = 1.0f;
      c->n = 1;
      s->root->n++;
    }
    s->root->wl = s->root->v / s->root->n;
    s->params.max_out_of_order_evals_factor = 0.25f;
    cf_search_limits lim = {0};
    ht_begin(s, fx.net, &fx.g, &lim);
    const long terminal = s->terminal_visits;
    CHECK(cf_search_batch(s, 8, NULL) == CF_OK);
    CHECK_INT_EQ(s->terminal_visits - terminal, 2);
  }
  ht_teardown(&fx);
}

/* LcZeroGather's collisions, as Lc0's pick makes them, on the sharp tree
 * (priors 0.9 then 0.95) with MaxCollisionVisits 10 from the first visit
 * (ScalingEnd 0): the first walk stands for all 10 visits; it ends on a
 * new leaf, which takes one, and leaves the other 9 there as a collision
 * whose visits are in flight from the leaf's parent up, not on the leaf
 * (it counts its own visit only). After the batch nothing is in flight
 * and every count is exact. Without LcZeroGather (fill_batches) the walk
 * leaves no collision. */
static void test_lczero_collisions(cf_test *t) {
  for (int lczero = 1; lczero >= 0; lczero--) {
    ht_fixture fx;
    cf_search *s = NULL;
    if (ht_setup(t, &fx, 0, CF_FEN_STARTPOS) && ht_hand_tree(t, (s = fx.s), &fx.g, 0.9f, 0.1f, 0.95f)) {
      s->params.lczero_gather = lczero;
      s->params.max_collision_visits = 10;
      s->params.max_collision_visits_scaling_end = 0;
      const uint32_t before = s->root->n;
      cf_search_limits lim = {0};
      ht_begin(s, fx.net, &fx.g, &lim);
      cf_batch *b = &s->slots[0];
      const int n = cf_search_gather(s, b, 32, NULL);
      CHECK(n >= 1);
      const cf_snode *leaf = b->leaves[0].node;
      if (lczero) {
        CHECK(b->n_coll >= 1);
        CHECK(b->collided[0].node == leaf);
        CHECK_INT_EQ(b->collided[0].visits, 9);
        CHECK(b->collided[0].marked == leaf->parent);
        CHECK_INT_EQ(leaf->in_flight, 1);
        CHECK(leaf->parent->in_flight >= 10); /* and later walks through it */
        for (int i = 0; i < b->n_coll; i++) CHECK_INT_EQ(b->collided[i].node->in_flight, 1);
      } else {
        CHECK(b->n_coll == 0 || b->collided[0].node != leaf || b->collided[0].marked == leaf);
      }
      const cf_status st = cf_net_eval(s->net, n, b->requests, b->outputs, NULL);
      CHECK(cf_search_finish(s, b, st, NULL) == CF_OK);
      CHECK_INT_EQ(s->root->n, before + (uint32_t)n);
      ht_check_exact(t, s->root);
    }
    ht_teardown(&fx);
  }
}

CF_TEST_MAIN(test_full_batch_with_collisions, test_sharp_prior_spends_the_budget,
             test_collision_events_cap, test_single_visit_collisions_stop_short,
             test_cached_leaves_out_of_order,
             test_terminal_leaves_out_of_order, test_terminal_leaves_in_order,
             test_out_of_order_bound, test_lczero_collisions)
