/* test_policy_head.c: the 1858 policy order, the attention slots, square
 * transforms, move -> index and the temperature softmax. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy_head/cf_policy_head.h"
#include "policy_head/cf_policy_map.h"
#include "policy_head/cf_policy_move.h"
#include "tests/cf_test.h"

static int sq(const char *s) { return (s[1] - '1') * 8 + (s[0] - 'a'); }

/* The generated order equals data/policy_index_1858.txt. */
static void test_1858_order_matches_file(cf_test *t) {
  char path[1024], line[32], buf[6];
  snprintf(path, sizeof path, "%s/policy_index_1858.txt", cf_test_data_dir());
  FILE *f = fopen(path, "r");
  if (!CHECK(f != NULL)) return;
  int n = 0, mismatches = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    const char *mine = cf_policy_index_uci(n, buf);
    if (!mine || strcmp(mine, line) != 0) {
      if (mismatches++ < 5)
        fprintf(stderr, "entry %d: file %s, generated %s\n", n, line, mine ? mine : "(none)");
    }
    n++;
  }
  fclose(f);
  CHECK_INT_EQ(n, CF_POLICY_1858);
  CHECK_INT_EQ(mismatches, 0);
  CHECK(cf_policy_index_uci(-1, buf) == NULL);
  CHECK(cf_policy_index_uci(CF_POLICY_1858, buf) == NULL);
}

/* Every 1858 entry has exactly one attention slot, and back. */
static void test_attention_slots(cf_test *t) {
  int hits[CF_POLICY_1858] = {0}, mapped = 0;
  for (int a = 0; a < CF_POLICY_4288; a++) {
    int i = cf_policy_1858_of_attention(a);
    if (i < 0) continue;
    mapped++;
    if (CHECK(i < CF_POLICY_1858)) hits[i]++;
  }
  CHECK_INT_EQ(mapped, CF_POLICY_1858);
  int once = 0;
  for (int i = 0; i < CF_POLICY_1858; i++) once += hits[i] == 1;
  CHECK_INT_EQ(once, CF_POLICY_1858);
  /* knight promotions use the plain from-to slot; q/r/b their own */
  CHECK_INT_EQ(cf_policy_attention_index(sq("a7"), sq("a8"), CF_PROMO_KNIGHT),
               sq("a7") * 64 + sq("a8"));
  CHECK_INT_EQ(cf_policy_attention_index(sq("b7"), sq("c8"), CF_PROMO_ROOK),
               4096 + 1 * 24 + 2 * 3 + 1);
  CHECK_INT_EQ(cf_policy_attention_index(sq("b6"), sq("c8"), CF_PROMO_ROOK), -1);
  char buf[6];
  CHECK_STR_EQ(cf_policy_index_uci(cf_policy_index(sq("b7"), sq("c8"), CF_PROMO_BISHOP), buf),
               "b7c8b");
  CHECK_STR_EQ(cf_policy_index_uci(cf_policy_index(sq("g1"), sq("f3"), CF_PROMO_NONE), buf),
               "g1f3");
  CHECK_STR_EQ(cf_policy_index_uci(cf_policy_index(sq("a1"), sq("b3"), CF_PROMO_NONE), buf),
               "a1b3");
  CHECK_INT_EQ(cf_policy_index(sq("a1"), sq("c4"), CF_PROMO_NONE), -1); /* no piece moves so */
  CHECK_INT_EQ(cf_policy_index(sq("a1"), sq("a1"), CF_PROMO_NONE), -1);
}

static void test_square_transforms(cf_test *t) {
  for (int s = 0; s < 64; s++)
    for (int tr = 0; tr < 8; tr++) {
      int u = cf_square_transform(s, tr);
      CHECK(u >= 0 && u < 64);
    }
  int involutions = 0;
  for (int s = 0; s < 64; s++)
    for (int tr = 1; tr <= 4; tr <<= 1)
      involutions += cf_square_transform(cf_square_transform(s, tr), tr) == s;
  CHECK_INT_EQ(involutions, 64 * 3);
  CHECK_INT_EQ(cf_square_transform(sq("b3"), CF_TRANSFORM_FLIP), sq("g3"));
  CHECK_INT_EQ(cf_square_transform(sq("b3"), CF_TRANSFORM_MIRROR), sq("b6"));
  /* the a8-h1 anti-diagonal is fixed; g1 <-> h2, f4 <-> e3 */
  const char *diag[] = {"a8", "b7", "c6", "d5", "e4", "f3", "g2", "h1"};
  for (int i = 0; i < 8; i++)
    CHECK_INT_EQ(cf_square_transform(sq(diag[i]), CF_TRANSFORM_TRANSPOSE), sq(diag[i]));
  CHECK_INT_EQ(cf_square_transform(sq("g1"), CF_TRANSFORM_TRANSPOSE), sq("h2"));
  CHECK_INT_EQ(cf_square_transform(sq("f4"), CF_TRANSFORM_TRANSPOSE), sq("e3"));
  /* order: flip, then mirror, then transpose: b1 -> g1 -> g8 -> a2 */
  CHECK_INT_EQ(cf_square_transform(sq("b1"), 7), sq("a2"));
  CHECK_INT_EQ(cf_policy_square(sq("e7"), true, 0), sq("e2"));
}

static void test_move_index(cf_test *t) {
  char buf[6];
  cf_policy_move e2e4 = {(uint8_t)sq("e2"), (uint8_t)sq("e4"), CF_PROMO_NONE};
  cf_policy_move e7e5 = {(uint8_t)sq("e7"), (uint8_t)sq("e5"), CF_PROMO_NONE};
  cf_policy_move oo = {(uint8_t)sq("e1"), (uint8_t)sq("h1"), CF_PROMO_NONE};
  cf_policy_move promo = {(uint8_t)sq("g2"), (uint8_t)sq("h1"), CF_PROMO_QUEEN}; /* black */
  CHECK_STR_EQ(cf_policy_index_uci(cf_policy_move_index(e2e4, false, 0), buf), "e2e4");
  CHECK_STR_EQ(cf_policy_index_uci(cf_policy_move_index(e7e5, true, 0), buf), "e2e4");
  CHECK_STR_EQ(cf_policy_index_uci(cf_policy_move_index(oo, false, 0), buf), "e1h1");
  CHECK_STR_EQ(cf_policy_index_uci(cf_policy_move_index(promo, true, 0), buf), "g7h8q");
  CHECK_STR_EQ(cf_policy_index_uci(cf_policy_move_index(promo, true, CF_TRANSFORM_FLIP), buf),
               "b7a8q");
  cf_policy_move bad = {64, 0, 0};
  CHECK_INT_EQ(cf_policy_move_index(bad, false, 0), -1);
}

static void test_softmax_temperature(cf_test *t) {
  float logits[4] = {1.0f, 2.0f, 3.0f, -INFINITY}, p[4];
  cf_policy_softmax(logits, 4, 1.0f, p);
  double z = exp(1) + exp(2) + exp(3);
  CHECK_NEAR(p[0], exp(1) / z, 1e-6);
  CHECK_NEAR(p[2], exp(3) / z, 1e-6);
  CHECK(p[3] == 0.0f);
  float T = CF_POLICY_DEFAULT_TEMPERATURE;
  CHECK_NEAR(T, 1.359, 1e-6);
  cf_policy_softmax(logits, 4, T, p);
  z = exp(1 / T) + exp(2 / T) + exp(3 / T);
  CHECK_NEAR(p[1], exp(2 / T) / z, 1e-6);
  CHECK_NEAR(p[0] + p[1] + p[2] + p[3], 1.0, 1e-6);
  cf_policy_softmax(logits, 3, 0.5f, logits); /* in place */
  CHECK_NEAR(logits[0] + logits[1] + logits[2], 1.0, 1e-6);
  float none[2] = {-INFINITY, -INFINITY};
  cf_policy_softmax(none, 2, 1.0f, none);
  CHECK_NEAR(none[0], 0.5, 1e-6);
  cf_policy_softmax(NULL, 0, 1.0f, NULL);
}

CF_TEST_MAIN(test_1858_order_matches_file, test_attention_slots, test_square_transforms,
             test_move_index, test_softmax_temperature)
