/* cf_search_params_lc0.h: Lc0's further search options (moves-left utility,
 * root variants, collisions, sticky endgames, ...), rows in the layout of
 * cf_search_params.h, which joins them to CF_SEARCH_OPTIONS. Names, ranges
 * and defaults are Lc0's; docs/SEARCH_OPTIONS.md says what each does here. */
#ifndef CF_SEARCH_PARAMS_LC0_H
#define CF_SEARCH_PARAMS_LC0_H

/* X(field, ctype, kind, name, flag, alias, def, min, max, choices, help) */
#define CF_SEARCH_LC0_OPTIONS(X)                                                                   \
  X(cpuct_at_root, float, FLOAT, "CPuctAtRoot", "cpuct-at-root", NULL, 1.745, 0, 100, NULL,        \
    "search: CPuct at the root, with RootHasOwnCpuctParams")                                       \
  X(cpuct_base_at_root, float, FLOAT, "CPuctBaseAtRoot", "cpuct-base-at-root", NULL, 38739, 1,     \
    1e9, NULL, "search: CPuctBase at the root, with RootHasOwnCpuctParams")                        \
  X(cpuct_factor_at_root, float, FLOAT, "CPuctFactorAtRoot", "cpuct-factor-at-root", NULL, 3.894,  \
    0, 1000, NULL, "search: CPuctFactor at the root, with RootHasOwnCpuctParams")                  \
  X(root_has_own_cpuct_params, bool, BOOL, "RootHasOwnCpuctParams", "root-has-own-cpuct-params",  \
    NULL, 0, 0, 1, NULL,                                                                           \
    "search: the root takes CPuctAtRoot, CPuctBaseAtRoot and CPuctFactorAtRoot instead of the "   \
    "others")                                                                                      \
  X(fpu_strategy_at_root, int, CHOICE, "FpuStrategyAtRoot", "fpu-strategy-at-root", NULL, 2, 0, 2, \
    CF_SEARCH_CHOICES("reduction", "absolute", "same"),                                            \
    "search: FpuStrategy at the root, with FpuValueAtRoot; same = FpuStrategy and FpuValue")      \
  X(fpu_value_at_root, float, FLOAT, "FpuValueAtRoot", "fpu-value-at-root", NULL, 1.0, -100, 100, \
    NULL, "search: FpuValue at the root unless FpuStrategyAtRoot is same")                        \
  X(moves_left_max_effect, float, FLOAT, "MovesLeftMaxEffect", "moves-left-max-effect", NULL,     \
    0.0345, 0, 1, NULL,                                                                            \
    "search: the largest bonus (in Q) for a shorter win or a longer loss (moves-left head only)") \
  X(moves_left_threshold, float, FLOAT, "MovesLeftThreshold", "moves-left-threshold", NULL, 0.8,  \
    0, 1, NULL, "search: |Q| of a node above which its moves' length counts (moves-left head)")   \
  X(moves_left_slope, float, FLOAT, "MovesLeftSlope", "moves-left-slope", NULL, 0.0027, 0, 1,     \
    NULL, "search: bonus per ply a move shortens a win or lengthens a loss, capped at "           \
          "MovesLeftMaxEffect")                                                                    \
  X(moves_left_constant_factor, float, FLOAT, "MovesLeftConstantFactor",                          \
    "moves-left-constant-factor", NULL, 0, -1, 1, NULL,                                            \
    "search: the moves-left bonus is scaled by this + MovesLeftScaledFactor |Q| + "               \
    "MovesLeftQuadraticFactor Q^2")                                                                \
  X(moves_left_scaled_factor, float, FLOAT, "MovesLeftScaledFactor", "moves-left-scaled-factor",  \
    NULL, 1.6521, -2, 2, NULL, "search: see MovesLeftConstantFactor")                             \
  X(moves_left_quadratic_factor, float, FLOAT, "MovesLeftQuadraticFactor",                        \
    "moves-left-quadratic-factor", NULL, -0.6521, -1, 1, NULL,                                     \
    "search: see MovesLeftConstantFactor")                                                         \
  X(sticky_endgames, bool, BOOL, "StickyEndgames", "sticky-endgames", NULL, 1, 0, 1, NULL,        \
    "search: proven results (mates, draws, tablebase results) are carried up the tree")           \
  /* Default 7 (Lc0's is 0): the key then covers every position the  \
   * network reads, so a cached answer is the one the network would give; \
   * at 0 the built-in net lost 63 Elo at 200 nodes a move (docs). */    \
  X(cache_history_length, int, INT, "CacheHistoryLength", "cache-history-length", NULL, 7, 0, 7,  \
    NULL, "search: earlier positions (besides the current one) in the NN cache's key; 7 = all "  \
    "the network reads (Lc0's default is 0)")                                                      \
  X(max_collision_events, int, INT, "MaxCollisionEvents", "max-collision-events", NULL, 917, 1,   \
    65536, NULL, "search: collision events allowed while gathering one batch")                    \
  X(max_collision_visits, long, INT, "MaxCollisionVisits", "max-collision-visits", NULL, 80000, 1, \
    100000000, NULL,                                                                               \
    "search: collision visits a batch may spend on a large tree (with multi-visit collisions)")   \
  X(max_collision_visits_scaling_start, long, INT, "MaxCollisionVisitsScalingStart",              \
    "max-collision-visits-scaling-start", NULL, 28, 1, 100000, NULL,                               \
    "search: tree size up to which a batch may spend 1 collision visit")                          \
  X(max_collision_visits_scaling_end, long, INT, "MaxCollisionVisitsScalingEnd",                  \
    "max-collision-visits-scaling-end", NULL, 145000, 0, 100000000, NULL,                          \
    "search: tree size from which a batch may spend MaxCollisionVisits; 0 = always")              \
  X(max_collision_visits_scaling_power, double, FLOAT, "MaxCollisionVisitsScalingPower",          \
    "max-collision-visits-scaling-power", NULL, 1.25, 0.01, 100, NULL,                             \
    "search: power of the growth of collision visits between the two tree sizes")                \
  X(out_of_order_eval, bool, BOOL, "OutOfOrderEval", "out-of-order-eval", NULL, 1, 0, 1, NULL,    \
    "search: a terminal or cached leaf is backed up at once; off, it takes a place in the "       \
    "batch and is backed up with it")                                                              \
  X(max_out_of_order_evals_factor, float, FLOAT, "MaxOutOfOrderEvalsFactor",                      \
    "max-out-of-order-evals-factor", NULL, 2.4, 0, 100, NULL,                                      \
    "search: out-of-order backups a batch may make, per leaf it wants")                           \
  X(max_prefetch, int, INT, "MaxPrefetch", "max-prefetch", NULL, 32, 0, 1024, NULL,               \
    "search: with LcZeroGather, a batch with fewer positions takes up to this many, likely "      \
    "needed soon, for the NN cache alone; 0 = none; no effect without LcZeroGather")           \
  X(smart_pruning_minimum_batches, int, INT, "SmartPruningMinimumBatches",                        \
    "smart-pruning-minimum-batches", NULL, 0, 0, 10000, NULL,                                      \
    "search: smart pruning may stop a search only after this many batches")                       \
  X(nps_limit, float, FLOAT, "NodesPerSecondLimit", "nps-limit", NULL, 0, 0, 1e6, NULL,           \
    "search: wait between batches to search at most this many playouts a second; 0 = no limit")  \
  X(syzygy_fast_play, bool, BOOL, "SyzygyFastPlay", "syzygy-fast-play", NULL, 0, 0, 1, NULL,      \
    "tablebases: at the root, rank every win by DTZ alone (the fastest conversion), not all "     \
    "certain wins alike")

#endif /* CF_SEARCH_PARAMS_LC0_H */
