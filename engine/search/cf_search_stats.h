/* cf_search_stats.h: a snapshot of what the search's stop and pace rules
 * read, filled from the search once per loop (cf_search_stats_fill), so
 * that every rule is a pure function of plain values and can be tested
 * with hand-made snapshots, without a tree or a network. Internal to
 * engine/search/. */
#ifndef CF_SEARCH_STATS_H
#define CF_SEARCH_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What ended a search (cf_search_stop_of), in the order the rules are asked. */
typedef enum cf_search_stop {
  CF_STOP_NONE,
  CF_STOP_FLAG,     /* the stop flag is set (once the root has a move) */
  CF_STOP_DEADLINE, /* the deadline has passed (once the root has a move) */
  CF_STOP_VISITS,   /* the root has the visits asked for */
  CF_STOP_DEPTH,    /* this run's playouts reach the depth asked for on average */
  CF_STOP_RAM,      /* the tree holds RamLimitMb */
  CF_STOP_MATE,     /* go mate N: the best move mates in N or fewer */
  CF_STOP_PRUNED,   /* smart pruning: no other move can catch the best */
  CF_STOP_SOLVED,   /* the root is proven (a held search waits for its stop) */
} cf_search_stop;

typedef struct cf_search_stats {
  double now; /* the clock the snapshot was taken at */
  /* The run's limits (cf_search_limits) and the parameters the rules use. */
  bool stop_flag;  /* the stop flag's value when the snapshot was taken */
  double deadline; /* 0 = none */
  long visits_limit;
  int depth_limit, mate_limit;
  bool infinite;
  float smart_pruning_factor;
  long smart_pruning_minimum_batches;
  long ram_limit_mb;
  double nps_limit;
  /* The root. */
  bool root_expanded; /* it has its moves: there is a move to answer with */
  bool owe_batch;     /* one_minibatch: a batch below the root is still owed */
  uint32_t root_n, root_in_flight;
  int root_proven; /* +1, 0, -1, or CF_UNPROVEN */
  /* The moves searchmoves allows: how many, how many are proven losses,
   * whether one is a proven win, and the two largest visit counts. */
  int n_moves, n_losing;
  bool forced_win;
  uint32_t first_n, second_n;
  /* Mate in this many moves after the move the answer would pick (0 when
   * not proven, and when go mate was not asked). */
  int best_mate;
  /* The run so far. */
  long playouts, cum_depth, batches;
  size_t tree_bytes;
  double start_time, first_eval_time; /* first_eval_time 0 = none yet */
  double sec_per_eval;                /* 0 = never measured */
} cf_search_stats;

/* ---- stop rules (cf_search_stop.c): each true when it ends the search ---- */
bool cf_rule_flag(const cf_search_stats *st);
bool cf_rule_deadline(const cf_search_stats *st);
bool cf_rule_visits(const cf_search_stats *st);
bool cf_rule_depth(const cf_search_stats *st);
bool cf_rule_ram(const cf_search_stats *st);
bool cf_rule_mate(const cf_search_stats *st);
bool cf_rule_smart_pruning(const cf_search_stats *st);
bool cf_rule_proof(const cf_search_stats *st);
/* The first rule, in cf_search_stop's order, that ends the search now. */
cf_search_stop cf_search_stop_of(const cf_search_stats *st);

/* ---- pace (cf_search_pace.c) ---- */
/* Leaves the next batch may take: minibatch, cut to the visits left and,
 * in a timed or held search, to what fits the stop latency at the
 * measured speed. */
int cf_pace_batch_target(const cf_search_stats *st, int minibatch);
/* NodesPerSecondLimit: the seconds to wait now so that this run's
 * playouts, counted from its first evaluation (its start until then), are
 * no more than the limit a second; 0 without a limit or when in pace. */
double cf_pace_nps_wait(const cf_search_stats *st);

#endif /* CF_SEARCH_STATS_H */
