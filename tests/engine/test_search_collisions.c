/* test_search_collisions.c: what a collision stands for, without a network:
 *   - the run cf_search_select_run reports: the chosen edge keeps being
 *     chosen for exactly that many visits in flight, and the next one goes
 *     elsewhere; a move whose Q alone keeps it ahead has no end to its run;
 *   - the collision budget grows with the tree as Lc0's MaxCollisionVisits
 *     scaling does (1 on a fresh tree, the maximum from 145000 visits). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "engine/search/cf_search_internal.h"
#include "tests/cf_test.h"

/* A root with `k` edges of the priors given, each child visited n[i] times
 * with mean wl[i] (from the root's side to move). */
typedef struct tree {
  cf_snode root, kids[4];
  cf_sedge edges[4];
} tree;

static void build(tree *s, int k, const float *p, const uint32_t *n, const double *wl) {
  memset(s, 0, sizeof *s);
  s->root.edges = s->edges;
  s->root.n_edges = (uint16_t)k;
  s->root.proven = CF_UNPROVEN;
  uint32_t total = 1;
  for (int i = 0; i < k; i++) {
    s->edges[i] = (cf_sedge){.move = (cf_move)(i + 1), .p = p[i], .child = &s->kids[i]};
    s->kids[i] = (cf_snode){.parent = &s->root, .n = n[i], .wl = wl[i], .proven = CF_UNPROVEN,
                            .edge_index = (uint16_t)i};
    total += n[i];
  }
  s->root.n = total;
}

/* Adds visits in flight to the chosen child one at a time: the choice stays
 * for exactly `run` of them (the first included), then moves. */
static void check_run_is_exact(cf_test *t, tree *s) {
  cf_search_params p;
  cf_search_params_default(&p);
  uint32_t run = 0;
  const int best = cf_search_select_run(&p, &s->root, 0, NULL, 0, &run);
  CHECK(best >= 0);
  CHECK(run >= 1);
  CHECK(run < 100000);
  CHECK_INT_EQ(cf_search_select(&p, &s->root, 0, NULL, 0), best);
  for (uint32_t k = 1; k < run; k++) {
    s->kids[best].in_flight++;
    CHECK_INT_EQ(cf_search_select(&p, &s->root, 0, NULL, 0), best);
  }
  s->kids[best].in_flight++;
  CHECK(cf_search_select(&p, &s->root, 0, NULL, 0) != best);
}

static void test_run_until_the_rival_passes(cf_test *t) {
  tree s;
  /* A sharp prior on an even position: a long run. */
  build(&s, 3, (float[]){0.9f, 0.06f, 0.04f}, (uint32_t[]){20, 2, 1}, (double[]){0.1, 0.1, 0.1});
  check_run_is_exact(t, &s);
  /* Even priors and values: the next visit already changes the choice. */
  build(&s, 2, (float[]){0.5f, 0.5f}, (uint32_t[]){5, 5}, (double[]){0.0, 0.0});
  cf_search_params p;
  cf_search_params_default(&p);
  uint32_t run = 0;
  CHECK(cf_search_select_run(&p, &s.root, 0, NULL, 0, &run) == 0);
  CHECK_INT_EQ(run, 1);
  check_run_is_exact(t, &s);
  /* The second move better by Q, the first by prior: runs either way. */
  build(&s, 3, (float[]){0.7f, 0.2f, 0.1f}, (uint32_t[]){40, 30, 3}, (double[]){-0.05, 0.2, 0.0});
  check_run_is_exact(t, &s);
}

static void test_run_without_end_when_q_dominates(cf_test *t) {
  tree s;
  /* A winning move against two lost ones: no number of visits in flight
   * makes a lost move's Q + U pass it. */
  build(&s, 3, (float[]){0.5f, 0.3f, 0.2f}, (uint32_t[]){50, 50, 50}, (double[]){1.0, -1.0, -1.0});
  cf_search_params p;
  cf_search_params_default(&p);
  uint32_t run = 0;
  CHECK_INT_EQ(cf_search_select_run(&p, &s.root, 0, NULL, 0, &run), 0);
  CHECK(run == UINT32_MAX);
  /* A single move: nothing to pass it either. */
  build(&s, 1, (float[]){1.0f}, (uint32_t[]){3}, (double[]){0.0});
  CHECK_INT_EQ(cf_search_select_run(&p, &s.root, 0, NULL, 0, &run), 0);
  CHECK(run == UINT32_MAX);
}

static void test_budget_grows_with_the_tree(cf_test *t) {
  cf_search_params p;
  cf_search_params_default(&p);
  CHECK_INT_EQ(cf_search_collision_budget(&p, 0), 1);
  CHECK_INT_EQ(cf_search_collision_budget(&p, 28), 1);
  CHECK_INT_EQ(cf_search_collision_budget(&p, 145000), 80000);
  CHECK_INT_EQ(cf_search_collision_budget(&p, 100000000), 80000);
  /* Lc0's curve: 1 + 79999 ((N - 28) / 144972)^1.25, by hand at a few N. */
  CHECK_INT_EQ(cf_search_collision_budget(&p, 800), 116);
  CHECK_INT_EQ(cf_search_collision_budget(&p, 10000), 2819);
  long last = 0;
  for (long n = 0; n < 200000; n += 97) {
    const long b = cf_search_collision_budget(&p, n);
    CHECK(b >= last);
    last = b;
  }
  p.max_collision_visits = 500;
  CHECK_INT_EQ(cf_search_collision_budget(&p, 145000), 500);
  CHECK(cf_search_collision_budget(&p, 10000) < 500);
}

CF_TEST_MAIN(test_run_until_the_rival_passes, test_run_without_end_when_q_dominates,
             test_budget_grows_with_the_tree)
