/* test_search_lc0_options.c: Lc0's further search options (rows of
 * cf_search_params_lc0.h), each against values worked out here, not read
 * from the engine:
 *   - every row has Lc0's name, default and range;
 *   - the root's own CPuct parameters and first-play urgency;
 *   - the moves-left utility (Lc0's formula written out again below, and
 *     hand-computed cases) and its effect on selection;
 *   - MaxCollisionVisits and its scaling, MaxCollisionEvents;
 *   - NodesPerSecondLimit's wait, SmartPruningMinimumBatches;
 *   - CacheHistoryLength: which transpositions share an NN cache entry;
 *   - StickyEndgames on a real search (built-in network): a mate proves
 *     the root only when on;
 *   - the moves-left utility in a real search, on a random network with a
 *     moves-left head: it changes where the visits go, and on one without
 *     the head it changes nothing. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chess/cf_fen.h"
#include "engine/cf_engine_weights.h"
#include "engine/cf_net_input.h"
#include "engine/search/cf_search_internal.h"
#include "engine/uci/cf_uci_options.h"
#include "tests/cf_test.h"
#include "tests/weights/weights_test_util.h"

/* ---- the rows ------------------------------------------------------------ */

typedef struct lc0_row {
  const char *name;
  double def, min, max;
} lc0_row;

/* Lc0's values (src/search/classic/params.cc and the stoppers' options),
 * but for CacheHistoryLength's default, where cformer keeps the exact key. */
static const lc0_row lc0_rows[] = {
    {"CPuctAtRoot", 1.745, 0, 100},
    {"CPuctBaseAtRoot", 38739, 1, 1e9},
    {"CPuctFactorAtRoot", 3.894, 0, 1000},
    {"RootHasOwnCpuctParams", 0, 0, 1},
    {"FpuStrategyAtRoot", 2, 0, 2}, /* "same", the third choice */
    {"FpuValueAtRoot", 1.0, -100, 100},
    {"MovesLeftMaxEffect", 0.0345, 0, 1},
    {"MovesLeftThreshold", 0.8, 0, 1},
    {"MovesLeftSlope", 0.0027, 0, 1},
    {"MovesLeftConstantFactor", 0, -1, 1},
    {"MovesLeftScaledFactor", 1.6521, -2, 2},
    {"MovesLeftQuadraticFactor", -0.6521, -1, 1},
    {"StickyEndgames", 1, 0, 1},
    {"CacheHistoryLength", 7, 0, 7}, /* cformer's default (Lc0's is 0): the exact key */
    {"MaxCollisionEvents", 917, 1, 65536},
    {"MaxCollisionVisits", 80000, 1, 100000000},
    {"MaxCollisionVisitsScalingStart", 28, 1, 100000},
    {"MaxCollisionVisitsScalingEnd", 145000, 0, 100000000},
    {"MaxCollisionVisitsScalingPower", 1.25, 0.01, 100},
    {"OutOfOrderEval", 1, 0, 1},
    {"MaxOutOfOrderEvalsFactor", 2.4, 0, 100},
    {"MaxPrefetch", 32, 0, 1024},
    {"SmartPruningMinimumBatches", 0, 0, 10000},
    {"NodesPerSecondLimit", 0, 0, 1e6},
    {"SyzygyFastPlay", 0, 0, 1},
};

static const cf_search_param *row_named(const char *name) {
  for (int i = 0; i < CF_SEARCH_OPTION_COUNT; i++)
    if (strcmp(cf_search_param_at(i)->name, name) == 0) return cf_search_param_at(i);
  return NULL;
}

static void test_rows_are_lc0s(cf_test *t) {
  cf_search_params p;
  cf_search_params_default(&p);
  for (size_t i = 0; i < sizeof lc0_rows / sizeof lc0_rows[0]; i++) {
    const lc0_row *want = &lc0_rows[i];
    const cf_search_param *r = row_named(want->name);
    if (!CHECK(r != NULL)) {
      fprintf(stderr, "  no option %s\n", want->name);
      continue;
    }
    if (!CHECK(fabs(r->def - want->def) < 1e-9 && r->min == want->min && r->max == want->max))
      fprintf(stderr, "  %s: %g in [%g, %g], Lc0 %g in [%g, %g]\n", want->name, r->def, r->min,
              r->max, want->def, want->min, want->max);
    CHECK_NEAR(r->get(&p), want->def, 1e-6); /* the struct's default too */
  }
  const cf_search_param *fpu = row_named("FpuStrategyAtRoot");
  if (CHECK(fpu && fpu->choices)) {
    CHECK(strcmp(fpu->choices[0], "reduction") == 0 && strcmp(fpu->choices[1], "absolute") == 0 &&
          strcmp(fpu->choices[2], "same") == 0 && !fpu->choices[3]);
  }
  /* The range check names the option and its range. */
  p.moves_left_slope = 2;
  cf_error err = {0};
  CHECK(cf_search_params_check(&p, &err) == CF_ERR_ARG);
  CHECK(strstr(err.msg, "MovesLeftSlope must be 0 to 1") != NULL);
}

/* ---- root parameters ------------------------------------------------------- */

static void test_root_cpuct(cf_test *t) {
  cf_search_params p;
  cf_search_params_default(&p);
  p.cpuct_at_root = 3.0f;
  p.cpuct_base_at_root = 100.0f;
  p.cpuct_factor_at_root = 2.0f;
  /* Off: the root takes CPuct, CPuctBase, CPuctFactor like every node. */
  const double everywhere = 1.745 + 3.894 * log((100.0 + 38739.0) / 38739.0);
  CHECK_NEAR(cf_search_cpuct(&p, 100, true), everywhere, 1e-5);
  CHECK_NEAR(cf_search_cpuct(&p, 100, false), everywhere, 1e-5);
  /* On: the root's own three, 3 + 2 ln((100 + 100) / 100); elsewhere unchanged. */
  p.root_has_own_cpuct_params = true;
  CHECK_NEAR(cf_search_cpuct(&p, 100, true), 3.0 + 2.0 * log(2.0), 1e-5);
  CHECK_NEAR(cf_search_cpuct(&p, 100, false), everywhere, 1e-5);
}

/* A node (root or not) whose side to move has Q 0.1, one visited child of
 * prior 0.5. */
typedef struct fpu_tree {
  cf_snode parent, node, kid;
  cf_sedge edges[2], up;
} fpu_tree;

static void fpu_build(fpu_tree *f, bool root) {
  memset(f, 0, sizeof *f);
  f->node.edges = f->edges;
  f->node.n_edges = 2;
  f->node.n = 2;
  f->node.wl = -0.1; /* from the mover into it: -0.1, so 0.1 to move */
  f->node.proven = CF_UNPROVEN;
  f->node.parent = root ? NULL : &f->parent;
  f->kid = (cf_snode){.parent = &f->node, .n = 1, .wl = 0.1, .proven = CF_UNPROVEN};
  f->edges[0] = (cf_sedge){.move = 1, .p = 0.5f, .child = &f->kid};
  f->edges[1] = (cf_sedge){.move = 2, .p = 0.5f};
}

static void test_root_fpu(cf_test *t) {
  cf_search_params p;
  cf_search_params_default(&p);
  fpu_tree root, inner;
  fpu_build(&root, true);
  fpu_build(&inner, false);
  const double reduced = 0.1 - 0.33 * sqrt(0.5);
  /* "same" (the default): the root as any node. */
  CHECK_NEAR(cf_search_fpu(&p, &root.node, 0), reduced, 1e-6);
  CHECK_NEAR(cf_search_fpu(&p, &inner.node, 0), reduced, 1e-6);
  p.fpu_absolute = true; /* same: absolute FpuValue at the root too */
  CHECK_NEAR(cf_search_fpu(&p, &root.node, 0), 0.33, 1e-6);
  p.fpu_absolute = false;
  /* absolute at the root: FpuValueAtRoot (1.0 by default) there only. */
  p.fpu_strategy_at_root = 1;
  CHECK_NEAR(cf_search_fpu(&p, &root.node, 0), 1.0, 1e-6);
  CHECK_NEAR(cf_search_fpu(&p, &inner.node, 0), reduced, 1e-6);
  /* reduction at the root by FpuValueAtRoot. */
  p.fpu_strategy_at_root = 0;
  p.fpu_value_at_root = 0.5f;
  CHECK_NEAR(cf_search_fpu(&p, &root.node, 0), 0.1 - 0.5 * sqrt(0.5), 1e-6);
  CHECK_NEAR(cf_search_fpu(&p, &inner.node, 0), reduced, 1e-6);
}

/* ---- moves-left utility ---------------------------------------------------- */

/* Lc0's MEvaluator::GetMUtility, written again from its description. */
static double m_utility(const cf_search_params *p, double parent_wl, double parent_m,
                        double child_m, unsigned child_n, double q) {
  if (child_n == 0 || !(fabs(parent_wl) > p->moves_left_threshold)) return 0;
  double m = p->moves_left_slope * (child_m - parent_m);
  if (m > p->moves_left_max_effect) m = p->moves_left_max_effect;
  if (m < -p->moves_left_max_effect) m = -p->moves_left_max_effect;
  m *= q > 0 ? -1.0 : 1.0;
  double x = q;
  const double th = p->moves_left_threshold;
  if (th > 0 && th < 1) x = (fabs(q) - th > 0 ? fabs(q) - th : 0) / (1 - th);
  return m * (p->moves_left_constant_factor + p->moves_left_scaled_factor * fabs(x) +
              p->moves_left_quadratic_factor * x * x);
}

static float utility(const cf_search_params *p, double parent_wl, float parent_m, float child_m,
                     uint32_t child_n, float q) {
  cf_snode parent = {.wl = parent_wl, .m = parent_m, .proven = CF_UNPROVEN};
  cf_snode child = {.parent = &parent, .m = child_m, .n = child_n, .proven = CF_UNPROVEN};
  return cf_search_moves_left_utility(p, &parent, &child, q);
}

static void test_moves_left_by_hand(cf_test *t) {
  cf_search_params p;
  cf_search_params_default(&p);
  /* Winning (Q 0.9), the move 10 plies shorter: 0.0027 * 10 = 0.027, times
   * 1.6521 * 0.5 - 0.6521 * 0.25 = 0.663025 ((0.9 - 0.8) / 0.2 = 0.5). */
  CHECK_NEAR(utility(&p, 0.9, 40, 30, 5, 0.9f), 0.027 * 0.663025, 1e-6);
  /* Losing by as much, the same shorter move: a penalty as large. */
  CHECK_NEAR(utility(&p, -0.9, 40, 30, 5, -0.9f), -0.027 * 0.663025, 1e-6);
  /* 40 plies shorter: 0.108, capped at MovesLeftMaxEffect 0.0345. */
  CHECK_NEAR(utility(&p, 0.9, 40, 0, 5, 0.9f), 0.0345 * 0.663025, 1e-6);
  /* Undecided parent (|0.5| <= 0.8), or an unvisited child: nothing. */
  CHECK(utility(&p, 0.5, 40, 30, 5, 0.9f) == 0.0f);
  CHECK(utility(&p, 0.9, 40, 30, 0, 0.9f) == 0.0f);
  /* Threshold 0: x is |Q| itself; constant factor 0.1: 0.027 * (0.1 +
   * 1.6521 * 0.6 - 0.6521 * 0.36). */
  p.moves_left_threshold = 0;
  p.moves_left_constant_factor = 0.1f;
  CHECK_NEAR(utility(&p, 0.6, 40, 30, 5, 0.6f), 0.027 * (0.1 + 1.6521 * 0.6 - 0.6521 * 0.36), 1e-6);
  /* Against the formula written out above, over a grid. */
  cf_search_params_default(&p);
  const float thresholds[] = {0, 0.3f, 0.8f, 1};
  for (size_t k = 0; k < 4; k++) {
    p.moves_left_threshold = thresholds[k];
    for (int a = -10; a <= 10; a++)
      for (int dm = -60; dm <= 60; dm += 7) {
        const float q = (float)a / 10.0f;
        const double want = m_utility(&p, q, 50, 50 + dm, 3, q);
        CHECK_NEAR(utility(&p, q, 50, 50.0f + (float)dm, 3, q), want, 1e-6);
      }
  }
}

/* Two moves equal in visits, prior and Q (0.9) at a won root: without the
 * utility the first is chosen (ties go first); with it, the shorter win. */
static void test_moves_left_steers_selection(cf_test *t) {
  cf_search_params p;
  cf_search_params_default(&p);
  cf_snode root = {.wl = -0.9, .m = 40, .n = 11, .proven = CF_UNPROVEN};
  cf_snode kids[2] = {{.parent = &root, .wl = 0.9, .m = 60, .n = 5, .proven = CF_UNPROVEN},
                      {.parent = &root, .wl = 0.9, .m = 20, .n = 5, .proven = CF_UNPROVEN,
                       .edge_index = 1}};
  cf_sedge edges[2] = {{.move = 1, .p = 0.5f, .child = &kids[0]},
                       {.move = 2, .p = 0.5f, .child = &kids[1]}};
  root.edges = edges;
  root.n_edges = 2;
  CHECK_INT_EQ(cf_search_select_full(&p, &root, 0, NULL, 0, false, NULL), 0);
  CHECK_INT_EQ(cf_search_select_full(&p, &root, 0, NULL, 0, true, NULL), 1);
  /* Losing instead (Q -0.9 for both): the longer loss. */
  root.wl = 0.9;
  kids[0].wl = kids[1].wl = -0.9;
  CHECK_INT_EQ(cf_search_select_full(&p, &root, 0, NULL, 0, true, NULL), 0);
  edges[0].child = &kids[1];
  edges[1].child = &kids[0];
  CHECK_INT_EQ(cf_search_select_full(&p, &root, 0, NULL, 0, true, NULL), 1);
}

/* ---- collisions ------------------------------------------------------------ */

static void test_collision_scaling(cf_test *t) {
  cf_search_params p;
  cf_search_params_default(&p);
  p.max_collision_visits = 1000;
  p.max_collision_visits_scaling_start = 100;
  p.max_collision_visits_scaling_end = 1100;
  p.max_collision_visits_scaling_power = 2;
  CHECK_INT_EQ(cf_search_collision_budget(&p, 50), 1);
  CHECK_INT_EQ(cf_search_collision_budget(&p, 100), 1);
  /* (500 / 1000)^2 = 0.25 of the way: 1 + 999 * 0.25 = 250.75, rounded. */
  CHECK_INT_EQ(cf_search_collision_budget(&p, 600), 251);
  CHECK_INT_EQ(cf_search_collision_budget(&p, 1100), 1000);
  CHECK_INT_EQ(cf_search_collision_budget(&p, 5000), 1000);
  /* An end of 0 turns the scaling off: the maximum at any size. */
  p.max_collision_visits_scaling_end = 0;
  CHECK_INT_EQ(cf_search_collision_budget(&p, 5), 1000);
}

static void test_collision_events(cf_test *t) {
  cf_search_params p;
  cf_search_params_default(&p);
  CHECK_INT_EQ(cf_search_max_collisions(&p, 32), 32); /* single visits: the batch size */
  p.max_collision_events = 10;
  CHECK_INT_EQ(cf_search_max_collisions(&p, 32), 10);
  p.fill_batches = true;
  CHECK_INT_EQ(cf_search_max_collisions(&p, 32), 10);
  p.max_collision_events = 917;
  CHECK_INT_EQ(cf_search_max_collisions(&p, 32), 917);
}

/* LcZeroGather: multi-visit collisions, and the batch's collision visits
 * are Lc0's scaled budget alone (fill_batches keeps 3 per leaf at least). */
static void test_lczero_gather(cf_test *t) {
  cf_search *s = NULL;
  if (!CHECK(cf_search_create(NULL, &s, NULL) == CF_OK)) return;
  cf_search_limits lim = {.visits = 0};
  s->root = cf_node_new(&s->pool, NULL, 0);
  if (CHECK(s->root != NULL)) {
    s->root->n = 10; /* below MaxCollisionVisitsScalingStart (28): a budget of 1 */
    s->limits = &lim;
    CHECK(!cf_search_fills_batches(&s->params));
    CHECK_INT_EQ(cf_search_max_collisions(&s->params, 8), 8);
    CHECK(cf_search_batch_collision_budget(s, 8) == LONG_MAX); /* the events bound it */
    s->params.fill_batches = true;
    CHECK_INT_EQ(cf_search_batch_collision_budget(s, 8), 24); /* the floor, 3 per leaf */
    s->params.fill_batches = false;
    s->params.lczero_gather = true;
    CHECK(cf_search_fills_batches(&s->params));
    CHECK_INT_EQ(cf_search_max_collisions(&s->params, 8), 917);
    CHECK_INT_EQ(cf_search_batch_collision_budget(s, 8), 1);
    s->root->n = 145000; /* MaxCollisionVisitsScalingEnd: the maximum */
    CHECK_INT_EQ(cf_search_batch_collision_budget(s, 8), 80000);
  }
  s->limits = NULL;
  cf_search_free(s);
}

/* ---- pace and stop --------------------------------------------------------- */

/* The stop rules read the search through this snapshot (the loop's). */
static const cf_search_stats *at(const cf_search *s, double now) {
  static cf_search_stats st;
  cf_search_stats_fill(s, now, &st);
  return &st;
}

static void test_smart_pruning_minimum_batches(cf_test *t) {
  cf_search *s = NULL;
  if (!CHECK(cf_search_create(NULL, &s, NULL) == CF_OK)) return;
  cf_search_limits lim = {.visits = 110};
  s->root = cf_node_new(&s->pool, NULL, 0);
  if (CHECK(s->root && cf_node_alloc_edges(&s->pool, s->root, 2))) {
    s->root->proven = CF_UNPROVEN;
    s->root->edges[0] = (cf_sedge){.move = 1, .p = 0.5f};
    s->root->edges[1] = (cf_sedge){.move = 2, .p = 0.5f};
    cf_snode *c = cf_node_new(&s->pool, s->root, 0);
    if (CHECK(c != NULL)) {
      c->proven = CF_UNPROVEN;
      c->n = 100;
      s->root->edges[0].child = c;
      s->root->n = 101;
      s->limits = &lim;
      s->first_eval_time = 1;
      /* 9 visits left cannot make up 100: smart pruning stops... */
      CHECK(cf_rule_smart_pruning(at(s, 2)));
      /* ...unless fewer batches than SmartPruningMinimumBatches ran. */
      s->params.smart_pruning_minimum_batches = 5;
      s->batches = 4;
      CHECK(!cf_rule_smart_pruning(at(s, 2)));
      s->batches = 5;
      CHECK(cf_rule_smart_pruning(at(s, 2)));
    }
  }
  s->limits = NULL;
  cf_search_free(s);
}

/* ---- the NN cache's key ---------------------------------------------------- */

static bool play(cf_test *t, cf_game *g, const char *const *moves, int n) {
  if (!CHECK(cf_game_init_fen(g, CF_FEN_STARTPOS, NULL) == CF_OK)) return false;
  for (int i = 0; i < n; i++)
    if (!CHECK(cf_game_push_uci(g, moves[i], NULL) == CF_OK)) return false;
  return true;
}

static void test_cache_history_length(cf_test *t) {
  /* The same position (rule-50 count 4 both ways) by two move orders. */
  static const char *const a[] = {"g1f3", "g8f6", "b1c3", "b8c6"};
  static const char *const b[] = {"b1c3", "b8c6", "g1f3", "g8f6"};
  cf_game ga, gb;
  const bool ok_a = play(t, &ga, a, 4), ok_b = play(t, &gb, b, 4);
  if (ok_a && ok_b) {
    /* 0: the position alone, so the transposition shares an entry. */
    CHECK(cf_search_cache_key(&ga, 0, NULL) == cf_search_cache_key(&gb, 0, NULL));
    /* 1 and more: the positions before it differ, so do the keys. */
    CHECK(cf_search_cache_key(&ga, 1, NULL) != cf_search_cache_key(&gb, 1, NULL));
    CHECK(cf_search_cache_key(&ga, 6, NULL) != cf_search_cache_key(&gb, 6, NULL));
    /* and a length is part of the key */
    CHECK(cf_search_cache_key(&ga, 0, NULL) != cf_search_cache_key(&ga, 1, NULL));
    /* 7 (the default): the network's input and the position, nothing else.
     * A format that reads the history (1, classical) sees the two move
     * orders; the same input for both (a format that reads only the
     * current board) gives one key whatever the game before it. */
    cf_net_position na, nb;
    cf_planes pa, pb;
    cf_engine_net_position(&ga, 1, &na);
    cf_engine_net_position(&gb, 1, &nb);
    cf_net_encode_planes(&na, CF_HISTORY_FILL_FEN_ONLY, &pa);
    cf_net_encode_planes(&nb, CF_HISTORY_FILL_FEN_ONLY, &pb);
    CHECK(memcmp(&pa, &pb, sizeof pa) != 0);
    CHECK(cf_search_cache_key(&ga, 7, &pa) != cf_search_cache_key(&gb, 7, &pb));
    CHECK(cf_search_cache_key(&ga, 7, &pa) == cf_search_cache_key(&gb, 7, &pa));
    CHECK(cf_search_cache_key(&ga, 7, &pa) == cf_search_cache_key(&ga, 7, &pa));
  }
  if (ok_a) cf_game_free(&ga);
  if (ok_b) cf_game_free(&gb);
  /* The same position with rule-50 counts 2 and 0 (the pawn moved first or
   * last): at 0 Lc0's classic search keys the position and its
   * repetitions alone, so these share an entry too. */
  static const char *const c[] = {"e2e3", "g8f6", "g1f3"};
  static const char *const d[] = {"g1f3", "g8f6", "e2e3"};
  const bool ok_c = play(t, &ga, c, 3), ok_d = play(t, &gb, d, 3);
  if (ok_c && ok_d) {
    CHECK_INT_EQ(cf_game_position(&ga)->rule50, 2);
    CHECK_INT_EQ(cf_game_position(&gb)->rule50, 0);
    CHECK(cf_search_cache_key(&ga, 0, NULL) == cf_search_cache_key(&gb, 0, NULL));
  }
  if (ok_c) cf_game_free(&ga);
  if (ok_d) cf_game_free(&gb);
}

/* ---- StickyEndgames on a real search --------------------------------------- */

#define MATE_IN_ONE "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"

/* After a search of `visits` on the mate in one: the root's proof, and
 * whether the mating move (h5f7) is proven won. */
static int root_proof(cf_test *t, cf_net *net, bool sticky, bool *mate_proven) {
  cf_search_params p;
  cf_search_params_default(&p);
  p.sticky_endgames = sticky;
  p.smart_pruning_factor = 0;
  p.minibatch_size = 8;
  cf_search *s = NULL;
  cf_game g;
  int proof = -99;
  *mate_proven = false;
  if (!CHECK(cf_search_create(&p, &s, NULL) == CF_OK)) return proof;
  if (CHECK(cf_game_init_fen(&g, MATE_IN_ONE, NULL) == CF_OK)) {
    cf_search_limits lim = {.visits = 200};
    cf_search_result res;
    if (CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, &res, NULL) == CF_OK)) {
      proof = s->root->proven;
      for (int i = 0; i < s->root->n_edges; i++) {
        const cf_snode *c = s->root->edges[i].child;
        if (c && c->proven == 1 && c->proven_plies == 0) *mate_proven = true;
      }
    }
    cf_game_free(&g);
  }
  cf_search_free(s);
  return proof;
}

static void test_sticky_endgames(cf_test *t) {
  cf_engine_weights_spec spec = {.weights = CF_WEIGHTS_BUILT_IN, .net = {.max_batch = 8}};
  cf_net *net = NULL;
  cf_engine_weights_info info;
  cf_error err = {0};
  if (!CHECK(cf_engine_load_net(&spec, &net, &info, &err) == CF_OK)) {
    fprintf(stderr, "%s\n", err.msg);
    return;
  }
  bool mate = false;
  /* On: the mate proves the root won for White (lost for the mover into it). */
  CHECK_INT_EQ(root_proof(t, net, true, &mate), -1);
  CHECK(mate);
  /* Off: the mate itself is proven, the root is not. */
  CHECK_INT_EQ(root_proof(t, net, false, &mate), CF_UNPROVEN);
  CHECK(mate);
  cf_net_free(net);
}

/* ---- the moves-left utility in a real search ------------------------------ */

/* The root's visits per move after 64 visits of the start position, with
 * the moves-left bonus at its largest (threshold 0, so it applies
 * everywhere) or off (MovesLeftMaxEffect 0). *shown: how many root moves'
 * statistics show a moves-left utility (VerboseMoveStats' S counts it, as
 * Lc0's), each checked against the formula written out above. */
static void root_visits(cf_test *t, cf_net *net, bool bonus, uint32_t out[CF_MAX_MOVES],
                        int *shown) {
  cf_search_params p;
  cf_search_params_default(&p);
  p.smart_pruning_factor = 0;
  p.minibatch_size = 4;
  p.moves_left_threshold = 0;
  p.moves_left_slope = 1;
  p.moves_left_max_effect = bonus ? 1.0f : 0.0f;
  p.moves_left_constant_factor = 1;
  cf_search *s = NULL;
  cf_game g;
  memset(out, 0, CF_MAX_MOVES * sizeof out[0]);
  if (!CHECK(cf_search_create(&p, &s, NULL) == CF_OK)) return;
  if (CHECK(cf_game_init_fen(&g, CF_FEN_STARTPOS, NULL) == CF_OK)) {
    cf_search_limits lim = {.visits = 64};
    cf_search_result res;
    if (CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, &res, NULL) == CF_OK)) {
      for (int i = 0; i < s->root->n_edges; i++)
        out[i] = s->root->edges[i].child ? s->root->edges[i].child->n : 0;
      cf_search_move_stats stats[CF_MAX_MOVES], root;
      int n_moves = 0;
      const int n = cf_search_root_stats(s, stats, CF_MAX_MOVES);
      *shown = 0;
      if (CHECK(cf_search_root_node_stats(s, &root, &n_moves)))
        for (int k = 0; k < n; k++) {
          const cf_search_move_stats *m = &stats[k];
          const double want = !cf_net_get_info(net)->has_moves_left
                                  ? 0
                                  : m_utility(&p, root.wl, root.m, m->m, m->n, m->q);
          CHECK_NEAR(m->m_utility, want, 1e-6);
          if (m->m_utility != 0.0f) ++*shown;
        }
    }
    cf_game_free(&g);
  }
  cf_search_free(s);
}

static bool visits_differ(cf_test *t, int cm) {
  cf_test_shape sh = {.layers = 1, .d = 8, .heads = 2, .dff = 8, .rpe = true, .rms = true,
                      .input_format = 4, .cv = 2, .cm = cm, .seed = 5};
  cf_error err = {0};
  cf_weights *w = cf_test_random_net(&sh, &err);
  cf_net *net = NULL;
  if (!CHECK(w != NULL)) return false;
  const cf_net_options opts = {.backend = "ref", .max_batch = 4};
  const bool made = CHECK(cf_net_create(w, &opts, &net, &err) == CF_OK);
  cf_weights_free(w);
  if (!made) {
    fprintf(stderr, "  %s\n", err.msg);
    return false;
  }
  CHECK(cf_net_get_info(net)->has_moves_left == (cm >= 0));
  uint32_t off[CF_MAX_MOVES], on[CF_MAX_MOVES];
  int shown_off = -1, shown_on = -1;
  root_visits(t, net, false, off, &shown_off);
  root_visits(t, net, true, on, &shown_on);
  cf_net_free(net);
  CHECK_INT_EQ(shown_off, 0);
  /* with the head, the visited moves show their utility */
  CHECK(cm >= 0 ? shown_on > 0 : shown_on == 0);
  return memcmp(off, on, sizeof off) != 0;
}

static void test_moves_left_in_search(cf_test *t) {
  CHECK(visits_differ(t, 2));   /* with the head: the bonus moves visits */
  CHECK(!visits_differ(t, -1)); /* without: accepted, no effect */
}

CF_TEST_MAIN(test_rows_are_lc0s, test_root_cpuct, test_root_fpu, test_moves_left_by_hand,
             test_moves_left_steers_selection, test_collision_scaling, test_collision_events,
             test_lczero_gather,
             test_smart_pruning_minimum_batches, test_cache_history_length,
             test_sticky_endgames, test_moves_left_in_search)
