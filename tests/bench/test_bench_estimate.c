/* test_bench_estimate.c: the run-time estimate of `cformer bench
 * --backend all` (tools/bench/bench_estimate.h) from a probe made up here:
 * the call-time line, each stage's share, the text form. */
#include "tests/cf_test.h"
#include "tools/bench/bench_estimate.h"

static void test_call_line(cf_test *t) {
  bench_probe p = {.create = 0.5, .call_1 = 0.01, .call_max = 0.17, .max_batch = 17};
  CHECK_NEAR(bench_estimate_call(&p, 1), 0.01, 1e-12);
  CHECK_NEAR(bench_estimate_call(&p, 17), 0.17, 1e-12);
  CHECK_NEAR(bench_estimate_call(&p, 9), 0.09, 1e-12);
  /* a batch that came out faster than batch 1 never makes a call cheaper */
  bench_probe odd = {.call_1 = 0.02, .call_max = 0.01, .max_batch = 8};
  CHECK_NEAR(bench_estimate_call(&odd, 4), 0.02, 1e-12);
}

static void test_stages(cf_test *t) {
  bench_probe p = {.create = 1, .call_1 = 0.01, .call_max = 0.08, .max_batch = 8};
  const int batches[] = {1, 8};
  bench_plan plan = {.positions = 9, .mean_legal = 20, .max_batch = 8, .min_calls = 3};
  CHECK_NEAR(bench_estimate_backend(&plan, &p), 1.0, 1e-9); /* only the net's creation */
  plan.policy = true; /* 10 moves (one the warm-up) of one call at batch 1 */
  CHECK_NEAR(bench_estimate_backend(&plan, &p), 1.0 + 10 * 0.01, 1e-9);
  plan.policy = false;
  plan.value = true; /* 10 x (the root + 20 children in 3 passes of 7) */
  CHECK_NEAR(bench_estimate_backend(&plan, &p), 1.0 + 10 * (0.01 + 3 * 0.07), 1e-9);
  plan.value = false;
  plan.search = true; /* 10 x 24 visits in minibatches of 4 */
  plan.search_nodes = 24;
  plan.minibatch = 4;
  CHECK_NEAR(bench_estimate_backend(&plan, &p), 1.0 + 10 * 6 * 0.04, 1e-9);
  plan.search = false;
  plan.batches = batches; /* per size: a warm call, then 3 calls or min_time */
  plan.n_batches = 2;
  CHECK_NEAR(bench_estimate_backend(&plan, &p), 1.0 + 4 * 0.01 + 4 * 0.08, 1e-9);
  plan.min_time = 0.5;
  CHECK_NEAR(bench_estimate_backend(&plan, &p), 1.0 + 0.01 + 0.51 + 0.08 + 0.58, 1e-9);
}

static void test_text(cf_test *t) {
  char s[32];
  bench_estimate_text(0.2, s, sizeof s);
  CHECK_STR_EQ(s, "0m01s");
  bench_estimate_text(42.4, s, sizeof s);
  CHECK_STR_EQ(s, "0m42s");
  bench_estimate_text(200, s, sizeof s);
  CHECK_STR_EQ(s, "3m20s");
  bench_estimate_text(7170, s, sizeof s);
  CHECK_STR_EQ(s, "2h00m");
  bench_estimate_text(3600 + 5 * 60, s, sizeof s);
  CHECK_STR_EQ(s, "1h05m");
}

CF_TEST_MAIN(test_call_line, test_stages, test_text)
