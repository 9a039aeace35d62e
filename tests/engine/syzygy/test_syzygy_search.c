/* test_syzygy_search.c: the tables inside the search, on the built-in
 * network: a node the tables score costs no network call; a tablebase win
 * scores as Lc0 prints one (mate 101 and up); the root searches only the
 * moves the tables keep, with SyzygyFastPlay only the fastest wins. */
#include <stdio.h>
#include <string.h>

#include "chess/cf_chess.h"
#include "engine/cf_engine_weights.h"
#include "engine/uci/cf_uci_options.h"
#include "engine/search/cf_search.h"
#include "engine/syzygy/cf_syzygy.h"
#include "tests/cf_test.h"
#include "syzygy_test_tables.h"

static cf_net *g_net;

static int setup(cf_test *t) {
  if (!syzygy_test_load(t)) return 0;
  if (!g_net) {
    cf_engine_weights_spec spec = {.weights = CF_WEIGHTS_BUILT_IN, .net = {.max_batch = 32}};
    cf_engine_weights_info info;
    cf_error err = {0};
    if (!CHECK(cf_engine_load_net(&spec, &g_net, &info, &err) == CF_OK)) fprintf(stderr, "%s\n", err.msg);
  }
  return g_net != NULL;
}

typedef struct run {
  cf_search_result r;
  cf_search_counters c;
  cf_search_move_stats stats[CF_MAX_MOVES];
  int n_stats;
} run;

static int search_fast(cf_test *t, const char *fen, long visits, bool fast_play, run *out) {
  cf_search_params p;
  cf_search_params_default(&p);
  p.smart_pruning_factor = 0;
  p.syzygy_fast_play = fast_play;
  cf_search *s = NULL;
  cf_game g;
  if (!CHECK(cf_search_create(&p, &s, NULL) == CF_OK)) return 0;
  if (!CHECK(cf_game_init_fen(&g, fen, NULL) == CF_OK)) return 0;
  cf_search_limits lim = {.visits = visits};
  int ok = CHECK(cf_search_run(s, g_net, &g, &lim, NULL, NULL, &out->r, NULL) == CF_OK);
  cf_search_get_counters(s, &out->c);
  out->n_stats = cf_search_root_stats(s, out->stats, CF_MAX_MOVES);
  cf_search_free(s);
  cf_game_free(&g);
  return ok;
}

static int search(cf_test *t, const char *fen, long visits, run *out) {
  return search_fast(t, fen, visits, false, out);
}

static const cf_search_move_stats *stats_of(const run *r, const char *uci) {
  for (int i = 0; i < r->n_stats; i++) {
    char m[8];
    cf_move_write_uci(r->stats[i].move, 0, m);
    if (strcmp(m, uci) == 0) return &r->stats[i];
  }
  return NULL;
}

/* Five pieces at the root (beyond the tables); Qxb5 takes the bishop into
 * K+Q v K+R, which the tables score as won. The capture's node is proven
 * without the network: every visit to it is a terminal one, and the
 * network was called once per other leaf at most. */
static void test_tree_probe_costs_no_net_call(cf_test *t) {
  if (!setup(t)) return;
  const char *fen = "7k/3r4/8/1b6/Q7/8/8/2K5 w - - 0 1";
  cf_position after;
  cf_syzygy_wdl wdl;
  cf_position_from_fen(&after, "7k/3r4/8/1Q6/8/8/8/2K5 b - - 0 1", NULL);
  CHECK(cf_syzygy_probe_wdl(&after, &wdl) && wdl == CF_SYZYGY_LOSS);
  run r;
  if (!search(t, fen, 600, &r)) return;
  const cf_search_move_stats *qxb5 = stats_of(&r, "a4b5");
  if (!CHECK(qxb5 != NULL)) return;
  CHECK(qxb5->n >= 1);
  CHECK_INT_EQ(qxb5->proven, 1);
  CHECK(r.c.terminal_visits >= (long)qxb5->n);
  CHECK(r.r.info.tb_hits >= 1);
  /* Every playout was a network call, a cache hit or a terminal visit. */
  CHECK_INT_EQ(r.r.info.evals + r.r.info.cache_hits + r.c.terminal_visits, r.r.info.playouts);
  /* The proven tablebase win is the move (it solves the root, so the
   * search ends there), scored as Lc0 scores one. */
  CHECK(r.r.info.best == qxb5->move);
  CHECK(r.r.info.mate >= 101);
  printf("  Qxb5: %u visits, none evaluated; %ld evals for %ld playouts; mate %d; tbhits %ld\n",
         qxb5->n, r.r.info.evals, r.r.info.playouts, r.r.info.mate, r.r.info.tb_hits);
}

/* Without tables the same search calls the network under Qxb5 and never
 * solves the root. */
static void test_without_tables_the_net_is_called(cf_test *t) {
  if (!setup(t)) return;
  cf_syzygy_unload();
  run r;
  if (!search(t, "7k/3r4/8/1b6/Q7/8/8/2K5 w - - 0 1", 600, &r)) return;
  const cf_search_move_stats *qxb5 = stats_of(&r, "a4b5");
  CHECK_INT_EQ(r.r.info.tb_hits, 0);
  CHECK(qxb5 != NULL && qxb5->proven == 2 && qxb5->n > 1);
  CHECK(r.r.info.playouts > 500);
  CHECK(r.r.info.evals + r.r.info.cache_hits + r.c.terminal_visits == r.r.info.playouts);
  CHECK(r.r.info.mate == 0 || r.r.info.mate < 101);
}

/* At the root, only the moves the tables keep get visits, whatever the
 * network prefers: Kxd2 is the only draw; in K+R v K late in the fifty-move
 * count only the moves that still win in time. */
static void test_root_filter_in_search(cf_test *t) {
  static const char *fens[] = {"8/8/8/8/8/2k5/3R4/K7 b - - 0 1",
                               "8/8/8/3k4/8/8/8/R3K3 w - - 70 90",
                               "8/8/8/3k4/8/8/8/R3K3 w - - 90 90"};
  if (!setup(t)) return;
  for (size_t f = 0; f < sizeof fens / sizeof fens[0]; f++) {
    cf_position pos;
    cf_position_from_fen(&pos, fens[f], NULL);
    cf_movelist safe, legal;
    CHECK(cf_syzygy_root_filter(&pos, 0, &safe) == CF_SYZYGY_ROOT_DTZ);
    cf_generate_legal(&pos, &legal);
    CHECK(safe.count < legal.count);
    run r;
    if (!search(t, fens[f], 200, &r)) continue;
    CHECK(r.r.info.tb_hits >= 1);
    int best_kept = 0, stray = 0;
    for (int j = 0; j < safe.count; j++) best_kept |= safe.moves[j] == r.r.info.best;
    for (int i = 0; i < r.n_stats; i++) {
      int kept = 0;
      for (int j = 0; j < safe.count; j++) kept |= safe.moves[j] == r.stats[i].move;
      stray += !kept && r.stats[i].n > 0;
    }
    CHECK(best_kept);
    CHECK_INT_EQ(stray, 0);
  }
  cf_position pos;
  cf_position_from_fen(&pos, fens[0], NULL);
  cf_movelist safe;
  cf_syzygy_root_filter(&pos, 0, &safe);
  CHECK(safe.count == 1 && safe.moves[0] == cf_move_make(cf_square(2, 2), cf_square(3, 1)));
}

/* Root moves with visits that the list does not hold. */
static int strays(const run *r, const cf_movelist *kept) {
  int stray = 0;
  for (int i = 0; i < r->n_stats; i++) {
    int in = 0;
    for (int j = 0; j < kept->count; j++) in |= kept->moves[j] == r->stats[i].move;
    stray += !in && r->stats[i].n > 0;
  }
  return stray;
}

/* SyzygyFastPlay: K+R v K early in the fifty-move count, where every
 * winning move is a certain win and all are searched by default; with the
 * option only those of the shortest DTZ (the root filter's ranking after a
 * repetition) get visits. */
static void test_fast_play(cf_test *t) {
  static const char *fen = "8/8/8/3k4/8/8/8/R3K3 w - - 0 1";
  if (!setup(t)) return;
  cf_position pos;
  cf_position_from_fen(&pos, fen, NULL);
  cf_movelist certain, fastest;
  CHECK(cf_syzygy_root_filter(&pos, 0, &certain) == CF_SYZYGY_ROOT_DTZ);
  CHECK(cf_syzygy_root_filter(&pos, 1, &fastest) == CF_SYZYGY_ROOT_DTZ);
  CHECK(fastest.count >= 1);
  CHECK(fastest.count < certain.count);
  run r;
  if (search_fast(t, fen, 200, false, &r)) {
    CHECK_INT_EQ(strays(&r, &certain), 0);
    CHECK(strays(&r, &fastest) > 0); /* by default the slower wins are searched too */
  }
  if (search_fast(t, fen, 200, true, &r)) CHECK_INT_EQ(strays(&r, &fastest), 0);
}

CF_TEST_MAIN(test_tree_probe_costs_no_net_call, test_without_tables_the_net_is_called,
             test_root_filter_in_search, test_fast_play)
