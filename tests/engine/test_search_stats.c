/* test_search_stats.c: every stop rule and the pace rules as pure
 * functions of hand-made stats snapshots (engine/search/cf_search_stats.h):
 * no tree, no network, no search. Each case changes one value of a
 * snapshot on which the rule is just off (or on). */
#include <math.h>

#include "engine/search/cf_search_stats.h"
#include "tests/cf_test.h"

/* A root with two moves, evaluated, unproven; no limit, no run yet. */
static cf_search_stats base(void) {
  return (cf_search_stats){.root_expanded = true, .root_proven = 2, .n_moves = 2, .now = 1.0};
}

static void test_flag(cf_test *t) {
  cf_search_stats st = base();
  CHECK(!cf_rule_flag(&st));
  st.stop_flag = true;
  CHECK(cf_rule_flag(&st));
  st.root_expanded = false; /* no move to answer with yet */
  CHECK(!cf_rule_flag(&st));
}

static void test_deadline(cf_test *t) {
  cf_search_stats st = base();
  st.now = 10.0;
  CHECK(!cf_rule_deadline(&st)); /* no deadline */
  st.deadline = 10.0;
  CHECK(cf_rule_deadline(&st));
  st.now = 9.999;
  CHECK(!cf_rule_deadline(&st));
  st.now = 11.0;
  st.owe_batch = true; /* one_minibatch: the owed batch comes first */
  CHECK(!cf_rule_deadline(&st));
  st.owe_batch = false;
  st.root_expanded = false;
  CHECK(!cf_rule_deadline(&st));
}

static void test_visits(cf_test *t) {
  cf_search_stats st = base();
  st.root_n = 1000;
  CHECK(!cf_rule_visits(&st)); /* no limit */
  st.visits_limit = 1001;
  CHECK(!cf_rule_visits(&st));
  st.root_n = 1001;
  CHECK(cf_rule_visits(&st));
  st.root_expanded = false; /* the node limit does not wait for a move */
  CHECK(cf_rule_visits(&st));
}

static void test_depth(cf_test *t) {
  cf_search_stats st = base();
  st.depth_limit = 3;
  CHECK(!cf_rule_depth(&st)); /* no playouts yet */
  st.playouts = 10;
  st.cum_depth = 29;
  CHECK(!cf_rule_depth(&st));
  st.cum_depth = 30;
  CHECK(cf_rule_depth(&st));
  st.depth_limit = 0;
  CHECK(!cf_rule_depth(&st));
}

static void test_ram(cf_test *t) {
  cf_search_stats st = base();
  st.tree_bytes = (size_t)1 << 30;
  CHECK(!cf_rule_ram(&st)); /* RamLimitMb 0: no limit */
  st.ram_limit_mb = 2;
  st.tree_bytes = 2 * 1048576 - 1;
  CHECK(!cf_rule_ram(&st));
  st.tree_bytes = 2 * 1048576;
  CHECK(cf_rule_ram(&st));
  st.root_expanded = false;
  CHECK(!cf_rule_ram(&st));
}

static void test_mate(cf_test *t) {
  cf_search_stats st = base();
  st.best_mate = 3;
  CHECK(!cf_rule_mate(&st)); /* no go mate */
  st.mate_limit = 2;
  CHECK(!cf_rule_mate(&st)); /* mate in 3 is too long */
  st.mate_limit = 3;
  CHECK(cf_rule_mate(&st));
  st.best_mate = -2; /* mated: not an answer to go mate */
  CHECK(!cf_rule_mate(&st));
  st.best_mate = 0;
  CHECK(!cf_rule_mate(&st));
}

/* Smart pruning with a node limit: 101 root visits of 110, the best move
 * 100 ahead of the second, a speed known for a second. */
static cf_search_stats pruning(void) {
  cf_search_stats st = base();
  st.smart_pruning_factor = 1.33f;
  st.visits_limit = 110;
  st.root_n = 101;
  st.first_n = 100;
  st.second_n = 0;
  st.first_eval_time = 1.0;
  st.now = 2.0;
  return st;
}

static void test_smart_pruning(cf_test *t) {
  cf_search_stats st = pruning();
  CHECK(cf_rule_smart_pruning(&st)); /* 9 / 1.33 visits left cannot make up 100 */
  st.second_n = 95;
  CHECK(!cf_rule_smart_pruning(&st)); /* 6.8 left can make up 5 */
  st = pruning();
  st.smart_pruning_factor = 0; /* off */
  CHECK(!cf_rule_smart_pruning(&st));
  st = pruning();
  st.infinite = true;
  CHECK(!cf_rule_smart_pruning(&st));
  st = pruning();
  st.root_expanded = false;
  CHECK(!cf_rule_smart_pruning(&st));
  /* SmartPruningMinimumBatches. */
  st = pruning();
  st.smart_pruning_minimum_batches = 5;
  st.batches = 4;
  CHECK(!cf_rule_smart_pruning(&st));
  st.batches = 5;
  CHECK(cf_rule_smart_pruning(&st));
  /* Before the speed is trusted: not by the gap, but a single move, all
   * others lost, or a forced win end it at once. */
  st = pruning();
  st.now = 1.1;
  CHECK(!cf_rule_smart_pruning(&st));
  st.first_eval_time = 0;
  st.now = 2.0;
  CHECK(!cf_rule_smart_pruning(&st));
  st.n_moves = 1;
  CHECK(cf_rule_smart_pruning(&st));
  st.n_moves = 3;
  st.n_losing = 2;
  CHECK(cf_rule_smart_pruning(&st));
  st.n_losing = 0;
  st.forced_win = true;
  CHECK(cf_rule_smart_pruning(&st));
  /* By time: 10 s left at (0 + 300) playouts a second, / 1.33 = 2256 left. */
  st = pruning();
  st.visits_limit = 0;
  st.deadline = 12.0;
  st.first_n = 2300;
  CHECK(cf_rule_smart_pruning(&st));
  st.first_n = 2200;
  CHECK(!cf_rule_smart_pruning(&st));
}

static void test_proof(cf_test *t) {
  cf_search_stats st = base();
  CHECK(!cf_rule_proof(&st));
  st.root_proven = 0; /* a proven draw */
  CHECK(cf_rule_proof(&st));
  st.root_expanded = false;
  CHECK(!cf_rule_proof(&st));
}

static void test_order(cf_test *t) {
  cf_search_stats st = base();
  CHECK_INT_EQ(cf_search_stop_of(&st), CF_STOP_NONE);
  st.root_proven = 1;
  CHECK_INT_EQ(cf_search_stop_of(&st), CF_STOP_SOLVED);
  st.smart_pruning_factor = 1;
  st.forced_win = true;
  CHECK_INT_EQ(cf_search_stop_of(&st), CF_STOP_PRUNED);
  st.mate_limit = 1;
  st.best_mate = 1;
  CHECK_INT_EQ(cf_search_stop_of(&st), CF_STOP_MATE);
  st.ram_limit_mb = 1;
  st.tree_bytes = 1048576;
  CHECK_INT_EQ(cf_search_stop_of(&st), CF_STOP_RAM);
  st.depth_limit = 1;
  st.playouts = st.cum_depth = 1;
  CHECK_INT_EQ(cf_search_stop_of(&st), CF_STOP_DEPTH);
  st.visits_limit = 1;
  st.root_n = 1;
  CHECK_INT_EQ(cf_search_stop_of(&st), CF_STOP_VISITS);
  st.deadline = 0.5;
  CHECK_INT_EQ(cf_search_stop_of(&st), CF_STOP_DEADLINE);
  st.stop_flag = true;
  CHECK_INT_EQ(cf_search_stop_of(&st), CF_STOP_FLAG);
}

static void test_batch_target(cf_test *t) {
  cf_search_stats st = base();
  st.now = 0;
  CHECK_INT_EQ(cf_pace_batch_target(&st, 32), 32);
  st.visits_limit = 10;
  st.root_n = 3;
  st.root_in_flight = 1;
  CHECK_INT_EQ(cf_pace_batch_target(&st, 32), 6); /* the visits left */
  st.root_n = 20;
  CHECK_INT_EQ(cf_pace_batch_target(&st, 32), 1); /* never less than one */
  /* A node-limited search keeps whole batches whatever the speed. */
  st = base();
  st.now = 0;
  st.sec_per_eval = 0.01;
  CHECK_INT_EQ(cf_pace_batch_target(&st, 32), 32);
  /* Timed: within the stop latency (0.1 s) and the time left. */
  st.deadline = 100;
  CHECK_INT_EQ(cf_pace_batch_target(&st, 32), 10);
  st.now = 99.95;
  CHECK_INT_EQ(cf_pace_batch_target(&st, 32), 4);
  st.now = 0;
  st.deadline = 0;
  st.infinite = true;
  CHECK_INT_EQ(cf_pace_batch_target(&st, 32), 10);
  /* Out of time before any batch was timed: one position. */
  st = base();
  st.deadline = 1.0;
  st.now = 2.0;
  CHECK_INT_EQ(cf_pace_batch_target(&st, 32), 1);
  st.now = 0.5;
  CHECK_INT_EQ(cf_pace_batch_target(&st, 32), 32);
  /* The owed batch: what the whole budget fits at the measured speed. */
  st = base();
  st.owe_batch = true;
  st.sec_per_eval = 0.1;
  st.start_time = 0;
  st.deadline = 1.0;
  st.now = 0.9;
  CHECK_INT_EQ(cf_pace_batch_target(&st, 32), 10);
  st.deadline = 0.01;
  CHECK_INT_EQ(cf_pace_batch_target(&st, 32), 1);
}

static void test_nps_wait(cf_test *t) {
  cf_search_stats st = base();
  st.playouts = 100;
  st.start_time = 10;
  st.now = 11;
  CHECK(cf_pace_nps_wait(&st) == 0); /* no limit */
  st.nps_limit = 50;
  /* 100 playouts at 50 a second take 2 s; 1 s has passed since the start. */
  CHECK_NEAR(cf_pace_nps_wait(&st), 1.0, 1e-9);
  /* Counted from the first evaluation once there is one. */
  st.first_eval_time = 10.5;
  CHECK_NEAR(cf_pace_nps_wait(&st), 1.5, 1e-9);
  st.now = 13;
  CHECK(cf_pace_nps_wait(&st) == 0);
}

CF_TEST_MAIN(test_flag, test_deadline, test_visits, test_depth, test_ram, test_mate,
             test_smart_pruning, test_proof, test_order, test_batch_target, test_nps_wait)
