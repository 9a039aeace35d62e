/* test_api_arrays.c: cformer_evaluate_arrays through the public header:
 * row for row the same numbers as cformer_evaluate and cformer_planes, a
 * legal mask that names exactly the legal moves, entry names from
 * cformer_policy_move, optional outputs, and bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cformer.h"
#include "tests/cf_test.h"
#include "tests/lib/api_test.h"

#define N 5
#define P CFORMER_POLICY_SIZE
#define PL (CFORMER_PLANES * CFORMER_SQUARES)

static const char *const line[] = {"e2e4", "e7e5", "g1f3"};
/* Start; black after 1. e4 e5 2. Nf3; promotions (no castling: a
 * transformed frame); castling both ways for black; stalemate. */
static const cformer_position positions[N] = {
    {.fen = NULL},
    {.fen = NULL, .moves = line, .n_moves = 3},
    {.fen = "8/P6k/8/8/8/8/8/K7 w - - 0 1"},
    {.fen = "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"},
    {.fen = "7k/5QQ1/8/8/8/8/8/K7 b - - 0 1"},
};

/* A policy entry's real move as cformer_evaluate names it: the knight
 * promotion shares the plain entry, and castling is king-takes-rook there. */
static const cformer_move_prob *find_move(const cformer_eval *ev, const char *entry) {
  char alt[3][CFORMER_MOVE_MAX];
  snprintf(alt[0], sizeof alt[0], "%s", entry);
  snprintf(alt[1], sizeof alt[1], "%sn", entry);
  snprintf(alt[2], sizeof alt[2], "%s", entry);
  if (entry[0] == 'e' && (entry[1] == '1' || entry[1] == '8') && entry[3] == entry[1])
    alt[2][2] = entry[2] == 'h' ? 'g' : entry[2] == 'a' ? 'c' : entry[2];
  for (int a = 0; a < 3; a++)
    for (int i = 0; i < ev->n_moves; i++)
      if (strcmp(ev->policy[i].move, alt[a]) == 0) return &ev->policy[i];
  return NULL;
}

static void test_same_as_evaluate(cf_test *t) {
  cformer_net *net = NULL;
  cformer_options o = {.backend = "ref"};
  cformer_error err;
  if (!CHECK(cformer_open_builtin(&o, &net, &err) == CFORMER_OK)) return;
  static cformer_eval ev[N];
  static float wdl[N * 3], q[N], ml[N], policy[N * P], planes[N * PL], one[PL];
  static unsigned char legal[N * P];
  int transform[N];
  cformer_arrays a = {.wdl = wdl, .q = q, .moves_left = ml, .policy = policy, .legal = legal,
                      .planes = planes, .transform = transform};
  if (!CHECK(cformer_evaluate(net, N, positions, 1.0f, ev, &err) == CFORMER_OK) ||
      !CHECK(cformer_evaluate_arrays(net, N, positions, &a, &err) == CFORMER_OK)) {
    fprintf(stderr, "%s\n", err.message);
    cformer_close(net);
    return;
  }
  int nonzero_transform = 0;
  for (int i = 0; i < N; i++) {
    for (int k = 0; k < 3; k++) CHECK_NEAR(wdl[3 * i + k], ev[i].wdl[k], 1e-6);
    CHECK_NEAR(q[i], ev[i].q, 1e-6);
    CHECK(isnan(ev[i].moves_left) ? isnan(ml[i]) : fabs(ml[i] - ev[i].moves_left) < 1e-4);
    int marked = 0, black = i == 1 || i == 3 || i == 4;
    for (int j = 0; j < P; j++) {
      CHECK(legal[i * P + j] <= 1);
      CHECK(!isnan(policy[i * P + j]));
      if (!legal[i * P + j]) continue;
      marked++;
      char entry[CFORMER_MOVE_MAX];
      if (!CHECK(cformer_policy_move(j, black, transform[i], entry, NULL) == CFORMER_OK)) continue;
      const cformer_move_prob *m = find_move(&ev[i], entry);
      if (!CHECK(m != NULL)) {
        fprintf(stderr, "position %d: entry %d (%s) is not a legal move\n", i, j, entry);
        continue;
      }
      CHECK_NEAR(policy[i * P + j], m->logit, 1e-5);
    }
    CHECK_INT_EQ(marked, ev[i].n_moves);
    /* cformer_policy_indices names each legal move as cformer_evaluate does. */
    cformer_move_index idx[CFORMER_MAX_MOVES];
    int n_idx = -1;
    CHECK(cformer_policy_indices(net, &positions[i], idx, &n_idx, NULL) == CFORMER_OK);
    CHECK_INT_EQ(n_idx, ev[i].n_moves);
    for (int k = 0; k < n_idx; k++) {
      const cformer_move_prob *m = NULL;
      for (int j = 0; j < ev[i].n_moves; j++)
        if (strcmp(ev[i].policy[j].move, idx[k].move) == 0) m = &ev[i].policy[j];
      if (!CHECK(m != NULL) || !CHECK(idx[k].index >= 0 && idx[k].index < P)) continue;
      CHECK(legal[i * P + idx[k].index] == 1);
      CHECK_NEAR(policy[i * P + idx[k].index], m->logit, 1e-5);
    }
    int tr = -1;
    CHECK(cformer_planes(net, &positions[i], one, &tr, NULL) == CFORMER_OK);
    CHECK_INT_EQ(tr, transform[i]);
    CHECK(memcmp(one, planes + (size_t)i * PL, sizeof one) == 0);
    nonzero_transform += transform[i] != 0;
  }
  CHECK_INT_EQ(ev[4].n_moves, 0); /* stalemate: an empty mask, logits still there */
  /* Castling for black is there, in both the mask and the logits. */
  CHECK(find_move(&ev[3], "e8h8") != NULL);
  CHECK(nonzero_transform > 0); /* the inverse square map was exercised */

  /* Only what is asked for is written. */
  static float q_only[N];
  cformer_arrays just_q = {.q = q_only};
  CHECK(cformer_evaluate_arrays(net, N, positions, &just_q, NULL) == CFORMER_OK);
  for (int i = 0; i < N; i++) CHECK_NEAR(q_only[i], q[i], 1e-6);
  cformer_close(net);
}

static void test_bad_input(cf_test *t) {
  cformer_net *net = NULL;
  cformer_options o = {.backend = "ref"};
  if (!CHECK(cformer_open_builtin(&o, &net, NULL) == CFORMER_OK)) return;
  static float q[2];
  cformer_arrays a = {.q = q};
  const char *illegal[] = {"e2e5"};
  cformer_position two[2] = {{.fen = NULL}, {.fen = NULL, .moves = illegal, .n_moves = 1}};
  EXPECT_ERR(cformer_evaluate_arrays(net, 2, two, &a, err), CFORMER_ERR_ARG, "position 1, move 1");
  EXPECT_ERR(cformer_evaluate_arrays(net, -1, two, &a, err), CFORMER_ERR_ARG, "count");
  EXPECT_ERR(cformer_evaluate_arrays(net, 1, two, NULL, err), CFORMER_ERR_ARG, "NULL");
  EXPECT_ERR(cformer_evaluate_arrays(NULL, 1, two, &a, err), CFORMER_ERR_ARG, "NULL");
  CHECK(cformer_evaluate_arrays(net, 0, NULL, NULL, NULL) == CFORMER_OK);
  char m[CFORMER_MOVE_MAX];
  EXPECT_ERR(cformer_policy_move(P, 0, 0, m, err), CFORMER_ERR_ARG, "out of range");
  EXPECT_ERR(cformer_policy_move(0, 0, 8, m, err), CFORMER_ERR_ARG, "out of range");
  cformer_move_index idx[CFORMER_MAX_MOVES];
  int n_idx;
  EXPECT_ERR(cformer_policy_indices(net, &two[1], idx, &n_idx, err), CFORMER_ERR_ARG, "move 1");
  EXPECT_ERR(cformer_policy_indices(net, &two[0], idx, NULL, err), CFORMER_ERR_ARG, "NULL");
  /* Entry 0 is a1b1 in the mover's frame: for black it is a8b8. */
  CHECK(cformer_policy_move(0, 0, 0, m, NULL) == CFORMER_OK);
  CHECK_STR_EQ(m, "a1b1");
  CHECK(cformer_policy_move(0, 1, 0, m, NULL) == CFORMER_OK);
  CHECK_STR_EQ(m, "a8b8");
  /* The net still works after the errors. */
  CHECK(cformer_evaluate_arrays(net, 1, two, &a, NULL) == CFORMER_OK);
  cformer_close(net);
}

CF_TEST_MAIN(test_same_as_evaluate, test_bad_input)
