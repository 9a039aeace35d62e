/* cf_search_gather.c: one step of the search. Walk from the root to leaves
 * by PUCT, marking each visit in flight on its path so the next walk of the
 * same batch is steered elsewhere, until the batch holds as many leaves for
 * the network as it wants (the way Lc0 gathers):
 *   - a leaf that ends the game, repeats inside the tree, or is in the NN
 *     cache is backed up on the spot, out of order: it takes no place in
 *     the batch (at most MaxOutOfOrderEvalsFactor of them per leaf wanted,
 *     so that a batch of them still ends). With OutOfOrderEval off it is
 *     backed up in order instead, as Lc0 does: it takes a place in the
 *     batch, keeps its visit in flight until the batch is backed up, and
 *     when the batch's first walk ends on one, the batch is that one alone;
 *   - a walk that ends on a leaf already waiting is a collision.
 * With fill_batches a collision stands for several visits: as many as its
 * path would take in a row before, at some node of it, the second best edge
 * passed the one taken (cf_search_select_run), no more than the collision
 * visits left to the batch. They are added in flight along the path, so the
 * next walks go where a new leaf is. The batch's collision visits are
 * bounded by a budget that grows with the tree (cf_search_collision_budget,
 * Lc0's MaxCollisionVisits scaling: 116 at 800 visits, 2819 at 10000 by
 * default), never below 3 per leaf wanted but with LcZeroGather
 * (cf_search_collisions.c); their events by MaxCollisionEvents.
 * A collision that spends the budget ends the batch: a line the search
 * favours is not traded for worse ones to fill it.
 * LcZeroGather turns fill_batches on.
 * Without fill_batches (the default for now, docs/SEARCH.md says why) each
 * collision is one visit left in flight, and at most the batch size of them
 * (or MaxCollisionEvents, if fewer) end the batch.
 * With LcZeroGather the batch then takes the positions MaxPrefetch adds
 * for the NN cache alone (cf_search_prefetch.c).
 * The leaves are evaluated together by one cf_net_eval call, expanded
 * (priors = softmax(logits / PolicyTemperature)) and backed up; then every
 * collision's visits are taken back. Nothing is allocated per batch. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cf_clock.h"
#include "engine/cf_net_input.h"
#include "engine/search/cf_search_internal.h"

/* DrawScore is from White's view (as Lc0's): a draw is worth it to White
 * and its negative to Black. */
float cf_search_draw_score(const cf_search *s, int depth) {
  const bool white_to_move = s->root_black == (depth % 2 == 1);
  return white_to_move ? s->params.draw_score : -s->params.draw_score;
}

/* A proven node's exact value replaces its running means (Lc0 does the
 * same), so its parent's Q of it is exact from now on. */
static void set_exact(cf_snode *x) {
  x->wl = x->proven == CF_UNPROVEN ? x->wl : (double)x->proven;
  x->d = x->proven == 0 ? 1.0f : 0.0f;
  /* A tablebase node's plies carry an offset for its score, not its length. */
  x->m = (float)(x->flags & CF_NODE_TABLEBASE ? x->proven_plies - CF_TB_PROOF_PLIES : x->proven_plies);
}

void cf_search_backup(cf_search *s, cf_snode *node, double wl, float d, float m) {
  for (cf_snode *x = node; x; x = x->parent) {
    if (x->in_flight > 0) x->in_flight--;
    x->n++;
    if (x->proven != CF_UNPROVEN && x != node) {
      /* An ancestor proven meanwhile keeps its exact value; what goes up
       * from here is that value. */
      wl = x->wl;
      d = x->d;
      m = x->m;
    } else {
      x->wl += (wl - x->wl) / x->n;
      x->d += (d - x->d) / (float)x->n;
      x->m += (m - x->m) / (float)x->n;
    }
    wl = -wl;
    m += 1.0f;
  }
  s->playouts++;
}

/* Carries a new proof from node up as far as it changes parents; not at
 * all without StickyEndgames (Lc0's): then only the leaves that end the
 * game are proven, and their parents learn of it by their visits. */
static void propagate_proof(const cf_search *s, cf_snode *node) {
  if (!s->params.sticky_endgames) return;
  for (cf_snode *x = node->parent; x; x = x->parent) {
    if (!cf_search_update_proof(x)) break;
    set_exact(x);
  }
}

/* Takes back the in-flight marks of a walk that ended at node. */
static void cancel_walk(cf_snode *node) {
  for (cf_snode *x = node; x; x = x->parent)
    if (x->in_flight > 0) x->in_flight--;
}

bool cf_search_classify_terminal(cf_search *s, cf_snode *x, int depth) {
  cf_game_reason reason;
  cf_game_result r = cf_game_outcome(s->game, &reason);
  if (r != CF_RESULT_ONGOING) {
    x->flags |= CF_NODE_TERMINAL;
    /* Decisive results are always a mate of the side to move here, so the
     * side that moved into x won. */
    x->proven = r == CF_RESULT_DRAW ? 0 : 1;
  } else if (s->params.two_fold_draws && cf_game_repetition_distance(s->game) > 0 &&
             cf_game_repetition_distance(s->game) <= depth) {
    x->flags |= CF_NODE_TWOFOLD;
    x->proven = 0;
  } else {
    return cf_search_tb_classify(s, x);
  }
  x->proven_plies = 0;
  x->v = (float)x->proven; /* its value is exact, not the network's */
  return true;
}

/* Gives x its edges and priors from logits of its legal moves. */
static bool expand(cf_search *s, cf_snode *x, int n, const cf_move *moves, const float *logits) {
  if (!cf_node_alloc_edges(&s->pool, x, n)) return false;
  float t = s->params.policy_temperature > 0 ? s->params.policy_temperature : 1.0f;
  float mx = -INFINITY;
  for (int i = 0; i < n; i++) mx = logits[i] > mx ? logits[i] : mx;
  double sum = 0;
  for (int i = 0; i < n; i++) {
    x->edges[i].move = moves[i];
    x->edges[i].p = expf((logits[i] - mx) / t);
    sum += x->edges[i].p;
  }
  for (int i = 0; i < n; i++) x->edges[i].p = (float)(x->edges[i].p / sum);
  if (x == s->root) cf_search_noise_root(s, false); /* Lc0 noises the root as it is expanded */
  return true;
}

/* A leaf answered without the network, with value (wl, d, m): backed up
 * now (OutOfOrderEval), else kept in b for the batch's backup
 * (cf_search_finish); `proof` when x was just proven. */
static void settle(cf_search *s, cf_batch *b, cf_snode *x, double wl, float d, float m, bool proof) {
  if (!s->params.out_of_order_eval) {
    b->settled[b->n_settled++] = (cf_settled){x, wl, d, m, proof};
    return;
  }
  cf_search_backup(s, x, wl, d, m);
  if (proof) propagate_proof(s, x);
}

/* With CacheHistoryLength 0 (Lc0's default) the key is the position alone
 * (its pieces, side, castling and en passant rights, and whether it
 * occurred before), as Lc0's classic search keys its cache: a
 * transposition shares the entry whatever its rule-50 count and earlier
 * positions. With more, that many earlier positions and the rule-50 count
 * too (what the network reads beyond that is left out). */
uint64_t cf_search_cache_key(const cf_game *g, int history_length, const cf_planes *input) {
  if (history_length >= CF_CACHE_KEY_INPUT && input)
    return cf_nn_hash(input, sizeof *input, cf_game_position(g)->key);
  const int last = g->count - 1, n = history_length + 1;
  uint64_t words[2 * 8 + 2];
  int k = 0;
  words[k++] = (uint64_t)n;
  for (int i = 0; i < n && i < 8 && last - i >= 0; i++) {
    words[k++] = g->plies[last - i].pos.key;
    words[k++] = (uint64_t)(g->plies[last - i].repetitions > 0);
  }
  if (history_length > 0) words[k++] = (uint64_t)cf_game_position(g)->rule50;
  return cf_nn_hash(words, (size_t)k * sizeof words[0], 0x6366636163686531ULL);
}

void cf_search_leaf_input(const cf_search *s, cf_snode *x, int depth, cf_leaf *leaf) {
  const cf_net_info *info = cf_net_get_info(s->net);
  const cf_position *pos = cf_game_position(s->game);
  cf_net_position np;
  cf_engine_net_position(s->game, info->input_format, &np);
  leaf->node = x;
  leaf->depth = depth;
  leaf->transform = cf_net_encode_planes(&np, info->history_fill, &leaf->planes);
  leaf->black_to_move = pos->side == CF_BLACK;
  leaf->n_moves = cf_engine_legal_policy_moves(pos, leaf->moves, leaf->policy_moves);
  leaf->key = cf_search_cache_key(s->game, s->params.cache_history_length, &leaf->planes);
}

/* Prepares a leaf's network input and legal moves; answers it from the
 * cache when it can (true). */
static bool prepare_leaf(cf_search *s, cf_batch *b, cf_snode *x, int depth, cf_leaf *leaf,
                         bool *nomem) {
  cf_search_leaf_input(s, x, depth, leaf);
  const cf_nn_entry *e = cf_nn_cache_get(s->cache, leaf->key);
  if (!e || e->n_moves != leaf->n_moves) return false;
  if (!expand(s, x, e->n_moves, leaf->moves, e->logits)) {
    *nomem = true;
    return false;
  }
  x->v = e->wl; /* the network's own value; the tree gets the rescaled one */
  s->cache_hits++;
  float wl = e->wl, d = e->d;
  cf_search_wdl_leaf(s, depth, &wl, &d);
  settle(s, b, x, wl, d, e->m, false);
  return true;
}

static void note_depth(cf_search *s, int depth) {
  s->cum_depth += depth;
  if (depth > s->max_depth) s->max_depth = depth;
}

/* With LcZeroGather, a walk that stood for more visits than the one it
 * ends with leaves the rest as a collision where it ended (Lc0's pick
 * sends them there at once), unless its visit was backed up out of order
 * (`settled`, OutOfOrderEval): Lc0 takes back a pick's collisions then. */
static void collide_after(const cf_search *s, cf_snode *x, uint32_t visits, bool settled,
                          cf_collision *coll) {
  if (s->params.lczero_gather && visits > 1 && !(settled && s->params.out_of_order_eval))
    *coll = cf_search_collide_after(x, visits - 1);
}

/* One walk from the root: it ended on a new leaf for the network
 * (leaves[*n_leaves] filled), was settled on the way, collided (*coll:
 * where, and the visits it stands for: with fill_batches the fewest its
 * path would take in a row, at most `limit`; those are in flight on the
 * path), or ran out of memory. A leaf or a settled walk may leave a
 * collision too (collide_after); coll->visits is 0 when there is none. */
static cf_walk_result walk(cf_search *s, cf_batch *b, int *n_leaves, uint32_t limit,
                           cf_collision *coll) {
  const bool fill = cf_search_fills_batches(&s->params);
  cf_snode *x = s->root;
  int depth = 0;
  cf_walk_result result = CF_WALK_SETTLED;
  uint32_t visits = limit > 0 ? limit : 1;
  *coll = (cf_collision){0};
  x->in_flight++;
  for (;;) {
    /* Already waiting in this batch: for the network, or (OutOfOrderEval
     * off) for its in-order backup. */
    if (x->n == 0 && x->in_flight > 1) {
      *coll = cf_search_collide(&s->params, x, fill ? visits : 1);
      result = CF_WALK_COLLISION;
      break;
    }
    if (x->proven != CF_UNPROVEN) { /* the game ends here, or it is solved */
      s->terminal_visits++;
      note_depth(s, depth);
      settle(s, b, x, x->wl, x->d, x->m, false);
      collide_after(s, x, visits, true, coll);
      break;
    }
    if (!x->edges) {
      if (x != s->root && cf_search_classify_terminal(s, x, depth)) {
        set_exact(x);
        s->terminal_visits++;
        note_depth(s, depth);
        settle(s, b, x, x->wl, x->d, x->m, true);
        collide_after(s, x, visits, true, coll);
        break;
      }
      bool nomem = false;
      cf_leaf *leaf = &b->leaves[*n_leaves];
      if (prepare_leaf(s, b, x, depth, leaf, &nomem)) {
        note_depth(s, depth);
        collide_after(s, x, visits, true, coll);
        break;
      }
      if (nomem) {
        cancel_walk(x);
        result = CF_WALK_NO_MEMORY;
        break;
      }
      note_depth(s, depth);
      (*n_leaves)++;
      result = CF_WALK_LEAF;
      collide_after(s, x, visits, false, coll);
      break;
    }
    const bool at_root = depth == 0;
    uint32_t run = UINT32_MAX;
    int i = cf_search_select_full(&s->params, x, cf_search_draw_score(s, depth),
                                  at_root ? s->limits->allowed : NULL,
                                  at_root ? s->limits->n_allowed : 0, s->moves_left, &run);
    if (i < 0) { /* no selectable move (cannot happen below the root) */
      *coll = (cf_collision){x, 1, x};
      result = CF_WALK_COLLISION;
      break;
    }
    if (run < visits) visits = run;
    cf_sedge *e = &x->edges[i];
    if (!e->child) {
      e->child = cf_node_new(&s->pool, x, i);
      if (!e->child) {
        cancel_walk(x);
        result = CF_WALK_NO_MEMORY;
        break;
      }
    }
    /* Edges come from the node's own legal moves. */
    if (cf_game_push_legal(s->game, e->move, NULL) != CF_OK) { /* the history cannot grow */
      cancel_walk(x);
      result = CF_WALK_NO_MEMORY;
      break;
    }
    x = e->child;
    x->in_flight++;
    depth++;
  }
  while (s->game->count - 1 > s->root_ply) cf_game_pop(s->game);
  return result;
}

int cf_search_gather(cf_search *s, cf_batch *b, int want, cf_error *err) {
  if (want > b->cap_leaves) want = b->cap_leaves;
  int max_collisions = cf_search_max_collisions(&s->params, want);
  if (max_collisions > b->cap_collided) max_collisions = b->cap_collided;
  const bool fill = cf_search_fills_batches(&s->params), in_order = !s->params.out_of_order_eval;
  /* Lc0's bound on out-of-order backups; in order, they fill the batch. */
  const long max_out_of_order =
      in_order ? LONG_MAX : lround(s->params.max_out_of_order_evals_factor * want);
  long collision_visits = cf_search_batch_collision_budget(s, want);
  int n_leaves = 0, n_coll = 0;
  long out_of_order = 0;
  cf_collision *coll = b->collided;
  int walks = 0, result = 0;
  b->n_leaves = b->n_coll = b->n_settled = b->n_prefetched = 0;
  while (n_leaves + b->n_settled < want && n_coll < max_collisions &&
         out_of_order < max_out_of_order) {
    /* In order, a batch whose first walks found nothing for the network
     * is backed up as it is (Lc0: a batch with work and no network work
     * goes at once). */
    if (in_order && b->n_settled > 0 && n_leaves == 0) break;
    /* Enough visits already started for a node limit (filling, collisions
     * are no visits: they only steer; otherwise they count while in flight;
     * the leaves of batches still in the network count either way). */
    const long visits = s->limits->visits;
    const long started = fill ? (long)s->root->n + s->pending_leaves + n_leaves + b->n_settled
                              : (long)(s->root->n + s->root->in_flight);
    if (visits > 0 && started >= visits) break;
    if (walks++ > 0 && s->root->proven != CF_UNPROVEN) break; /* solved: one visit is enough */
    /* A collision stands for no more visits than the budget has left, nor
     * than the leaves and out-of-order walks still to come (as Lc0's). */
    long limit = collision_visits;
    if (want - n_leaves - b->n_settled < limit) limit = want - n_leaves - b->n_settled;
    if (max_out_of_order - out_of_order < limit) limit = max_out_of_order - out_of_order;
    const cf_walk_result r = walk(s, b, &n_leaves, (uint32_t)limit, &coll[n_coll]);
    if (r == CF_WALK_NO_MEMORY) {
      cf_error_set(err, CF_ERR_NOMEM, "search: out of memory for the tree");
      result = -1;
      break;
    }
    if (r == CF_WALK_SETTLED && !in_order) out_of_order++;
    if (coll[n_coll].visits > 0) {
      const cf_collision *c = &coll[n_coll++];
      s->collisions++;
      s->collision_visits += c->visits;
      if (c->node == s->root) break; /* nothing left to gather below the root */
      if ((collision_visits -= c->visits) <= 0) break;
    }
  }
  b->n_leaves = n_leaves;
  b->n_coll = n_coll;
  if (result == 0) cf_search_prefetch(s, b);
  const int n_requests = n_leaves + b->n_prefetched;
  for (int i = 0; i < n_requests; i++) {
    cf_leaf *l = &b->leaves[i];
    b->requests[i] = (cf_net_request){.planes = &l->planes,
                                      .transform = l->transform,
                                      .black_to_move = l->black_to_move,
                                      .moves = l->policy_moves,
                                      .n_moves = l->n_moves};
    memset(&b->outputs[i], 0, sizeof b->outputs[i]);
    b->outputs[i].policy[CF_POLICY_VANILLA] = l->logits;
  }
  return result < 0 ? -1 : n_requests;
}

/* The network's answer for a leaf, from the view of the side that moved
 * into it (the net answers for the side to move there). */
static void leaf_value(const cf_net_output *o, float *wl, float *d, float *m) {
  *wl = o->wdl[2] - o->wdl[0];
  *d = o->wdl[1];
  *m = isnan(o->moves_left) ? 0.0f : o->moves_left;
}

cf_status cf_search_finish(cf_search *s, cf_batch *b, cf_status evaluated, cf_error *err) {
  cf_status st = evaluated;
  if (evaluated == CF_OK && b->n_leaves > 0) {
    s->evals += b->n_leaves;
    s->batches++;
    s->leaves_evaluated += b->n_leaves;
  }
  for (int i = 0; i < b->n_leaves; i++) {
    cf_leaf *l = &b->leaves[i];
    if (evaluated != CF_OK) {
      cancel_walk(l->node);
      continue;
    }
    float wl, d, m;
    leaf_value(&b->outputs[i], &wl, &d, &m);
    if (s->cache) cf_nn_cache_put(s->cache, l->key, wl, d, m, l->n_moves, l->logits);
    if (!expand(s, l->node, l->n_moves, l->moves, l->logits)) {
      cancel_walk(l->node);
      if (st == CF_OK) st = cf_error_set(err, CF_ERR_NOMEM, "search: out of memory for the tree");
      continue;
    }
    l->node->v = wl; /* the cache and V keep the network's value, as Lc0's do */
    cf_search_wdl_leaf(s, l->depth, &wl, &d);
    cf_search_backup(s, l->node, wl, d, m);
  }
  /* In-order settled leaves: their values need no network, so they are
   * backed up whether or not the pass succeeded. */
  for (int i = 0; i < b->n_settled; i++) {
    const cf_settled *z = &b->settled[i];
    cf_search_backup(s, z->node, z->wl, z->d, z->m);
    if (z->proof) propagate_proof(s, z->node);
  }
  /* Prefetched positions only fill the cache: no node, no visit. */
  for (int i = b->n_leaves; evaluated == CF_OK && i < b->n_leaves + b->n_prefetched; i++) {
    const cf_leaf *l = &b->leaves[i];
    float wl, d, m;
    leaf_value(&b->outputs[i], &wl, &d, &m);
    cf_nn_cache_put(s->cache, l->key, wl, d, m, l->n_moves, l->logits);
    s->prefetched++;
  }
  for (int i = 0; i < b->n_coll; i++) cf_search_cancel_collision(&b->collided[i]);
  b->n_leaves = b->n_coll = b->n_settled = b->n_prefetched = 0;
  return st;
}

cf_status cf_search_batch(cf_search *s, int want, cf_error *err) {
  cf_batch *b = &s->slots[0];
  const int n = cf_search_gather(s, b, want, err);
  if (n < 0) {
    cf_search_finish(s, b, CF_ERR_NOMEM, NULL);
    return CF_ERR_NOMEM;
  }
  const double cpu0 = cf_clock_thread_cpu();
  const cf_status st = n > 0 ? cf_net_eval(s->net, n, b->requests, b->outputs, err) : CF_OK;
  s->net_cpu += cf_clock_thread_cpu() - cpu0;
  return cf_search_finish(s, b, st, err);
}
