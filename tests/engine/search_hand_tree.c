/* search_hand_tree.c: the search tests' hand-built trees (search_hand_tree.h). */
#include "tests/engine/search_hand_tree.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chess/cf_movegen.h"
#include "engine/cf_engine_weights.h"

static cf_net *builtin_net(cf_test *t) {
  cf_engine_weights_spec spec = {.weights = CF_WEIGHTS_BUILT_IN, .net = {.max_batch = 32}};
  cf_net *net = NULL;
  cf_engine_weights_info info;
  cf_error err = {0};
  if (!CHECK(cf_engine_load_net(&spec, &net, &info, &err) == CF_OK)) fprintf(stderr, "%s\n", err.msg);
  return net;
}

/* Gives x an edge per legal move of the game's current position: the first
 * listed move gets prior `sharp` (0: all even), the others share the rest. x counts as
 * evaluated once, with value v (from the view of the side that moved into x). */
static bool expand_by_hand(cf_search *s, cf_snode *x, const cf_game *g, float sharp, float v) {
  cf_movelist legal;
  cf_generate_legal(cf_game_position(g), &legal);
  if (!cf_node_alloc_edges(&s->pool, x, legal.count)) return false;
  if (sharp <= 0) sharp = 1.0f / (float)legal.count; /* even */
  for (int i = 0; i < legal.count; i++) {
    const float rest = legal.count > 1 ? (1.0f - sharp) / (float)(legal.count - 1) : 0.0f;
    x->edges[i] = (cf_sedge){.move = legal.moves[i], .p = i == 0 ? sharp : rest};
  }
  x->n = 1;
  x->wl = v;
  x->v = v;
  return true;
}

/* A root over g's position, evaluated once with value root_v, priors
 * `sharp` on its first move; with `child_sharp` > 0, each child also
 * evaluated once (all at the same value, so the priors alone steer) with
 * priors of child_sharp on its first move. The root's mean follows from its
 * children's, as a backup would have made it. */
bool ht_hand_tree(cf_test *t, cf_search *s, cf_game *g, float sharp, float root_v,
                      float child_sharp) {
  cf_snode *root = cf_node_new(&s->pool, NULL, 0);
  if (!CHECK(root && expand_by_hand(s, root, g, sharp, root_v))) return false;
  s->root = root;
  s->start = g->plies[0].pos;
  s->n_moves = 0;
  if (child_sharp <= 0) return true;
  double sum = root->v;
  for (int i = 0; i < root->n_edges; i++) {
    cf_snode *c = cf_node_new(&s->pool, root, i);
    if (!CHECK(c != NULL)) return false;
    root->edges[i].child = c;
    if (!CHECK(cf_game_push(g, root->edges[i].move, NULL) == CF_OK)) return false;
    const bool ok = expand_by_hand(s, c, g, child_sharp, -root_v);
    cf_game_pop(g);
    if (!CHECK(ok)) return false;
    root->n += c->n;
    sum += -c->wl * c->n;
  }
  root->wl = sum / root->n;
  return true;
}

/* The counts and means of the subtree at x are what its visits add up to;
 * returns the nodes checked. */
int ht_check_exact(cf_test *t, const cf_snode *x) {
  int nodes = 1;
  CHECK_INT_EQ(x->in_flight, 0);
  if (x->flags & CF_NODE_TERMINAL) { /* every visit scored the same, exactly */
    CHECK(x->wl == x->v);
    return nodes;
  }
  uint32_t n = x->n > 0 && !isnan(x->v) ? 1 : 0;
  double sum = n ? x->v : 0;
  for (int i = 0; i < x->n_edges; i++) {
    const cf_snode *c = x->edges[i].child;
    if (!c || c->n == 0) continue;
    n += c->n;
    sum += -c->wl * c->n;
    nodes += ht_check_exact(t, c);
  }
  CHECK_INT_EQ(x->n, n);
  if (x->n > 0 && x->proven == CF_UNPROVEN) CHECK_NEAR(x->wl, sum / x->n, 1e-9);
  return nodes;
}

/* Sets up s to gather on g without a run around it (the run's stop rules
 * would otherwise choose the batch). */
void ht_begin(cf_search *s, cf_net *net, cf_game *g, cf_search_limits *lim) {
  s->net = net;
  s->game = g;
  s->limits = lim;
  s->root_ply = g->count - 1;
  s->root_black = cf_game_position(g)->side == CF_BLACK;
}

static cf_search *new_search(cf_test *t, long cache) {
  cf_search_params p;
  cf_search_params_default(&p);
  p.nn_cache_size = cache;
  p.minibatch_size = 32;
  p.smart_pruning_factor = 0;
  p.fill_batches = true;
  cf_search *s = NULL;
  if (!CHECK(cf_search_create(&p, &s, NULL) == CF_OK)) return NULL;
  return s;
}

/* A run of one node limit on a position, so that the search owns its
 * batch buffers and cache; the tree is then replaced by a hand-built one. */
static bool warm(cf_test *t, cf_search *s, cf_net *net, cf_game *g) {
  cf_search_limits lim = {.visits = 1};
  cf_search_result r;
  if (!CHECK(cf_search_run(s, net, g, &lim, NULL, NULL, &r, NULL) == CF_OK)) return false;
  cf_node_free_subtree(&s->pool, s->root);
  s->root = NULL;
  return true;
}


bool ht_setup(cf_test *t, ht_fixture *fx, long cache, const char *fen) {
  *fx = (ht_fixture){.net = builtin_net(t), .s = new_search(t, cache)};
  if (!fx->net || !fx->s) return false;
  fx->game = CHECK(cf_game_init_fen(&fx->g, fen, NULL) == CF_OK);
  return fx->game && warm(t, fx->s, fx->net, &fx->g);
}

void ht_teardown(ht_fixture *fx) {
  if (fx->game) cf_game_free(&fx->g);
  if (fx->s) fx->s->limits = NULL;
  cf_search_free(fx->s);
  cf_net_free(fx->net);
}

