/* cf_search_stop.c: the rules that end a search, one pure function each
 * of a stats snapshot (cf_search_stats.h), and the order the main loop
 * asks them in. The rules that need a move to answer with (stop,
 * deadline, RamLimitMb, smart pruning, a proof) wait for the root's first
 * evaluation; the node and depth limits do not. */
#include <math.h>

#include "engine/search/cf_search_stats.h"

/* Lc0's smart pruning waits this long after the first evaluation before it
 * trusts its speed estimate, and pads the node count. */
#define SMART_PRUNING_TOLERANCE_S 0.2
#define SMART_PRUNING_TOLERANCE_NODES 300
/* cf_search_internal.h's CF_UNPROVEN, which this file does not include so
 * that the rules cannot reach the tree. */
#define ROOT_UNPROVEN 2

bool cf_rule_flag(const cf_search_stats *st) { return st->root_expanded && st->stop_flag; }

bool cf_rule_deadline(const cf_search_stats *st) {
  /* a search owed one batch below the root (one_minibatch) runs it first */
  return st->root_expanded && st->deadline > 0 && st->now >= st->deadline && !st->owe_batch;
}

bool cf_rule_visits(const cf_search_stats *st) {
  return st->visits_limit > 0 && (long)st->root_n >= st->visits_limit;
}

bool cf_rule_depth(const cf_search_stats *st) {
  return st->depth_limit > 0 && st->playouts > 0 &&
         (double)st->cum_depth / (double)st->playouts >= st->depth_limit;
}

bool cf_rule_ram(const cf_search_stats *st) {
  const long mb = st->ram_limit_mb;
  return st->root_expanded && mb > 0 && (double)st->tree_bytes >= (double)mb * 1048576.0;
}

/* go mate N: the best move (as the answer would pick it) is a proven mate
 * in N moves or fewer. */
bool cf_rule_mate(const cf_search_stats *st) {
  if (!st->root_expanded || st->mate_limit <= 0) return false;
  return st->best_mate > 0 && st->best_mate <= st->mate_limit;
}

/* Lc0's smart pruning: stop when no other move can catch the best in the
 * playouts left (estimated from the speed so far, divided by the factor),
 * at once with only one move, or when a move wins by force. */
bool cf_rule_smart_pruning(const cf_search_stats *st) {
  const float factor = st->smart_pruning_factor;
  if (!st->root_expanded || factor <= 0 || st->infinite) return false;
  /* SmartPruningMinimumBatches: not before this run has evaluated so many. */
  if (st->batches < st->smart_pruning_minimum_batches) return false;
  if (st->forced_win) return true;
  if (st->n_moves == 1 || st->n_moves <= st->n_losing + 1) return true;
  const double now = st->now;
  if (st->first_eval_time <= 0 || now < st->first_eval_time + SMART_PRUNING_TOLERANCE_S) return false;
  double remaining = INFINITY;
  if (st->deadline > 0) {
    double nps = (double)(st->playouts + SMART_PRUNING_TOLERANCE_NODES) / (now - st->first_eval_time);
    remaining = (st->deadline - now) * nps / factor;
  }
  if (st->visits_limit > 0) {
    double left = (double)(st->visits_limit - (long)st->root_n) / factor;
    if (left < remaining) remaining = left;
  }
  return remaining < (double)(st->first_n - st->second_n);
}

bool cf_rule_proof(const cf_search_stats *st) {
  return st->root_expanded && st->root_proven != ROOT_UNPROVEN;
}

cf_search_stop cf_search_stop_of(const cf_search_stats *st) {
  if (cf_rule_flag(st)) return CF_STOP_FLAG;
  if (cf_rule_deadline(st)) return CF_STOP_DEADLINE;
  if (cf_rule_visits(st)) return CF_STOP_VISITS;
  if (cf_rule_depth(st)) return CF_STOP_DEPTH;
  if (cf_rule_ram(st)) return CF_STOP_RAM;
  if (cf_rule_mate(st)) return CF_STOP_MATE;
  if (cf_rule_smart_pruning(st)) return CF_STOP_PRUNED;
  if (cf_rule_proof(st)) return CF_STOP_SOLVED;
  return CF_STOP_NONE;
}
