/* test_temperature.c: Lc0's temperature (engine/cf_temperature.h): the
 * schedule over the game, the weights against their formula computed here
 * by hand, and the draws' frequencies against the weights. */
#include <math.h>
#include <string.h>

#include "engine/cf_temperature.h"
#include "tests/cf_test.h"

static void test_schedule(cf_test *t) {
  cf_temperature_params p = {.temperature = 1.0f, .value_cutoff = 100};
  CHECK_NEAR(cf_temperature_at(&p, 0), 1.0, 1e-7);
  CHECK_NEAR(cf_temperature_at(&p, 200), 1.0, 1e-7); /* no decay: constant */
  /* decay over 10 moves after a delay of 4: move = ply / 2 */
  p.decay_moves = 10;
  p.decay_delay_moves = 4;
  CHECK_NEAR(cf_temperature_at(&p, 2 * 4 + 1), 1.0, 1e-7);      /* move 4: (4 + 10 - 4) / 10 */
  CHECK_NEAR(cf_temperature_at(&p, 2 * 7), 0.7, 1e-6);          /* move 7: (14 - 7) / 10 */
  CHECK_NEAR(cf_temperature_at(&p, 2 * 13 + 1), 0.1, 1e-6);     /* move 13 */
  CHECK_NEAR(cf_temperature_at(&p, 2 * 14), 0.0, 1e-7);         /* move 14: done */
  p.endgame = 0.25f; /* the floor of the decay */
  CHECK_NEAR(cf_temperature_at(&p, 2 * 13), 0.25, 1e-6);
  CHECK_NEAR(cf_temperature_at(&p, 2 * 20), 0.25, 1e-6);
  /* the cutoff move: from move number 30 (move index 29) on, TempEndgame */
  p.cutoff_move = 30;
  p.endgame = 0.5f;
  p.decay_moves = 0;
  CHECK_NEAR(cf_temperature_at(&p, 2 * 28), 1.0, 1e-7);
  CHECK_NEAR(cf_temperature_at(&p, 2 * 29), 0.5, 1e-7);
  /* Temperature 0 stays 0 without a cutoff */
  cf_temperature_params zero = {.value_cutoff = 100};
  CHECK_NEAR(cf_temperature_at(&zero, 10), 0.0, 1e-9);
}

static void test_weights(cf_test *t) {
  const cf_temperature_move m[4] = {
      {.n = 40, .p = 0.5f, .q = 0.10f},
      {.n = 10, .p = 0.2f, .q = 0.30f},
      {.n = 2, .p = 0.2f, .q = -0.50f},
      {.n = 0, .p = 0.1f, .q = -0.20f},
  };
  double w[4];
  /* (N / max N)^(1/T) */
  double sum = cf_temperature_weights(m, 4, 2.0f, 0, 100, w);
  CHECK_NEAR(w[0], 1.0, 1e-12);
  CHECK_NEAR(w[1], sqrt(10.0 / 40), 1e-7);
  CHECK_NEAR(w[2], sqrt(2.0 / 40), 1e-7);
  CHECK_NEAR(w[3], 0.0, 1e-12);
  CHECK_NEAR(sum, w[0] + w[1] + w[2], 1e-12);
  /* the visit offset: ((N + o) / (max N + o))^(1/T); below 0 is 0 */
  cf_temperature_weights(m, 4, 0.5f, -5, 100, w);
  CHECK_NEAR(w[1], pow(5.0 / 35, 2.0), 1e-7);
  CHECK_NEAR(w[2], 0.0, 1e-12);
  /* the value cutoff: more than 20 / 50 = 0.4 below the most visited move's
   * Q (0.10) is out: the move at -0.50 */
  cf_temperature_weights(m, 4, 1.0f, 0, 20, w);
  CHECK_NEAR(w[2], 0.0, 1e-12);
  CHECK_NEAR(w[1], 0.25, 1e-7);
  /* nothing visited: the priors, P^(1/T), no value cut */
  const cf_temperature_move fresh[3] = {{.p = 0.6f, .q = 0}, {.p = 0.3f, .q = -0.9f}, {.p = 0.1f, .q = 0}};
  sum = cf_temperature_weights(fresh, 3, 0.5f, 0, 0, w);
  CHECK_NEAR(w[0], 0.36, 1e-6);
  CHECK_NEAR(w[1], 0.09, 1e-6);
  CHECK_NEAR(sum, 0.36 + 0.09 + 0.01, 1e-6);
  /* an offset that leaves no move a positive count: the priors, as in Lc0's
   * code (its help says no temperature is used; its code draws by prior) */
  cf_temperature_weights(m, 4, 1.0f, -1000, 100, w);
  CHECK_NEAR(w[0], 0.5, 1e-6);
  CHECK_NEAR(w[3], 0.1, 1e-6);
  CHECK_INT_EQ(cf_temperature_pick(m, 4, 1.0f, -1000, 100, 0.99), 3);
  /* nothing with a weight: nothing to draw (the best move is played) */
  const cf_temperature_move none[2] = {{.p = 0}, {.p = 0}};
  CHECK_INT_EQ(cf_temperature_pick(none, 2, 1.0f, 0, 100, 0.5), -1);
  CHECK_INT_EQ(cf_temperature_pick(m, 4, 0.0f, 0, 100, 0.5), -1);
}

/* 200000 draws at T = 1 and T = 0.5: each move's share within 0.005 of its
 * weight's share (the generator is seeded, so this is not flaky). */
static void test_draws(cf_test *t) {
  const cf_temperature_move m[5] = {
      {.n = 50, .p = 0.4f, .q = 0.1f}, {.n = 30, .p = 0.2f, .q = 0.0f}, {.n = 15, .p = 0.2f, .q = 0.0f},
      {.n = 5, .p = 0.1f, .q = 0.0f},  {.n = 0, .p = 0.1f, .q = 0.0f},
  };
  const float temps[2] = {1.0f, 0.5f};
  for (int k = 0; k < 2; k++) {
    double w[5];
    const double sum = cf_temperature_weights(m, 5, temps[k], 0, 100, w);
    long hits[5] = {0};
    uint64_t rng = 42;
    const long draws = 200000;
    for (long i = 0; i < draws; i++) {
      const int pick = cf_temperature_pick(m, 5, temps[k], 0, 100, cf_temperature_toss(&rng));
      if (pick >= 0 && pick < 5) hits[pick]++;
    }
    for (int i = 0; i < 5; i++) CHECK_NEAR((double)hits[i] / draws, w[i] / sum, 0.005);
    CHECK_INT_EQ(hits[4], 0);
  }
  /* the same seed, the same tosses */
  uint64_t a = 7, b = 7;
  for (int i = 0; i < 100; i++) CHECK(cf_temperature_toss(&a) == cf_temperature_toss(&b));
  double x = cf_temperature_toss(&a);
  CHECK(x >= 0 && x < 1);
}

CF_TEST_MAIN(test_schedule, test_weights, test_draws)
