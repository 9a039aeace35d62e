/* cf_search_gather.c: one step of the search. Walk from the root to leaves
 * by PUCT, marking each visit in flight on its path so the next walk of the
 * same batch is steered elsewhere, until the batch holds as many leaves for
 * the network as it wants (the way Lc0 gathers):
 *   - a leaf that ends the game, repeats inside the tree, or is in the NN
 *     cache is backed up on the spot, out of order: it takes no place in
 *     the batch (at most OUT_OF_ORDER_PER_LEAF of them per leaf wanted, so
 *     that a batch of them still ends);
 *   - a walk that ends on a leaf already waiting is a collision. It is
 *     taken back; the leaf is blocked for the rest of the batch, and its
 *     ancestors are marked with the visits their path would take in a row
 *     before a sibling overtook it (cf_search_edge_run; at a node, no more
 *     than at any node below it): visits that could only collide again. So
 *     one collision steers the next walks to where a new leaf is, where a
 *     walk per visit would need hundreds under a sharp prior. A node whose
 *     children are all blocked is blocked in turn; a line whose Q alone
 *     outweighs its rivals' still draws the walks, which collide there
 *     until the collision events (cf_search_max_collisions) end the batch:
 *     a line the search favours is not traded for worse ones to fill it.
 *     The marks go when the batch ends.
 * Without fill_batches (the default for now) a collision is the walk left
 * in flight until the batch ends, and at most max_collisions of them (the
 * batch size) end it: Lc0's early way, which leaves small trees' batches
 * part empty (docs/SEARCH.md says why it is still the default).
 * The leaves are evaluated together by one cf_net_eval call, expanded
 * (priors = softmax(logits / PolicyTemperature)) and backed up. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cf_net_input.h"
#include "engine/search/cf_search_internal.h"

/* Collision events one batch may have, per leaf it wants (Lc0 allows 917
 * events a batch; a multi-visit collision makes each one count). */
#define COLLISIONS_PER_LEAF 2
/* Leaves backed up out of order (terminal, repeated, cached) one batch may
 * take, per leaf it wants (Lc0's MaxOutOfOrderEvalsFactor is 2.4). */
#define OUT_OF_ORDER_PER_LEAF 3

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

/* Carries a new proof from node up as far as it changes parents. */
static void propagate_proof(cf_snode *node) {
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

/* Marks x, where a walk collided (a leaf waiting for the network, or a
 * node whose children are all blocked), `depth` plies below the root: x is
 * blocked for the rest of the batch, and each ancestor is marked with the
 * visits its path would take in a row before a sibling overtook it, at its
 * level or any level below (cf_search_edge_run, taken before the level
 * below is marked). An ancestor whose every other child is blocked is
 * blocked too. */
static void mark_collision(cf_search *s, cf_snode *x, int depth) {
  uint32_t visits = CF_COLLISION_BLOCKED;
  for (cf_snode *c = x; c->parent; c = c->parent, depth--) {
    const cf_snode *p = c->parent;
    const bool at_root = p == s->root;
    const uint32_t run = cf_search_edge_run(&s->params, p, c->edge_index,
                                            cf_search_draw_score(s, depth - 1),
                                            at_root ? s->limits->allowed : NULL,
                                            at_root ? s->limits->n_allowed : 0);
    const uint32_t marked = c->collision_visits + visits;
    c->collision_visits = marked < CF_COLLISION_BLOCKED ? marked : CF_COLLISION_BLOCKED;
    if (run < visits) visits = run;
  }
  if (!x->parent) x->collision_visits = CF_COLLISION_BLOCKED; /* the root: nothing left */
}

/* Takes back the marks of a collision at leaf. */
static void clear_collision(cf_snode *leaf) {
  for (cf_snode *x = leaf; x; x = x->parent) x->collision_visits = 0;
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
  return true;
}

/* Prepares a leaf's network input and legal moves; answers it from the
 * cache when it can (true). */
static bool prepare_leaf(cf_search *s, cf_snode *x, int depth, cf_leaf *leaf, bool *nomem) {
  const cf_net_info *info = cf_net_get_info(s->net);
  const cf_position *pos = cf_game_position(s->game);
  cf_net_position np;
  cf_engine_net_position(s->game, info->input_format, &np);
  leaf->node = x;
  leaf->depth = depth;
  leaf->transform = cf_net_encode_planes(&np, info->history_fill, &leaf->planes);
  leaf->black_to_move = pos->side == CF_BLACK;
  leaf->n_moves = cf_engine_legal_policy_moves(pos, leaf->moves, leaf->policy_moves);
  leaf->key = cf_nn_hash(&leaf->planes, sizeof leaf->planes, pos->key);
  const cf_nn_entry *e = cf_nn_cache_get(s->cache, leaf->key);
  if (!e || e->n_moves != leaf->n_moves) return false;
  if (!expand(s, x, e->n_moves, leaf->moves, e->logits)) {
    *nomem = true;
    return false;
  }
  x->v = e->wl;
  s->cache_hits++;
  cf_search_backup(s, x, e->wl, e->d, e->m);
  return true;
}

static void note_depth(cf_search *s, int depth) {
  s->cum_depth += depth;
  if (depth > s->max_depth) s->max_depth = depth;
}

/* One walk from the root. Returns 1 when it ended on a new leaf for the
 * network (leaves[*n_leaves] filled), 0 when it was settled on the way, -1
 * on a collision at *collided (the walk taken back, the path marked), -2
 * out of memory. */
static int walk(cf_search *s, int *n_leaves, cf_snode **collided) {
  cf_snode *x = s->root;
  int depth = 0, result = 0;
  x->in_flight++;
  for (;;) {
    if (x->proven != CF_UNPROVEN) { /* the game ends here, or it is solved */
      s->terminal_visits++;
      note_depth(s, depth);
      cf_search_backup(s, x, x->wl, x->d, x->m);
      break;
    }
    if (!x->edges) {
      if (x->in_flight > 1) { /* already waiting for the network in this batch */
        if (s->params.fill_batches) {
          cancel_walk(x);
          mark_collision(s, x, depth);
        } /* else the walk stays in flight until the batch ends */
        *collided = x;
        result = -1;
        break;
      }
      if (x != s->root && cf_search_classify_terminal(s, x, depth)) {
        set_exact(x);
        s->terminal_visits++;
        note_depth(s, depth);
        cf_search_backup(s, x, x->wl, x->d, x->m);
        propagate_proof(x);
        break;
      }
      bool nomem = false;
      cf_leaf *leaf = &s->leaves[*n_leaves];
      if (prepare_leaf(s, x, depth, leaf, &nomem)) {
        note_depth(s, depth);
        break;
      }
      if (nomem) {
        cancel_walk(x);
        result = -2;
        break;
      }
      note_depth(s, depth);
      (*n_leaves)++;
      result = 1;
      break;
    }
    const bool at_root = depth == 0;
    int i = cf_search_select(&s->params, x, cf_search_draw_score(s, depth),
                             at_root ? s->limits->allowed : NULL, at_root ? s->limits->n_allowed : 0);
    if (i < 0) { /* no selectable move (cannot happen below the root) */
      if (s->params.fill_batches) {
        cancel_walk(x);
        mark_collision(s, x, depth);
      }
      *collided = x;
      result = -1;
      break;
    }
    cf_sedge *e = &x->edges[i];
    if (!e->child) {
      e->child = cf_node_new(&s->pool, x, i);
      if (!e->child) {
        cancel_walk(x);
        result = -2;
        break;
      }
    }
    if (cf_game_push(s->game, e->move, NULL) != CF_OK) { /* a tree move that is not legal: a bug */
      cancel_walk(x);
      result = -2;
      break;
    }
    x = e->child;
    x->in_flight++;
    depth++;
  }
  while (s->game->count - 1 > s->root_ply) cf_game_pop(s->game);
  return result;
}

int cf_search_max_collisions(const cf_search_params *p, int want) {
  if (p->max_collisions > 0) return p->max_collisions;
  return p->fill_batches ? COLLISIONS_PER_LEAF * want : want;
}

cf_status cf_search_batch(cf_search *s, int want, cf_error *err) {
  if (want > s->cap_leaves) want = s->cap_leaves;
  int max_collisions = cf_search_max_collisions(&s->params, want);
  if (max_collisions > s->cap_collided) max_collisions = s->cap_collided;
  const bool fill = s->params.fill_batches;
  const int max_out_of_order = fill ? OUT_OF_ORDER_PER_LEAF * want : INT_MAX;
  int n_leaves = 0, n_coll = 0, out_of_order = 0;
  cf_snode **coll = s->collided;
  cf_status st = CF_OK;
  int walks = 0;
  while (n_leaves < want && n_coll < max_collisions && out_of_order < max_out_of_order) {
    /* Enough visits already started for a node limit (filling, collisions
     * are no visits: they only steer; otherwise they count while in flight). */
    const long visits = s->limits->visits;
    const long started = fill ? (long)s->root->n + n_leaves : (long)(s->root->n + s->root->in_flight);
    if (visits > 0 && started >= visits) break;
    if (walks++ > 0 && s->root->proven != CF_UNPROVEN) break; /* solved: one visit is enough */
    cf_snode *collided = NULL;
    int r = walk(s, &n_leaves, &collided);
    if (r == -2) {
      st = cf_error_set(err, CF_ERR_NOMEM, "search: out of memory for the tree");
      break;
    }
    if (r == 0) out_of_order++;
    if (r == -1) {
      coll[n_coll++] = collided;
      s->collisions++;
      if (collided == s->root) break; /* nothing left to gather below the root */
    }
  }
  if (st == CF_OK && n_leaves > 0) {
    for (int i = 0; i < n_leaves; i++) {
      cf_leaf *l = &s->leaves[i];
      s->requests[i] = (cf_net_request){.planes = &l->planes,
                                        .transform = l->transform,
                                        .black_to_move = l->black_to_move,
                                        .moves = l->policy_moves,
                                        .n_moves = l->n_moves};
      memset(&s->outputs[i], 0, sizeof s->outputs[i]);
      s->outputs[i].policy[CF_POLICY_VANILLA] = l->logits;
    }
    st = cf_net_eval(s->net, n_leaves, s->requests, s->outputs, err);
    if (st == CF_OK) {
      s->evals += n_leaves;
      s->batches++;
      s->leaves_evaluated += n_leaves;
    }
    for (int i = 0; i < n_leaves; i++) {
      cf_leaf *l = &s->leaves[i];
      if (st != CF_OK) {
        cancel_walk(l->node);
        continue;
      }
      const cf_net_output *o = &s->outputs[i];
      /* The net answers for the side to move at the leaf; the node keeps
       * the view of the side that moved into it. */
      float wl = o->wdl[2] - o->wdl[0], d = o->wdl[1];
      float m = isnan(o->moves_left) ? 0.0f : o->moves_left;
      if (s->cache) cf_nn_cache_put(s->cache, l->key, wl, d, m, l->n_moves, l->logits);
      if (!expand(s, l->node, l->n_moves, l->moves, l->logits)) {
        cancel_walk(l->node);
        st = cf_error_set(err, CF_ERR_NOMEM, "search: out of memory for the tree");
        continue;
      }
      l->node->v = wl;
      cf_search_backup(s, l->node, wl, d, m);
    }
  }
  for (int i = 0; i < n_coll; i++) {
    if (fill) clear_collision(coll[i]);
    else cancel_walk(coll[i]);
  }
  return st;
}
