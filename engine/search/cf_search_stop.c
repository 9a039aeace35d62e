/* cf_search_stop.c: the rules that end a search, one function each, and
 * the order the main loop asks them in. The rules that need a move to
 * answer with (stop, deadline, RamLimitMb, smart pruning, a proof) wait for
 * the root's first evaluation; the node and depth limits do not. */
#include <math.h>
#include <stdatomic.h>

#include "engine/search/cf_search_internal.h"

/* Lc0's smart pruning waits this long after the first evaluation before it
 * trusts its speed estimate, and pads the node count. */
#define SMART_PRUNING_TOLERANCE_S 0.2
#define SMART_PRUNING_TOLERANCE_NODES 300

static bool root_expanded(const cf_search *s) { return s->root && s->root->edges != NULL; }

bool cf_stop_by_flag(const cf_search *s) {
  const atomic_bool *stop = s->limits->stop;
  return root_expanded(s) && stop && atomic_load(stop);
}

bool cf_stop_by_deadline(const cf_search *s, double now) {
  const double deadline = s->limits->deadline;
  /* a search owed one batch below the root (one_minibatch) runs it first */
  return root_expanded(s) && deadline > 0 && now >= deadline && !s->owe_batch;
}

bool cf_stop_by_visits(const cf_search *s) {
  const long visits = s->limits->visits;
  return visits > 0 && (long)s->root->n >= visits;
}

bool cf_stop_by_depth(const cf_search *s) {
  const int depth = s->limits->depth;
  return depth > 0 && s->playouts > 0 && (double)s->cum_depth / (double)s->playouts >= depth;
}

bool cf_stop_by_ram(const cf_search *s) {
  const long mb = s->params.ram_limit_mb;
  return root_expanded(s) && mb > 0 && (double)s->pool.bytes >= (double)mb * 1048576.0;
}

/* go mate N: the best move (as the answer would pick it) is a proven mate
 * in N moves or fewer. */
bool cf_stop_by_mate(const cf_search *s) {
  const cf_search_limits *l = s->limits;
  if (!root_expanded(s) || l->mate <= 0) return false;
  int b = cf_search_best_edge(s->root, cf_search_draw_score(s, 0), l->allowed, l->n_allowed);
  int mate = b >= 0 ? cf_search_mate_of(s->root->edges[b].child) : 0;
  return mate > 0 && mate <= l->mate;
}

/* Lc0's smart pruning: stop when no other move can catch the best in the
 * playouts left (estimated from the speed so far, divided by the factor),
 * at once with only one move, or when a move wins by force. */
bool cf_stop_by_smart_pruning(const cf_search *s, double now) {
  const cf_search_limits *l = s->limits;
  const float factor = s->params.smart_pruning_factor;
  if (!root_expanded(s) || factor <= 0 || l->infinite) return false;
  /* SmartPruningMinimumBatches: not before this run has evaluated so many. */
  if (s->batches < s->params.smart_pruning_minimum_batches) return false;
  const cf_snode *r = s->root;
  int n_moves = 0, losing = 0;
  uint32_t first = 0, second = 0;
  for (int i = 0; i < r->n_edges; i++) {
    if (!cf_search_allowed(r->edges[i].move, l->allowed, l->n_allowed)) continue;
    const cf_snode *c = r->edges[i].child;
    n_moves++;
    if (c && c->proven == 1) return true; /* a forced win */
    if (c && c->proven == -1) losing++;
    uint32_t n = c ? c->n : 0;
    if (n > first) {
      second = first;
      first = n;
    } else if (n > second) {
      second = n;
    }
  }
  if (n_moves == 1 || n_moves <= losing + 1) return true;
  if (s->first_eval_time <= 0 || now < s->first_eval_time + SMART_PRUNING_TOLERANCE_S) return false;
  double remaining = INFINITY;
  if (l->deadline > 0) {
    double nps = (double)(s->playouts + SMART_PRUNING_TOLERANCE_NODES) / (now - s->first_eval_time);
    remaining = (l->deadline - now) * nps / factor;
  }
  if (l->visits > 0) {
    double left = (double)(l->visits - (long)r->n) / factor;
    if (left < remaining) remaining = left;
  }
  return remaining < (double)(first - second);
}

bool cf_stop_by_proof(const cf_search *s) {
  return root_expanded(s) && s->root->proven != CF_UNPROVEN;
}

cf_search_stop cf_search_stop_rule(const cf_search *s, double now) {
  if (cf_stop_by_flag(s)) return CF_STOP_FLAG;
  if (cf_stop_by_deadline(s, now)) return CF_STOP_DEADLINE;
  if (cf_stop_by_visits(s)) return CF_STOP_VISITS;
  if (cf_stop_by_depth(s)) return CF_STOP_DEPTH;
  if (cf_stop_by_ram(s)) return CF_STOP_RAM;
  if (cf_stop_by_mate(s)) return CF_STOP_MATE;
  if (cf_stop_by_smart_pruning(s, now)) return CF_STOP_PRUNED;
  if (cf_stop_by_proof(s)) return CF_STOP_SOLVED;
  return CF_STOP_NONE;
}
