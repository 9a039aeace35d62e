/* cf_search_prefetch.c: MaxPrefetch, Lc0's prefetch into the NN cache.
 * When a batch has leaves for the network but fewer than MaxPrefetch, the
 * rest of MaxPrefetch goes to positions the search is likely to reach
 * soon, evaluated with the batch for the cache alone: no node is made and
 * no visit counted. When a later walk reaches one, the cache answers it and
 * it is backed up out of order (cf_search_gather.c), taking no place in
 * its batch: this is all prefetching changes in the tree, and what makes
 * Lc0's batches with it differ from batches without.
 *
 * Which positions, as Lc0's classic search picks them: from the root down,
 * a node's children in order of Q + U (no moves-left utility; searchmoves
 * not applied) each get a share of the node's budget, the visits it would
 * take before the next child's Q + U passed it, and the last child the
 * share of the one before it; a share is spent below the child. A position
 * not yet visited costs one, whether the cache already held it (then it is
 * not evaluated again) or not. Nodes waiting in a batch and proven nodes
 * are skipped.
 *
 * Only with LcZeroGather. cformer's own gather fills its batches with
 * collisions instead (docs/SEARCH.md), and what prefetch would add to it
 * is not measured, so without LcZeroGather MaxPrefetch has no effect and
 * the default search's batches are what they were. Nor without an NN
 * cache (NNCacheSize 0): the answers would go nowhere. */
#include <math.h>
#include <stdatomic.h>

#include "engine/search/cf_search_internal.h"

static bool prefetches(const cf_search_params *p) { return p->lczero_gather && p->max_prefetch > 0; }

int cf_search_batch_room(const cf_search_params *p, int minibatch) {
  /* Lc0's last child may be given more than the budget has left (the
   * share of the one before it), so a batch can pass MaxPrefetch a little:
   * room for its leaves and a whole MaxPrefetch besides. */
  return prefetches(p) ? minibatch + p->max_prefetch : minibatch;
}

typedef struct prefetch_walk {
  cf_search *s;
  cf_batch *b;
} prefetch_walk;

static bool stopped(const cf_search *s) {
  return s->limits && s->limits->stop && atomic_load(s->limits->stop);
}

static uint32_t started_visits(const cf_snode *c) { return c ? c->n + c->in_flight : 0; }

/* A node's children in the order prefetch spends on them. */
typedef struct edge_order {
  float puct_mult, fpu, draw_score;
} edge_order;

static float edge_score(const edge_order *o, const cf_sedge *e) {
  return o->puct_mult * e->p / (1.0f + (float)started_visits(e->child)) +
         cf_search_edge_q(e, o->fpu, o->draw_score);
}

/* The child after (score, index) in descending score, ties by index (Lc0
 * sorts with std::partial_sort, whose order among ties is its own); -1
 * after the last. Children of prior 0 are left out, as in Lc0. Scanning
 * again for each child keeps no list: prefetch changes no score. */
static int next_edge(const edge_order *o, const cf_snode *x, float score, int index,
                     float *next_score) {
  int best = -1;
  float best_score = -INFINITY;
  for (int i = 0; i < x->n_edges; i++) {
    if (x->edges[i].p == 0.0f) continue;
    const float v = edge_score(o, &x->edges[i]);
    const bool after = v < score || (v == score && i > index);
    if (after && (best < 0 || v > best_score)) {
      best = i;
      best_score = v;
    }
  }
  *next_score = best_score;
  return best;
}

/* A child's share: int(P * puct_mult / (next - q) - started) + 1, at most
 * the budget; x is what int() reads, truncated toward zero as there. */
static int share_of(float x, int budget) {
  if (!(x < (float)budget)) return budget;
  return (int)fmaxf(x, -1e9f) + 1;
}

/* The current position of the game, not yet visited: 1, and into the
 * batch unless the cache has it (or the batch has no room left). */
static int prefetch_position(prefetch_walk *w, int depth) {
  cf_batch *b = w->b;
  const int at = b->n_leaves + b->n_prefetched;
  if (at >= b->cap_leaves) return 0;
  cf_leaf *leaf = &b->leaves[at];
  cf_search_leaf_input(w->s, NULL, depth, leaf);
  if (!cf_nn_cache_get(w->s->cache, leaf->key)) b->n_prefetched++;
  return 1;
}

/* Spends up to about `budget` below x (NULL: an edge never walked), the
 * game at x's position, `depth` plies below the root; returns what it
 * spent. */
static int prefetch_below(prefetch_walk *w, const cf_snode *x, int budget, int depth) {
  cf_search *s = w->s;
  if (budget <= 0) return 0;
  if (started_visits(x) == 0) return prefetch_position(w, depth);
  if (x->n == 0 || x->proven != CF_UNPROVEN || !x->edges) return 0; /* waiting, or proven */
  const uint32_t children_visits = x->n - 1;
  edge_order o = {.draw_score = cf_search_draw_score(s, depth)};
  o.fpu = cf_search_fpu(&s->params, x, o.draw_score);
  o.puct_mult = cf_search_cpuct(&s->params, x->n, !x->parent) *
                sqrtf((float)(children_visits > 1 ? children_visits : 1));
  int spent = 0, share = budget;
  float score = INFINITY, next_score;
  int i = next_edge(&o, x, score, -1, &score);
  while (i >= 0 && budget > 0 && !stopped(s)) {
    const cf_sedge *e = &x->edges[i];
    const int next = next_edge(&o, x, score, i, &next_score);
    if (next >= 0) {
      /* Lc0 reads an unvisited child's Q here as minus the FPU. */
      const float q = cf_search_edge_q(e, -o.fpu, o.draw_score);
      share = next_score > q ? share_of(e->p * o.puct_mult / (next_score - q) -
                                            (float)started_visits(e->child),
                                        budget)
                             : budget;
    }
    if (cf_game_push_legal(s->game, e->move, NULL) == CF_OK) {
      const int got = prefetch_below(w, e->child, share, depth + 1);
      cf_game_pop(s->game);
      budget -= got;
      spent += got;
    }
    i = next;
    score = next_score;
  }
  return spent;
}

void cf_search_prefetch(cf_search *s, cf_batch *b) {
  const int used = b->n_leaves;
  if (!prefetches(&s->params) || !s->cache || used == 0 || used >= s->params.max_prefetch ||
      stopped(s))
    return;
  prefetch_walk w = {s, b};
  prefetch_below(&w, s->root, s->params.max_prefetch - used, 0);
}
