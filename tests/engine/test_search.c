/* test_search.c: the search agent. PUCT terms, FPU, backup signs and proofs
 * on hand-built trees; then real searches on the built-in network: one
 * visit equals the policy agent, mates the one-ply agent misses, tree
 * reuse, determinism, repetitions, RamLimitMb, limits and bad parameters. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/cf_fen.h"
#include "chess/cf_move_uci.h"
#include "chess/cf_movegen.h"
#include "backends/cf_backend.h"
#include "common/cf_clock.h"
#include "engine/cf_agent.h"
#include "engine/cf_engine_weights.h"
#include "engine/uci/cf_uci_options.h"
#include "engine/search/cf_search_internal.h"
#include "engine/search/cf_time_manager.h"
#include "tests/cf_test.h"

/* ---- hand-built trees --------------------------------------------------- */

static void test_cpuct_growth(cf_test *t) {
  cf_search_params p;
  cf_search_params_default(&p);
  CHECK_NEAR(cf_search_cpuct(&p, 0, false), 1.745, 1e-6);
  /* At N = base the growth is CPuctFactor * ln 2. */
  CHECK_NEAR(cf_search_cpuct(&p, 38739, false), 1.745 + 3.894 * log(2.0), 1e-4);
  p.cpuct_factor = 0;
  CHECK_NEAR(cf_search_cpuct(&p, 1000000, false), 1.745, 1e-6);
}

/* A root with three edges (priors 0.5, 0.3, 0.2) and children as given. */
typedef struct small_tree {
  cf_snode root, kids[3];
  cf_sedge edges[3];
} small_tree;

static void build(small_tree *s, const uint32_t n[3], const double wl[3]) {
  memset(s, 0, sizeof *s);
  const float p[3] = {0.5f, 0.3f, 0.2f};
  s->root.edges = s->edges;
  s->root.n_edges = 3;
  s->root.proven = CF_UNPROVEN;
  uint32_t total = 1;
  for (int i = 0; i < 3; i++) {
    s->edges[i] = (cf_sedge){.move = (cf_move)(i + 1), .p = p[i], .child = n[i] ? &s->kids[i] : NULL};
    s->kids[i] = (cf_snode){.parent = &s->root, .n = n[i], .wl = wl[i], .proven = CF_UNPROVEN,
                            .edge_index = (uint16_t)i};
    total += n[i];
  }
  s->root.n = total;
  s->root.wl = -0.1; /* the side to move at the root is at +0.1 */
}

static void test_fpu_and_selection(cf_test *t) {
  cf_search_params p;
  cf_search_params_default(&p);
  small_tree s;
  build(&s, (uint32_t[]){10, 0, 0}, (double[]){0.2, 0, 0});
  /* Reduction: parent Q (+0.1) - 0.33 * sqrt(visited policy 0.5). */
  CHECK_NEAR(cf_search_fpu(&p, &s.root, 0), 0.1 - 0.33 * sqrt(0.5), 1e-6);
  p.fpu_absolute = true;
  p.fpu_value = -1;
  CHECK_NEAR(cf_search_fpu(&p, &s.root, 0), -1.0, 1e-9);
  p.fpu_absolute = false;
  p.fpu_value = 0.33f;
  /* Q + U by hand: U = cpuct(N) * P * sqrt(N - 1) / (1 + n). */
  const float c = cf_search_cpuct(&p, 11, true), fpu = cf_search_fpu(&p, &s.root, 0);
  const float score0 = 0.2f + c * 0.5f * sqrtf(10) / 11, score1 = fpu + c * 0.3f * sqrtf(10);
  CHECK_INT_EQ(cf_search_select(&p, &s.root, 0, NULL, 0), score1 > score0 ? 1 : 0);
  CHECK(score1 > score0); /* here the unvisited second move wins */
  /* A restriction to the first move (searchmoves) is obeyed. */
  const cf_move only[1] = {1};
  CHECK_INT_EQ(cf_search_select(&p, &s.root, 0, only, 1), 0);
  /* In-flight visits count against a move like real ones. */
  s.kids[1] = (cf_snode){.parent = &s.root, .in_flight = 50, .proven = CF_UNPROVEN};
  s.edges[1].child = &s.kids[1];
  CHECK(cf_search_select(&p, &s.root, 0, NULL, 0) != 1);
}

static void test_best_edge_order(cf_test *t) {
  small_tree s;
  /* Visits decide. */
  build(&s, (uint32_t[]){5, 9, 1}, (double[]){0.5, 0.1, 0.9});
  CHECK_INT_EQ(cf_search_best_edge(&s.root, 0, NULL, 0), 1);
  /* Equal visits: Q decides. */
  build(&s, (uint32_t[]){5, 5, 1}, (double[]){0.5, 0.1, 0.9});
  CHECK_INT_EQ(cf_search_best_edge(&s.root, 0, NULL, 0), 0);
  /* No visits anywhere: the prior decides (go nodes 1 = the policy's move). */
  build(&s, (uint32_t[]){0, 0, 0}, (double[]){0, 0, 0});
  CHECK_INT_EQ(cf_search_best_edge(&s.root, 0, NULL, 0), 0);
  /* A proven win beats visits; the shorter of two wins first; a proven loss
   * goes last even with the most visits. */
  build(&s, (uint32_t[]){50, 3, 2}, (double[]){0.1, 1, 1});
  s.kids[1].proven = 1;
  s.kids[1].proven_plies = 4;
  s.kids[2].proven = 1;
  s.kids[2].proven_plies = 2;
  CHECK_INT_EQ(cf_search_best_edge(&s.root, 0, NULL, 0), 2);
  build(&s, (uint32_t[]){50, 3, 2}, (double[]){-1, 0, 0});
  s.kids[0].proven = -1;
  CHECK_INT_EQ(cf_search_best_edge(&s.root, 0, NULL, 0), 1);
}

static void test_proofs(cf_test *t) {
  small_tree s;
  /* One child mates: the parent is lost for the side that moved into it,
   * one ply longer. */
  build(&s, (uint32_t[]){1, 1, 1}, (double[]){0, 0, 0});
  s.kids[2].proven = 1;
  s.kids[2].proven_plies = 0;
  CHECK(cf_search_update_proof(&s.root));
  CHECK_INT_EQ(s.root.proven, -1);
  CHECK_INT_EQ(s.root.proven_plies, 1);
  /* Every child lost: won for the mover into the parent, by the longest line. */
  build(&s, (uint32_t[]){1, 1, 1}, (double[]){-1, -1, -1});
  for (int i = 0; i < 3; i++) {
    s.kids[i].proven = -1;
    s.kids[i].proven_plies = (int16_t)(1 + 2 * i);
  }
  CHECK(cf_search_update_proof(&s.root));
  CHECK_INT_EQ(s.root.proven, 1);
  CHECK_INT_EQ(s.root.proven_plies, 6);
  /* Losses and a draw: a draw. Losses and an unproven move: nothing yet. */
  build(&s, (uint32_t[]){1, 1, 1}, (double[]){-1, 0, -1});
  s.kids[0].proven = s.kids[2].proven = -1;
  s.kids[1].proven = 0;
  CHECK(cf_search_update_proof(&s.root));
  CHECK_INT_EQ(s.root.proven, 0);
  build(&s, (uint32_t[]){1, 1, 0}, (double[]){-1, -1, 0});
  s.kids[0].proven = s.kids[1].proven = -1;
  CHECK(!cf_search_update_proof(&s.root));
  CHECK_INT_EQ(s.root.proven, CF_UNPROVEN);
}

static void test_backup_signs(cf_test *t) {
  cf_search s = {0};
  cf_snode root = {.proven = CF_UNPROVEN}, child = {.parent = &root, .proven = CF_UNPROVEN},
           grand = {.parent = &child, .proven = CF_UNPROVEN};
  root.in_flight = child.in_flight = grand.in_flight = 1;
  /* The grandchild is good (+0.6) for the side that moved into it, which is
   * the side to move at the root: so the child is -0.6 for its mover, and
   * the root +0.6 for its mover (the opponent of the root's side to move). */
  cf_search_backup(&s, &grand, 0.6, 0.2f, 3.0f);
  CHECK_NEAR(grand.wl, 0.6, 1e-9);
  CHECK_NEAR(child.wl, -0.6, 1e-9);
  CHECK_NEAR(root.wl, 0.6, 1e-9);
  CHECK_NEAR(child.m, 4.0, 1e-6); /* a ply further from the end */
  CHECK_NEAR(root.m, 5.0, 1e-6);
  CHECK(root.n == 1 && child.n == 1 && grand.n == 1);
  CHECK(root.in_flight == 0 && child.in_flight == 0 && grand.in_flight == 0);
  /* A second visit averages. */
  grand.in_flight = child.in_flight = root.in_flight = 1;
  cf_search_backup(&s, &grand, -0.2, 0.2f, 3.0f);
  CHECK_NEAR(grand.wl, 0.2, 1e-9);
  CHECK_NEAR(root.wl, 0.2, 1e-9);
  CHECK_INT_EQ(s.playouts, 2);
}


/* Lc0's legacy time manager, by hand. */
static void test_time_manager(cf_test *t) {
  cf_time_manager tm;
  cf_time_manager_init(&tm, 200);
  CHECK_NEAR(cf_time_manager_moves_to_go(0), 51.5, 1e-9);
  /* Later in the game fewer moves remain, but never fewer than a few. */
  CHECK(cf_time_manager_moves_to_go(80) < 51.5 && cf_time_manager_moves_to_go(80) > 10);
  double ms;
  cf_clock none = {.time_ms = -1, .inc_ms = -1, .movestogo = -1, .movetime_ms = -1};
  CHECK(!cf_time_manager_budget(&tm, &none, 0, &ms));
  cf_clock mt = none;
  mt.movetime_ms = 1000;
  CHECK(cf_time_manager_budget(&tm, &mt, 0, &ms));
  CHECK_NEAR(ms, 800, 1e-9);
  /* First move of a game: (time - overhead) / 51.5 * (1 + 1.8). */
  cf_clock clock = none;
  clock.time_ms = 60000;
  CHECK(cf_time_manager_budget(&tm, &clock, 0, &ms));
  CHECK_NEAR(ms, 59800 / 51.5 * 2.8, 1e-6);
  /* It used half: the other half is spent on the next move, at once. */
  cf_time_manager_done(&tm, ms, ms / 2);
  const double saved = ms / 2;
  double next;
  CHECK(cf_time_manager_budget(&tm, &clock, 20, &next));
  const double mtg = cf_time_manager_moves_to_go(20);
  CHECK_NEAR(next, (59800 - saved) / mtg + saved, 1e-6);
  /* movestogo below the estimate wins; the increment counts for each move. */
  cf_time_manager_new_game(&tm);
  tm.first_move = false;
  clock.movestogo = 10;
  clock.inc_ms = 100;
  CHECK(cf_time_manager_budget(&tm, &clock, 20, &next));
  CHECK_NEAR(next, (60000 + 100 * 9 - 200) / 10.0, 1e-6);
  /* No time left: a budget of zero or less (move at once). */
  clock = none;
  clock.time_ms = 0;
  CHECK(cf_time_manager_budget(&tm, &clock, 20, &next));
  CHECK(next <= 0);
  /* A movetime and a clock: the smaller. */
  clock.time_ms = 60000;
  clock.movetime_ms = 500;
  CHECK(cf_time_manager_budget(&tm, &clock, 20, &next));
  CHECK_NEAR(next, 300, 1e-9);
  CHECK(!tm.overhead_cut);
  /* MoveOverheadMs never takes more than half of a movetime or a clock. */
  const long movetimes[] = {1, 50, 100, 199, 200, 250, 400, 401};
  for (size_t i = 0; i < sizeof movetimes / sizeof movetimes[0]; i++) {
    clock = none;
    clock.movetime_ms = movetimes[i];
    CHECK(cf_time_manager_budget(&tm, &clock, 20, &next));
    const double half = movetimes[i] / 2.0;
    CHECK_NEAR(next, movetimes[i] - (half < 200 ? half : 200), 1e-9);
    CHECK(tm.overhead_cut == (half < 200));
  }
  clock = none;
  clock.time_ms = 300; /* the clock: at most 150 kept back, so 150 to spend over the game */
  tm.first_move = false;
  CHECK(cf_time_manager_budget(&tm, &clock, 20, &next));
  CHECK_NEAR(next, 150 / cf_time_manager_moves_to_go(20), 1e-6);
  CHECK(tm.overhead_cut);
  CHECK_NEAR(cf_time_manager_overhead(&tm, 100), 50, 1e-12);
  CHECK_NEAR(cf_time_manager_overhead(&tm, 1000), 200, 1e-12);
  CHECK_NEAR(cf_time_manager_overhead(&tm, 0), 0, 1e-12);
  /* Lc0's slowmover: the budget times it when that is over 200 ms (or the
   * slowmover is below 1), the extra taken from the saved time; its other
   * settings by their TimeManager names. */
  cf_time_manager_init(&tm, 200);
  tm.first_move = false;
  tm.p.slowmover = 2;
  clock = none;
  clock.time_ms = 60000;
  CHECK(cf_time_manager_budget(&tm, &clock, 20, &next));
  const double plain = 59800 / cf_time_manager_moves_to_go(20);
  CHECK_NEAR(next, 2 * plain, 1e-6);
  CHECK_NEAR(tm.spared_ms, -plain, 1e-6);
  cf_time_manager_init(&tm, 200);
  tm.first_move = false;
  tm.p.slowmover = 2;
  clock.time_ms = 3000; /* 2 * 2800 / m is under 200 ms: no stretch */
  CHECK(cf_time_manager_budget(&tm, &clock, 20, &next));
  CHECK_NEAR(next, 2800 / cf_time_manager_moves_to_go(20), 1e-6);
  cf_time_manager_init(&tm, 200);
  tm.p.first_move_bonus = 0;
  tm.p.book_ply_bonus = 0;
  tm.p.midpoint_move = 40;
  clock.time_ms = 60000;
  CHECK(cf_time_manager_budget(&tm, &clock, 0, &next));
  CHECK_NEAR(next, 59800 / 40.0, 1e-6);
}

/* ---- searches on the built-in network ---------------------------------- */

static cf_net *builtin_net(cf_test *t, int max_batch) {
  cf_engine_weights_spec spec = {.weights = CF_WEIGHTS_BUILT_IN, .net = {.max_batch = max_batch}};
  cf_net *net = NULL;
  cf_engine_weights_info info;
  cf_error err = {0};
  if (!CHECK(cf_engine_load_net(&spec, &net, &info, &err) == CF_OK)) fprintf(stderr, "%s\n", err.msg);
  return net;
}

static bool game_of(cf_test *t, cf_game *g, const char *fen, const char *moves) {
  if (!CHECK(cf_game_init_fen(g, fen ? fen : CF_FEN_STARTPOS, NULL) == CF_OK)) return false;
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", moves ? moves : "");
  for (char *save = NULL, *m = strtok_r(buf, " ", &save); m; m = strtok_r(NULL, " ", &save))
    if (!CHECK(cf_game_push_uci(g, m, NULL) == CF_OK)) return false;
  return true;
}

static cf_search *new_search(cf_test *t, void (*tweak)(cf_search_params *)) {
  cf_search_params p;
  cf_search_params_default(&p);
  p.nn_cache_size = 100000;
  if (tweak) tweak(&p);
  cf_search *s = NULL;
  cf_error err = {0};
  if (!CHECK(cf_search_create(&p, &s, &err) == CF_OK)) fprintf(stderr, "%s\n", err.msg);
  return s;
}

static void no_pruning(cf_search_params *p) { p->smart_pruning_factor = 0; }

/* One visit plays what the policy agent plays, over the bench suite. */
static void test_one_visit_is_the_policy(cf_test *t) {
  cf_net *net = builtin_net(t, 32);
  if (!net) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/bench/positions.txt", cf_test_data_dir());
  FILE *f = fopen(path, "r");
  if (!CHECK(f != NULL)) {
    cf_net_free(net);
    return;
  }
  char line[1024];
  int n = 0, same = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || !strchr(line, '|')) continue;
    char *fen = strchr(line, '|') + 1, *moves = strchr(fen, '|');
    if (!moves) continue;
    *moves++ = 0;
    moves[strcspn(moves, "\r\n")] = 0;
    cf_game g;
    if (!game_of(t, &g, fen, moves)) continue;
    cf_agent_request req = {.net = net, .game = &g, .max_evals = 1};
    cf_agent_result a, b;
    cf_error err = {0};
    if (CHECK(cf_agent_search_desc.choose(&req, &a, &err) == CF_OK) &&
        CHECK(cf_agent_policy_desc.choose(&req, &b, &err) == CF_OK)) {
      n++;
      same += a.best == b.best;
      CHECK_INT_EQ(a.nodes, 1);
      CHECK_INT_EQ(a.evals, 1);
    }
    cf_game_free(&g);
  }
  fclose(f);
  CHECK(n >= 100);
  CHECK_INT_EQ(same, n);
  cf_net_free(net);
}

static void minibatch_32(cf_search_params *p) { p->minibatch_size = 32; }

/* Mates in two and three from the puzzle set that the value agent misses:
 * the search finds the mating move and reports the mate. The minibatch is
 * 32 whichever backend is the default: at 1000 evaluations, cuda's 256
 * would make this a test of the batch size. */
static void test_mates_the_one_ply_agent_misses(cf_test *t) {
  cf_net *net = builtin_net(t, 32);
  if (!net) return;
  cf_search *search = new_search(t, minibatch_32);
  if (!search) {
    cf_net_free(net);
    return;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/puzzles/lichess_puzzles_public.csv", cf_test_data_dir());
  FILE *f = fopen(path, "r");
  if (!CHECK(f != NULL)) {
    cf_net_free(net);
    return;
  }
  const char *themes[2] = {"mateIn2", "mateIn3"};
  const int want[2] = {12, 8}, need[2] = {10, 4};
  for (int k = 0; k < 2; k++) {
    rewind(f);
    char line[2048];
    int tried = 0, solved = 0;
    while (tried < want[k] && fgets(line, sizeof line, f)) {
      if (!strstr(line, themes[k])) continue;
      char *id = strtok(line, ","), *fen = strtok(NULL, ","), *moves = strtok(NULL, ",");
      if (!id || !fen || !moves) continue;
      char first[8], answer[8];
      if (sscanf(moves, "%7s %7s", first, answer) != 2) continue;
      cf_game g;
      if (!game_of(t, &g, fen, first)) continue;
      cf_agent_request req = {.net = net, .game = &g};
      cf_agent_result v, s;
      char move[CF_UCI_MOVE_MAX];
      if (CHECK(cf_agent_value_desc.choose(&req, &v, NULL) == CF_OK)) {
        cf_move_write_uci(v.best, 0, move);
        if (strcmp(move, answer) != 0) { /* the one-ply agent misses it */
          tried++;
          req.max_evals = 1000;
          req.search = search;
          cf_search_reset(search); /* each puzzle on a fresh tree, as without one */
          if (CHECK(cf_agent_search_desc.choose(&req, &s, NULL) == CF_OK)) {
            cf_move_write_uci(s.best, 0, move);
            solved += strcmp(move, answer) == 0 && s.mate == k + 2;
          }
        }
      }
      cf_game_free(&g);
    }
    fprintf(stderr, "%s: %d of %d that the value agent misses solved with mate %d\n", themes[k],
            solved, tried, k + 2);
    CHECK_INT_EQ(tried, want[k]);
    CHECK(solved >= need[k]);
  }
  fclose(f);
  cf_search_free(search);
  cf_net_free(net);
}

/* The subtree of the moves played is kept, with its visits. */
static void test_tree_reuse(cf_test *t) {
  cf_net *net = builtin_net(t, 32);
  cf_search *s = new_search(t, no_pruning);
  cf_game g;
  if (!net || !s || !game_of(t, &g, NULL, "e2e4 e7e5")) goto out;
  cf_search_limits lim = {.visits = 400};
  cf_search_result r;
  if (!CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, &r, NULL) == CF_OK)) goto done;
  CHECK_INT_EQ(r.info.visits, 400);
  /* The best move's best reply: their node's visits become the new root's. */
  cf_move pv[2];
  if (!CHECK(cf_search_pv(s, CF_MOVE_NONE, pv, 2) == 2)) goto done;
  cf_snode *child = NULL;
  for (int i = 0; i < s->root->n_edges; i++)
    if (s->root->edges[i].move == pv[0]) child = s->root->edges[i].child;
  cf_snode *grand = NULL;
  for (int i = 0; child && i < child->n_edges; i++)
    if (child->edges[i].move == pv[1]) grand = child->edges[i].child;
  if (!CHECK(grand != NULL)) goto done;
  const uint32_t kept = grand->n;
  CHECK(kept > 1);
  CHECK(cf_game_push(&g, pv[0], NULL) == CF_OK);
  CHECK(cf_game_push(&g, pv[1], NULL) == CF_OK);
  lim.visits = kept + 50;
  if (CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, &r, NULL) == CF_OK)) {
    cf_search_counters c;
    cf_search_get_counters(s, &c);
    CHECK_INT_EQ(c.reused_visits, (long)kept);
    CHECK_INT_EQ(r.info.visits, (long)kept + 50);
    CHECK_INT_EQ(r.info.playouts, 50);
  }
  /* A different game drops the tree. */
  cf_game other;
  if (game_of(t, &other, NULL, "d2d4")) {
    lim.visits = 10;
    if (CHECK(cf_search_run(s, net, &other, &lim, NULL, NULL, &r, NULL) == CF_OK)) {
      cf_search_counters c;
      cf_search_get_counters(s, &c);
      CHECK_INT_EQ(c.reused_visits, 0);
    }
    cf_game_free(&other);
  }
done:
  cf_game_free(&g);
out:
  cf_search_free(s);
  cf_net_free(net);
}

/* The search's own CPU time (cformer bench's search_cpu_per_visit): the
 * counters give the searching thread's CPU time inside the network's
 * calls, per run. With one lane the network computes on that thread, so
 * the share is positive; it never exceeds the thread's CPU time over the
 * run (the clocks read 1 us apart at most), and a short run after a long
 * one reports its own share, not a sum. */
static void test_net_cpu_counter(cf_test *t) {
  cf_engine_weights_spec spec = {.weights = CF_WEIGHTS_BUILT_IN,
                                 .net = {.max_batch = 32, .lanes = 1}};
  cf_net *net = NULL;
  cf_engine_weights_info info;
  CHECK(cf_engine_load_net(&spec, &net, &info, NULL) == CF_OK);
  cf_search *s = new_search(t, no_pruning);
  cf_game g;
  if (!net || !s || !game_of(t, &g, NULL, NULL)) goto out;
  const long visits[2] = {300, 10};
  for (int i = 0; i < 2; i++) {
    cf_search_reset(s);
    cf_search_limits lim = {.visits = visits[i]};
    cf_search_result r;
    const double cpu0 = cf_clock_thread_cpu();
    if (!CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, &r, NULL) == CF_OK)) break;
    const double cpu = cf_clock_thread_cpu() - cpu0;
    cf_search_counters c;
    cf_search_get_counters(s, &c);
    CHECK(c.net_cpu_seconds > 0);
    CHECK(c.net_cpu_seconds <= cpu + 1e-6);
  }
  cf_game_free(&g);
out:
  cf_search_free(s);
  cf_net_free(net);
}

/* Fixed visits on one thread: the same visits everywhere, twice. */
static void test_deterministic(cf_test *t) {
  cf_net *net = builtin_net(t, 32);
  if (!net) return;
  uint32_t counts[2][CF_MAX_MOVES];
  cf_move best[2];
  int n[2] = {0, 0};
  for (int run = 0; run < 2; run++) {
    cf_search *s = new_search(t, no_pruning);
    cf_game g;
    if (s && game_of(t, &g, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", "")) {
      cf_search_limits lim = {.visits = 300};
      cf_search_result r;
      if (CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, &r, NULL) == CF_OK)) {
        best[run] = r.info.best;
        cf_search_move_stats st[CF_MAX_MOVES];
        n[run] = cf_search_root_stats(s, st, CF_MAX_MOVES);
        for (int i = 0; i < n[run]; i++) counts[run][i] = st[i].n;
      }
      cf_game_free(&g);
    }
    cf_search_free(s);
  }
  CHECK(best[0] == best[1]);
  CHECK(n[0] == n[1] && n[0] > 0);
  CHECK(memcmp(counts[0], counts[1], (size_t)n[0] * sizeof counts[0][0]) == 0);
  cf_net_free(net);
}

/* A repetition inside the tree is a draw; one reaching back before the root
 * is not, nor any with TwoFoldDraws off; mate and stalemate are exact. */
static void test_terminal_classification(cf_test *t) {
  cf_search s = {0};
  cf_search_params_default(&s.params);
  cf_game g;
  if (!game_of(t, &g, NULL, "g1f3 g8f6 f3g1 f6g8")) return;
  s.game = &g;
  cf_snode x = {.proven = CF_UNPROVEN, .v = NAN};
  /* Root at the start: the repetition is 4 plies down, inside the tree. */
  CHECK(cf_search_classify_terminal(&s, &x, 4));
  CHECK(x.flags & CF_NODE_TWOFOLD);
  CHECK_INT_EQ(x.proven, 0);
  /* Root after g1f3 g8f6 f3g1: the first occurrence is before the root. */
  x = (cf_snode){.proven = CF_UNPROVEN};
  CHECK(!cf_search_classify_terminal(&s, &x, 1));
  CHECK_INT_EQ(x.proven, CF_UNPROVEN);
  s.params.two_fold_draws = false;
  CHECK(!cf_search_classify_terminal(&s, &x, 4));
  cf_game_free(&g);
  /* Mate: the side that moved into the node won. */
  s.params.two_fold_draws = true;
  if (game_of(t, &g, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8")) {
    s.game = &g;
    x = (cf_snode){.proven = CF_UNPROVEN};
    CHECK(cf_search_classify_terminal(&s, &x, 1));
    CHECK(x.flags & CF_NODE_TERMINAL);
    CHECK_INT_EQ(x.proven, 1);
    CHECK_NEAR(x.v, 1.0, 1e-9);
    cf_game_free(&g);
  }
  if (game_of(t, &g, "7k/8/6QK/8/8/8/8/8 b - - 0 1", "")) { /* stalemate */
    s.game = &g;
    x = (cf_snode){.proven = CF_UNPROVEN};
    CHECK(cf_search_classify_terminal(&s, &x, 1));
    CHECK_INT_EQ(x.proven, 0);
    cf_game_free(&g);
  }
}

/* In a search, a draw by repetition is what the tree says of that line. */
static void test_search_sees_repetition(cf_test *t) {
  cf_net *net = builtin_net(t, 32);
  cf_search *s = new_search(t, no_pruning);
  cf_game g;
  /* Locked pawns, each king in its corner with one or two moves: the tree
   * is narrow, so 1500 visits cover the 4-ply cycles (Kg1 Kg8 Kh1 Kh8)
   * whatever the network prefers. (A mate-in-N position would not do: a
   * network that finds the mate sends every visit down the proof.) Every
   * twofold node must lie at least 4 plies below the root (the shortest
   * cycle) and be a draw. */
  if (net && s && game_of(t, &g, "7k/5p1p/5P1P/8/8/5p1p/5P1P/7K w - - 0 1", "")) {
    cf_search_limits lim = {.visits = 1500};
    cf_search_result r;
    if (CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, &r, NULL) == CF_OK)) {
      /* Depth-first over the tree. */
      const cf_snode *stack[4096];
      int depth[4096], top = 0, seen = 0;
      stack[top] = s->root;
      depth[top++] = 0;
      while (top) {
        const cf_snode *x = stack[--top];
        int d = depth[top];
        if (x->flags & CF_NODE_TWOFOLD) {
          seen++;
          CHECK(d >= 4);
          CHECK_INT_EQ(x->proven, 0);
        }
        for (int i = 0; i < x->n_edges && top < 4096; i++)
          if (x->edges[i].child) {
            stack[top] = x->edges[i].child;
            depth[top++] = d + 1;
          }
      }
      fprintf(stderr, "twofold draws in the tree: %d\n", seen);
      CHECK(seen > 0);
    }
    cf_game_free(&g);
  }
  cf_search_free(s);
  cf_net_free(net);
}

/* RamLimitMb ends a search that nothing else would end. */
static void tiny_ram(cf_search_params *p) {
  p->ram_limit_mb = 1;
  p->smart_pruning_factor = 0;
}

static void test_ram_limit(cf_test *t) {
  cf_net *net = builtin_net(t, 32);
  cf_search *s = new_search(t, tiny_ram);
  cf_game g;
  atomic_bool never;
  atomic_init(&never, false);
  if (net && s && game_of(t, &g, NULL, "")) {
    cf_search_limits lim = {.infinite = true, .stop = NULL};
    cf_search_result r;
    if (CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, &r, NULL) == CF_OK)) {
      CHECK(r.ram_limited);
      CHECK(r.info.best != CF_MOVE_NONE);
      CHECK(r.info.tree_bytes >= 1048576);
      /* It stops at the first batch past the limit: one batch of slack. */
      CHECK(r.info.tree_bytes < 4 * 1048576);
    }
    cf_game_free(&g);
  }
  (void)never;
  cf_search_free(s);
  cf_net_free(net);
}

/* Depth, stop and deadline limits; a position with one legal move. */
static void test_limits(cf_test *t) {
  cf_net *net = builtin_net(t, 32);
  cf_search *s = new_search(t, NULL);
  cf_game g;
  if (!net || !s) goto out;
  if (game_of(t, &g, NULL, "")) {
    cf_search_limits lim = {.depth = 3};
    cf_search_result r;
    if (CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, &r, NULL) == CF_OK))
      CHECK(r.info.depth >= 3);
    atomic_bool stop;
    atomic_init(&stop, true); /* already set: the root is still evaluated */
    cf_search_limits held = {.infinite = true, .stop = &stop};
    if (CHECK(cf_search_run(s, net, &g, &held, NULL, NULL, &r, NULL) == CF_OK)) {
      CHECK(r.stopped);
      CHECK(r.info.best != CF_MOVE_NONE);
    }
    cf_search_limits past = {.deadline = cf_clock_now() - 1};
    if (CHECK(cf_search_run(s, net, &g, &past, NULL, NULL, &r, NULL) == CF_OK)) {
      CHECK(r.info.best != CF_MOVE_NONE);
      CHECK(r.info.playouts <= 1);
    }
    cf_game_free(&g);
  }
  /* One legal move: smart pruning plays it at once. */
  if (game_of(t, &g, "7k/8/8/8/8/8/6q1/7K w - - 0 1", "")) {
    cf_search_limits lim = {.visits = 5000};
    cf_search_result r;
    if (CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, &r, NULL) == CF_OK)) {
      char m[CF_UCI_MOVE_MAX];
      cf_move_write_uci(r.info.best, 0, m);
      CHECK_STR_EQ(m, "h1g2"); /* the king takes the checking queen */
      CHECK(r.info.visits < 50);
    }
    cf_game_free(&g);
  }
  /* Checkmated: no move, no error. */
  if (game_of(t, &g, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8")) {
    cf_search_limits lim = {.visits = 10};
    cf_search_result r;
    CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, &r, NULL) == CF_OK);
    CHECK(r.info.best == CF_MOVE_NONE);
    cf_game_free(&g);
  }
out:
  cf_search_free(s);
  cf_net_free(net);
}

static void test_bad_params(cf_test *t) {
  cf_search_params p;
  cf_search *s = NULL;
  cf_error err = {0};
  cf_search_params_default(&p);
  p.policy_temperature = 0;
  CHECK(cf_search_create(&p, &s, &err) == CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "PolicyTemperature");
  cf_search_params_default(&p);
  p.minibatch_size = 5000;
  CHECK(cf_search_create(&p, &s, &err) == CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "MinibatchSize");
  cf_search_params_default(&p);
  p.nn_cache_size = -1;
  CHECK(cf_search_create(&p, &s, &err) == CF_ERR_ARG);
  cf_search_params_default(&p);
  p.cpuct_base = 0;
  CHECK(cf_search_create(&p, &s, &err) == CF_ERR_ARG);
  CHECK(s == NULL);
  /* No cache at all is fine. */
  cf_search_params_default(&p);
  p.nn_cache_size = 0;
  p.smart_pruning_factor = 0; /* an exact node count, however slow the build */
  CHECK(cf_search_create(&p, &s, &err) == CF_OK);
  cf_net *net = builtin_net(t, 8);
  cf_game g;
  if (net && s && game_of(t, &g, NULL, "")) {
    cf_search_limits lim = {.visits = 50};
    cf_search_result r;
    CHECK(cf_search_run(s, net, &g, &lim, NULL, NULL, &r, NULL) == CF_OK);
    CHECK_INT_EQ(r.info.cache_hits, 0);
    CHECK(r.info.visits >= 50);
    cf_game_free(&g);
  }
  cf_search_free(s);
  cf_net_free(net);
}

/* No visit is left in flight anywhere in the tree; returns the nodes seen. */
static long settled(cf_test *t, const cf_snode *node) {
  if (!node) return 0;
  CHECK_INT_EQ(node->in_flight, 0);
  long seen = 1;
  for (int i = 0; node->edges && i < node->n_edges; i++) seen += settled(t, node->edges[i].child);
  return seen;
}

/* A network that fails part way (the reference backend's fail_after
 * option): the search reports the error, still has its best move so far,
 * leaves no visit in flight, and the same tree searches on with a working
 * network. Failing at the root's own evaluation leaves no move. */
static void test_net_failure_mid_search(cf_test *t) {
  cf_engine_weights_spec spec = {
      .weights = CF_WEIGHTS_BUILT_IN,
      .net = {.max_batch = 8, .backend = "ref", .backend_options = "fail_after=3"}};
  cf_net *failing = NULL, *good = builtin_net(t, 8);
  cf_engine_weights_info info;
  cf_error err = {0};
  CHECK(cf_engine_load_net(&spec, &failing, &info, &err) == CF_OK);
  cf_search *s = new_search(t, no_pruning);
  cf_game g;
  if (!failing || !good || !s || !game_of(t, &g, NULL, "e2e4 e7e5")) goto out;
  cf_search_limits lim = {.visits = 500};
  cf_search_result r;
  CHECK_INT_EQ(cf_search_run(s, failing, &g, &lim, NULL, NULL, &r, &err), CF_ERR_BACKEND);
  CHECK_STR_CONTAINS(err.msg, "injected failure after 3");
  CHECK(r.info.best != CF_MOVE_NONE);
  CHECK(cf_move_is_legal(cf_game_position(&g), r.info.best));
  CHECK(r.info.visits > 1 && r.info.visits < 500); /* the root and two batches */
  CHECK(settled(t, s->root) > 1);
  CHECK_INT_EQ(g.count, 3); /* the game as it was */
  lim.visits = 200;
  if (CHECK(cf_search_run(s, good, &g, &lim, NULL, NULL, &r, &err) == CF_OK)) {
    CHECK_INT_EQ(r.info.visits, 200);
    settled(t, s->root);
  }
  cf_net_free(failing);
  spec.net.backend_options = "fail_after=0";
  CHECK(cf_engine_load_net(&spec, &failing, &info, &err) == CF_OK);
  cf_search_reset(s);
  if (failing) {
    CHECK_INT_EQ(cf_search_run(s, failing, &g, &lim, NULL, NULL, &r, &err), CF_ERR_BACKEND);
    CHECK_INT_EQ(r.info.best, CF_MOVE_NONE);
    CHECK(s->root == NULL || settled(t, s->root) >= 1);
  }
  cf_game_free(&g);
out:
  cf_search_free(s);
  cf_net_free(failing);
  cf_net_free(good);
}

CF_TEST_MAIN(test_net_failure_mid_search, test_cpuct_growth, test_fpu_and_selection, test_best_edge_order, test_proofs,
             test_backup_signs, test_time_manager, test_one_visit_is_the_policy, test_mates_the_one_ply_agent_misses,
             test_tree_reuse, test_deterministic, test_terminal_classification,
             test_search_sees_repetition, test_ram_limit, test_limits,
             test_bad_params, test_net_cpu_counter)
