/* cf_search_report.c: what the search tells its caller about the root:
 * the info of a progress line or a result (score, W/D/L, PV, depth), each
 * root move's visits, Q and prior, the principal variation and the
 * counters. Reads the tree; changes nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chess/cf_movegen.h"
#include "common/cf_clock.h"
#include "engine/search/cf_search.h"
#include "engine/search/cf_search_internal.h"

/* W, D, L from (wl, d). */
static void wdl_of(double wl, float d, float out[3]) {
  float w = (float)(1.0 + wl - d) / 2, l = (float)(1.0 - wl - d) / 2;
  out[0] = w < 0 ? 0 : w;
  out[1] = d < 0 ? 0 : d;
  out[2] = l < 0 ? 0 : l;
}

int cf_search_mate_of(const cf_snode *child) {
  if (!child || child->proven == CF_UNPROVEN || child->proven == 0) return 0;
  /* child->proven_plies: plies from the child's position to the end. */
  if (child->proven == 1) return (child->proven_plies + 2) / 2;
  return -((child->proven_plies + 1) / 2);
}

/* The root is in the tables: its score is their result, not the
 * network's view of the moves they keep (which may have only one): a draw
 * is a draw (cp 0), a win or loss reads as Lc0 prints a tablebase one,
 * mate 101 plus half the moves left (the best move's estimate, in plies),
 * signed, unless the tree has proven a mate that way (a real one). */
static void tablebase_score(const cf_search *s, const cf_snode *best, cf_search_info *info) {
  const int r = s->tb_root_result;
  const float ds = cf_search_draw_score(s, 0);
  const float wdl[3] = {r > 0 ? 1.0f : 0.0f, r == 0 ? 1.0f : 0.0f, r < 0 ? 1.0f : 0.0f};
  info->q = info->root_q = r == 0 ? ds : (float)r;
  memcpy(info->wdl, wdl, sizeof wdl);
  memcpy(info->root_wdl, wdl, sizeof wdl);
  if (r == 0) {
    info->mate = 0;
    return;
  }
  /* A mate the tree has proven the same way is exact: it stays. */
  if (info->mate != 0 && (info->mate > 0) == (r > 0)) return;
  /* So is a best move that mates, which a root with one move kept by the
   * tables ends on before its child is visited. */
  if (r > 0 && s->game && info->best != CF_MOVE_NONE) {
    cf_position after = *cf_game_position(s->game);
    cf_undo undo;
    cf_position_make(&after, info->best, &undo);
    cf_movelist replies;
    cf_generate_legal(&after, &replies);
    if (replies.count == 0 && cf_position_in_check(&after)) {
      info->mate = 1;
      return;
    }
  }
  const float root_m = s->root->m > 1.0f ? s->root->m - 1.0f : 0.0f;
  const float m = best && best->n > 0 ? best->m : root_m;
  const int moves = (int)(roundf(m) / 2.0f + 101.0f);
  info->mate = r > 0 ? moves : -moves;
}

/* The depths of the visited nodes below x (x at `depth`): their sum, count
 * and the deepest, as the playouts that made them would have counted. */
static void tree_depth(const cf_snode *x, int depth, long *sum, long *count, int *deepest) {
  for (int i = 0; x->edges && i < x->n_edges; i++) {
    const cf_snode *c = x->edges[i].child;
    if (!c || c->n == 0) continue;
    *sum += depth + 1;
    (*count)++;
    if (depth + 1 > *deepest) *deepest = depth + 1;
    tree_depth(c, depth + 1, sum, count, deepest);
  }
}

/* depth and seldepth: those of this run's playouts (Lc0's); a run that
 * made none because a kept tree already met its limit (go nodes on a
 * reused tree) reports the kept tree's, where Lc0 would print 0: its
 * average node depth and its deepest node. */
static void fill_depth(const cf_search *s, cf_search_info *info) {
  if (s->playouts > 0) {
    /* Lc0 truncates the average depth. */
    info->depth = (int)(s->cum_depth / s->playouts);
    info->seldepth = s->max_depth;
    return;
  }
  long sum = 0, count = 0;
  int deepest = 0;
  tree_depth(s->root, 0, &sum, &count, &deepest);
  info->depth = count > 0 ? (int)(sum / count) : 0;
  info->seldepth = deepest;
}

void cf_search_fill_info(const cf_search *s, cf_search_info *info) {
  memset(info, 0, sizeof *info);
  const cf_snode *r = s->root;
  const cf_search_limits *lim = s->limits;
  int b = cf_search_best_edge(r, cf_search_draw_score(s, 0), lim ? lim->allowed : NULL,
                              lim ? lim->n_allowed : 0);
  info->best = b >= 0 ? r->edges[b].move : CF_MOVE_NONE;
  const cf_snode *c = b >= 0 ? r->edges[b].child : NULL;
  if (c && c->n > 0) {
    info->q = (float)c->wl + cf_search_draw_score(s, 0) * c->d;
    wdl_of(c->wl, c->d, info->wdl);
    info->mate = cf_search_mate_of(c);
  } else { /* nothing below the root yet: the root's own value */
    info->q = (float)-r->wl + cf_search_draw_score(s, 0) * r->d;
    wdl_of(-r->wl, r->d, info->wdl);
  }
  info->root_q = (float)-r->wl + cf_search_draw_score(s, 0) * r->d;
  wdl_of(-r->wl, r->d, info->root_wdl);
  if (s->tb_root_known) tablebase_score(s, c, info);
  info->root_m = r->n > 0 ? (float)r->m : NAN;
  info->playouts = s->playouts;
  fill_depth(s, info);
  info->visits = r->n;
  info->evals = s->evals;
  info->cache_hits = s->cache_hits;
  info->batches = s->batches;
  info->seconds = cf_clock_now() - s->start_time;
  long cap = cf_nn_cache_capacity(s->cache);
  info->hashfull = cap > 0 ? (int)(1000 * cf_nn_cache_count(s->cache) / cap) : 0;
  info->tree_bytes = s->pool.bytes;
  info->tb_hits = s->tb_hits;
}

#define ROOT_VIEW_SIGN (-1.0)

int cf_search_root_stats(const cf_search *s, cf_search_move_stats *out, int max) {
  const cf_snode *r = s->root;
  if (!r || !r->edges || max <= 0) return 0;
  const cf_search_limits *lim = s->limits;
  /* Best-first: repeatedly the best remaining edge (n <= 256). */
  bool taken[CF_MAX_MOVES] = {false};
  const float ds = cf_search_draw_score(s, 0);
  const float fpu = cf_search_fpu(&s->params, r, ds);
  const uint32_t cv = r->n > 0 ? r->n - 1 : 0;
  const float u_coeff = cf_search_cpuct(&s->params, r->n, true) * sqrtf((float)(cv > 1 ? cv : 1));
  int k = 0;
  while (k < max) {
    int best = -1;
    for (int i = 0; i < r->n_edges; i++) {
      if (taken[i] || !cf_search_allowed(r->edges[i].move, lim ? lim->allowed : NULL,
                                         lim ? lim->n_allowed : 0))
        continue;
      if (best < 0 || cf_search_compare_edges(&r->edges[i], &r->edges[best], ds) > 0) best = i;
    }
    if (best < 0) break;
    taken[best] = true;
    const cf_sedge *e = &r->edges[best];
    const cf_snode *c = e->child;
    cf_search_move_stats *m = &out[k++];
    uint32_t started = c ? c->n + c->in_flight : 0;
    const float q = cf_search_edge_q(e, fpu, ds);
    *m = (cf_search_move_stats){
        .move = e->move,
        .n = c ? c->n : 0,
        .in_flight = c ? c->in_flight : 0,
        .p = e->p,
        .q = q,
        .wl = c && c->n ? (float)c->wl : NAN,
        .d = c && c->n ? c->d : NAN,
        .m = c && c->n ? c->m : NAN,
        .u = u_coeff * e->p / (1.0f + (float)started),
        .m_utility = s->moves_left ? cf_search_moves_left_utility(&s->params, r, c, q) : 0.0f,
        .v = c ? c->v : NAN,
        .proven = c ? c->proven : CF_UNPROVEN,
        .proven_plies = c ? c->proven_plies : 0,
        .mate = cf_search_mate_of(c),
    };
  }
  return k;
}

bool cf_search_root_node_stats(const cf_search *s, cf_search_move_stats *out, int *n_moves) {
  const cf_snode *r = s->root;
  if (!r || !r->edges) return false;
  float visited = 0.0f;
  for (int i = 0; i < r->n_edges; i++)
    if (r->edges[i].child && r->edges[i].child->n > 0) visited += r->edges[i].p;
  /* A node's values are kept from the view of the player who moved into it
   * (its parent's side to move, which is how its parent shows them); the
   * root's are shown from its own side to move, so they change sign. */
  const double sign = ROOT_VIEW_SIGN;
  const float ds = cf_search_draw_score(s, 0);
  *out = (cf_search_move_stats){
      .move = CF_MOVE_NONE,
      .n = r->n,
      .in_flight = r->in_flight,
      .p = visited,
      .q = r->n ? (float)(sign * r->wl) + ds * r->d : NAN,
      .wl = r->n ? (float)(sign * r->wl) : NAN,
      .d = r->n ? r->d : NAN,
      .m = r->n ? r->m : NAN,
      .u = 0.0f,
      .v = isnan(r->v) ? NAN : (float)(sign * r->v),
      .proven = r->proven == CF_UNPROVEN ? CF_UNPROVEN : (int)(sign * r->proven),
      .proven_plies = r->proven_plies,
      .mate = 0,
  };
  *n_moves = r->n_edges;
  return true;
}

int cf_search_pv(const cf_search *s, cf_move first, cf_move *out, int max) {
  const cf_snode *x = s->root;
  if (!x || max <= 0) return 0;
  int k = 0, depth = 0;
  while (x && x->edges && k < max) {
    int b = -1;
    if (k == 0 && first != CF_MOVE_NONE) {
      for (int i = 0; i < x->n_edges; i++)
        if (x->edges[i].move == first) b = i;
    } else {
      const cf_search_limits *lim = k == 0 ? s->limits : NULL;
      b = cf_search_best_edge(x, cf_search_draw_score(s, depth), lim ? lim->allowed : NULL,
                              lim ? lim->n_allowed : 0);
    }
    if (b < 0) break;
    out[k++] = x->edges[b].move;
    x = x->edges[b].child;
    if (!x || x->n == 0) break;
    depth++;
  }
  return k;
}

void cf_search_get_counters(const cf_search *s, cf_search_counters *out) {
  *out = (cf_search_counters){
      .nodes_allocated = s->pool.live,
      .collisions = s->collisions,
      .terminal_visits = s->terminal_visits,
      .mean_batch = s->batches ? (double)s->leaves_evaluated / (double)s->batches : 0,
      .reused_visits = s->reused,
      .prefetched = s->prefetched,
      .net_cpu_seconds = s->net_cpu,
  };
}

