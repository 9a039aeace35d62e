/* search_hand_tree.h: trees built by hand over real positions, evaluated
 * by the built-in network, for the tests of how the search gathers a
 * batch (test_search_gather.c) and what it prefetches
 * (test_search_prefetch.c). */
#ifndef SEARCH_HAND_TREE_H
#define SEARCH_HAND_TREE_H

#include "engine/search/cf_search_internal.h"
#include "tests/cf_test.h"

/* A network, a search (NN cache of `cache` entries) and a game at fen,
 * warmed up (warm) and ready for a hand-built tree. */
typedef struct ht_fixture {
  cf_net *net;
  cf_search *s;
  cf_game g;
  bool game;
  cf_search_limits lim; /* none: what ht_begin may be given */
} ht_fixture;

/* Sets up fx: the built-in net, a search with an NN cache of `cache`
 * entries (MinibatchSize 32, fill_batches, no smart pruning) and a game
 * at fen, after a one-visit run there (so the search owns its buffers and
 * cache) whose tree is dropped for a hand-built one. */
bool ht_setup(cf_test *t, ht_fixture *fx, long cache, const char *fen);
void ht_teardown(ht_fixture *fx);
/* A root over g's position, evaluated once with value root_v, priors
 * `sharp` on its first move (0: all even); with `child_sharp` > 0, each
 * child also evaluated once (all at the same value, so the priors alone
 * steer) with priors of child_sharp on its first move. */
bool ht_hand_tree(cf_test *t, cf_search *s, cf_game *g, float sharp, float root_v,
                  float child_sharp);
/* Sets up s to gather on g without a run around it (the run's stop rules
 * would otherwise choose the batch). */
void ht_begin(cf_search *s, cf_net *net, cf_game *g, cf_search_limits *lim);
/* Checks that the counts and means of the subtree at x are what its
 * visits add up to, nothing left in flight; returns the nodes checked. */
int ht_check_exact(cf_test *t, const cf_snode *x);

#endif /* SEARCH_HAND_TREE_H */
