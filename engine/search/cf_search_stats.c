/* cf_search_stats.c: the one place that reads the search for its stop and
 * pace rules: fills a cf_search_stats snapshot, which the rules
 * (cf_search_stop.c, cf_search_pace.c) read. */
#include <stdatomic.h>

#include "engine/search/cf_search_internal.h"

/* The moves searchmoves allows at the root: their count, proven losses, a
 * proven win, and the two largest visit counts (smart pruning's gap). */
static void root_moves(const cf_search *s, const cf_search_limits *l, cf_search_stats *st) {
  const cf_snode *r = s->root;
  for (int i = 0; i < r->n_edges; i++) {
    if (!cf_search_allowed(r->edges[i].move, l->allowed, l->n_allowed)) continue;
    const cf_snode *c = r->edges[i].child;
    st->n_moves++;
    if (c && c->proven == 1) st->forced_win = true;
    if (c && c->proven == -1) st->n_losing++;
    const uint32_t n = c ? c->n : 0;
    if (n > st->first_n) {
      st->second_n = st->first_n;
      st->first_n = n;
    } else if (n > st->second_n) {
      st->second_n = n;
    }
  }
}

void cf_search_stats_fill(const cf_search *s, double now, cf_search_stats *st) {
  static const cf_search_limits none;
  const cf_search_limits *l = s->limits ? s->limits : &none;
  *st = (cf_search_stats){
      .now = now,
      .stop_flag = l->stop && atomic_load(l->stop),
      .deadline = l->deadline,
      .visits_limit = l->visits,
      .depth_limit = l->depth,
      .mate_limit = l->mate,
      .infinite = l->infinite,
      .smart_pruning_factor = s->params.smart_pruning_factor,
      .smart_pruning_minimum_batches = s->params.smart_pruning_minimum_batches,
      .ram_limit_mb = s->params.ram_limit_mb,
      .nps_limit = s->params.nps_limit,
      .root_expanded = s->root && s->root->edges != NULL,
      .owe_batch = s->owe_batch,
      .root_n = s->root ? s->root->n : 0,
      .root_in_flight = s->root ? s->root->in_flight : 0,
      .root_proven = s->root ? s->root->proven : CF_UNPROVEN,
      .playouts = s->playouts,
      .cum_depth = s->cum_depth,
      .batches = s->batches,
      .tree_bytes = s->pool.bytes,
      .start_time = s->start_time,
      .first_eval_time = s->first_eval_time,
      .sec_per_eval = s->sec_per_eval,
  };
  if (!st->root_expanded) return;
  root_moves(s, l, st);
  /* Only go mate reads it: the best edge is not looked for otherwise. */
  if (l->mate > 0) {
    const int b = cf_search_best_edge(s->root, cf_search_draw_score(s, 0), l->allowed, l->n_allowed);
    st->best_mate = b >= 0 ? cf_search_mate_of(s->root->edges[b].child) : 0;
  }
}
