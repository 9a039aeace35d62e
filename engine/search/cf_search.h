/* cf_search.h: the `search` agent's engine: an Lc0-style PUCT tree search
 * over the network (docs/SEARCH.md).
 *
 *     cf_search *s;
 *     cf_search_create(&params, &s, &err);            // params: NULL = Lc0's defaults
 *     cf_search_limits lim = {.visits = 800, .stop = &stop_flag};
 *     cf_search_result r;
 *     cf_search_run(s, net, &game, &lim, &r, &err);   // blocks until a limit is met
 *     ... the next move: the tree below the moves played is reused ...
 *     cf_search_reset(s);                              // ucinewgame: tree and cache go
 *     cf_search_free(s);
 *
 * One search thread gathers leaves into minibatches and evaluates each with
 * one cf_net_eval call. A cf_search and the net it runs on are used by one
 * thread at a time; the stop flag may be set from any thread. */
#ifndef CF_SEARCH_H
#define CF_SEARCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chess/cf_game.h"
#include "chess/cf_move.h"
#include "common/cf_status.h"
#include "engine/search/cf_search_params.h"
#include "net/cf_net.h"

/* The visits the search agent makes when nothing limits it (a bare `go`). */
#define CF_SEARCH_DEFAULT_VISITS 800

/* What ends a search. Everything zero/NULL: only `stop` (or a proven root
 * with nothing left to search) ends it. */
typedef struct cf_search_limits {
  long visits;             /* stop when the root has this many visits (reused ones count); 0 = none */
  double deadline;         /* cf_clock_now() time to stop at (common/cf_clock.h); 0 = none */
  int depth;               /* stop when the average depth of this search's playouts reaches it */
  const atomic_bool *stop; /* set from another thread to stop; NULL = never */
  bool infinite;           /* `go infinite` / `ponder`: smart pruning never ends it */
  /* Set from another thread once a held search gets a time limit (UCI
   * ponderhit): when > 0 it is the deadline and the search is no longer
   * infinite. NULL = never. */
  const _Atomic double *live_deadline;
  const cf_move *allowed;  /* searchmoves: root moves to consider; NULL/0 = all */
  int n_allowed;
  /* A positive time budget: the deadline ends the search only after one
   * minibatch below the root (as many positions as the budget fits at the
   * measured speed, at least one), so a short budget still searches rather
   * than playing the root's policy move (stop and the other limits still
   * end it at once). */
  bool one_minibatch;
  /* `go mate N`: stop once the best move is a proven mate in N moves or
   * fewer (the other limits still apply); 0 = none. */
  int mate;
  /* UCI `go infinite` (analysis; not ponder): ContemptMode play favours
   * nobody there, as in Lc0. */
  bool go_infinite;
  /* Called on the search's thread after every batch, and while a held
   * search that is solved waits for its stop: a caller with one thread
   * (the browser's single-threaded build) reads its input there and sets
   * *stop. NULL = none. */
  void (*poll)(void *user);
  void *poll_user;
} cf_search_limits;

/* One root move's statistics (VerboseMoveStats, MultiPV). Values are from
 * the side to move at the root. */
typedef struct cf_search_move_stats {
  cf_move move;
  uint32_t n;          /* completed visits */
  uint32_t in_flight;
  float p;             /* prior (softmax with PolicyTemperature) */
  float q;             /* W - L (+ draw score * D); the FPU value when unvisited */
  float wl, d, m;      /* W - L, draw probability, moves left (plies); NAN when unvisited */
  float u;             /* the exploration term */
  float m_utility;     /* the moves-left utility selection adds to q (0 without a
                          moves-left head, or unvisited); Lc0's S counts it */
  float v;             /* the network's own value of the child (NAN if not evaluated) */
  int proven;          /* +1 win, 0 draw, -1 loss for the side to move, 2 = not proven */
  int proven_plies;    /* plies to the end when proven */
  int mate;            /* as cf_search_info.mate, for this move */
} cf_search_move_stats;

/* Where the search stands (the info callback, the result). */
typedef struct cf_search_info {
  cf_move best;            /* CF_MOVE_NONE when the root has no legal move */
  float q, wdl[3];         /* of best, from the side to move */
  float root_q, root_wdl[3]; /* the root's own value (all its visits), same view */
  float root_m;            /* the root's moves left (plies); NAN before its evaluation */
  int mate;                /* > 0: mate in this many moves; < 0: mated in -mate; 0 = not proven */
  /* Average and maximum depth of this search's playouts; with none (a kept
   * tree already met go nodes), of the kept tree's nodes. */
  int depth, seldepth;
  long visits;             /* root visits, reused ones included */
  long playouts;           /* visits added by this search */
  long evals;              /* network evaluations made */
  long cache_hits;         /* leaves answered by the NN cache */
  long batches;            /* network calls */
  double seconds;          /* since the search started */
  int hashfull;            /* NN cache fill, per mille */
  size_t tree_bytes;       /* memory held by the tree */
  long tb_hits;            /* Syzygy probes that answered (the root's counts one) */
} cf_search_info;

typedef struct cf_search_result {
  cf_search_info info;
  cf_move ponder;          /* the second move of the best line, CF_MOVE_NONE if none */
  bool stopped;            /* the stop flag, the deadline or RamLimitMb ended it */
  bool ram_limited;        /* RamLimitMb ended it */
} cf_search_result;

typedef struct cf_search cf_search;

/* Called from the search thread after a batch when the best move or the
 * depth changes, and at least every 5 s (the caller reports the final
 * state from the result). The search's state may be read through
 * cf_search_root_stats / cf_search_pv during the call. */
typedef void (*cf_search_info_fn)(void *user, const cf_search *s, const cf_search_info *info);

cf_status cf_search_create(const cf_search_params *params, cf_search **out, cf_error *err);
void cf_search_free(cf_search *s);

/* Replaces the parameters (between searches). MinibatchSize and
 * NNCacheSize changes take effect at the next run. */
cf_status cf_search_set_params(cf_search *s, const cf_search_params *params, cf_error *err);
const cf_search_params *cf_search_get_params(const cf_search *s);

/* Drops the tree and empties the NN cache (ucinewgame). */
void cf_search_reset(cf_search *s);

/* Drops the tree only: the next run starts from a fresh root and the NN
 * cache still answers (Lc0's selfplay without tree reuse). */
void cf_search_reset_tree(cf_search *s);

/* Searches the current position of game (left as it was found). The tree
 * of an earlier run is kept when game continues that run's game (same start
 * position, the earlier moves and then more); otherwise it is dropped. On
 * error (a network failure mid-search) *out still holds the best move found
 * so far, if any. */
cf_status cf_search_run(cf_search *s, cf_net *net, cf_game *game, const cf_search_limits *limits,
                        cf_search_info_fn on_info, void *user, cf_search_result *out,
                        cf_error *err);

/* Seeds the generator of the root's Dirichlet noise (the noise_epsilon
 * and noise_alpha knobs): the same seed, network and limits repeat the
 * same searches exactly. */
void cf_search_seed(cf_search *s, uint64_t seed);

/* The root moves in best-first order (the order bestmove uses): up to max
 * entries; returns how many were written. */
int cf_search_root_stats(const cf_search *s, cf_search_move_stats *out, int max);

/* The root itself, in the same fields and view (the side to move), as
 * Lc0's VerboseMoveStats `node` line shows it: p is the policy of the
 * visited moves, u is unused (0), *n_moves the root's number of moves.
 * Returns false before the root is expanded. */
bool cf_search_root_node_stats(const cf_search *s, cf_search_move_stats *out, int *n_moves);

/* The network's own answer for the current position of game, as the
 * search's NN cache holds it (Lc0's GetCachedEvaluation): the side to
 * move's W - L, draw probability and moves left (0 without a moves-left
 * head), and the priors of the legal moves (softmax of the raw logits:
 * no PolicyTemperature, no noise) in moves' order. False when the cache
 * does not hold the position (never evaluated, evicted, or no cache). */
typedef struct cf_search_net_eval {
  float wl, d, m;
  int n_moves;
  cf_move moves[CF_MAX_MOVES];
  float p[CF_MAX_MOVES];
} cf_search_net_eval;
bool cf_search_cached_eval(const cf_search *s, const cf_game *game, cf_search_net_eval *out);

/* The principal variation starting with root move `first` (CF_MOVE_NONE =
 * the best move): up to max moves; returns how many. */
int cf_search_pv(const cf_search *s, cf_move first, cf_move *out, int max);

/* Internal counters for tests and bench. */
typedef struct cf_search_counters {
  long nodes_allocated;   /* nodes in the tree now */
  long collisions;        /* gathering collisions in the last run */
  long terminal_visits;   /* visits to terminal or proven nodes in the last run */
  double mean_batch;      /* leaves per network call in the last run */
  long prefetched;        /* positions evaluated for the NN cache alone (MaxPrefetch) in the last run */
  long reused_visits;     /* root visits kept from the previous run */
  /* CPU time (CLOCK_THREAD_CPUTIME_ID) the thread running the last run
   * spent inside the network's calls; that thread's CPU time over the run
   * less this is the search's own work. Work of other threads (lanes, a
   * device's stream) is never in it. */
  double net_cpu_seconds;
} cf_search_counters;

void cf_search_get_counters(const cf_search *s, cf_search_counters *out);

#endif /* CF_SEARCH_H */
