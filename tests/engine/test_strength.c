/* test_strength.c: UCI_LimitStrength / UCI_Elo (engine/cf_strength.h).
 * The table's levels are monotonic; the options are announced with the
 * range; a bad UCI_Elo is refused naming the range and the value is kept;
 * a level caps the nodes of any go; and over a fixed set of positions, with
 * a fixed Seed, a lower level never searches more nodes on average nor
 * plays a better-ranked move on average, the rank being the move's place in
 * the full search's MultiPV ordering (a move it did not rank: below all).
 * No wall-clock assertions. */
#include <stdlib.h>
#include <string.h>

#include "engine/cf_strength.h"
#include "engine/uci/cf_uci.h"
#include "tests/cf_test.h"
#include "tests/engine/uci_transcript.h"

static cf_uci *engine(cf_test *t, transcript *tr) { return uci_transcript_engine(t, tr); }

/* Every Elo: nodes never fall and the temperature never rises as Elo goes
 * up (a limit of 0, none, is the most); the ends are one node and none. */
static void test_table_monotonic(cf_test *t) {
  cf_strength_level prev = cf_strength_at(CF_STRENGTH_ELO_MIN - 500);
  CHECK_INT_EQ(prev.nodes, 1);
  CHECK(prev.temperature > 0);
  for (int elo = CF_STRENGTH_ELO_MIN; elo <= CF_STRENGTH_ELO_MAX; elo++) {
    const cf_strength_level l = cf_strength_at(elo);
    const bool more = l.nodes == 0 || (prev.nodes != 0 && l.nodes >= prev.nodes);
    if (!CHECK(more && l.nodes >= 0 && l.temperature <= prev.temperature))
      fprintf(stderr, "  at %d: %ld nodes T %.3f after %ld nodes T %.3f\n", elo, l.nodes,
              (double)l.temperature, prev.nodes, (double)prev.temperature);
    prev = l;
  }
  CHECK_INT_EQ(cf_strength_at(CF_STRENGTH_ELO_MAX).nodes, 0);
  CHECK(cf_strength_at(CF_STRENGTH_ELO_MAX).temperature == 0);
  CHECK(cf_strength_at(CF_STRENGTH_ELO_MAX - 1).nodes > 1000);
}

/* The uci reply announces both options (UCI_Elo's max is full strength); a
 * bad UCI_Elo names the range and leaves the value as it was. */
static void test_options(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  const char *o = uci_transcript_run(u, &tr, "uci");
  CHECK_STR_CONTAINS(o, "option name UCI_LimitStrength type check default false\n");
  CHECK_STR_CONTAINS(o, "option name UCI_Elo type spin default " CF_STRENGTH_ELO_MAX_TEXT
                        " min 1000 max " CF_STRENGTH_ELO_MAX_TEXT "\n");
  CHECK_STR_EQ(uci_transcript_run(u, &tr, "setoption name UCI_Elo value 1400"), "");
  o = uci_transcript_run(u, &tr, "setoption name UCI_Elo value 999");
  CHECK_STR_CONTAINS(o, "info string error: option UCI_Elo: bad value '999' (expected 1000 to " CF_STRENGTH_ELO_MAX_TEXT ")");
  o = uci_transcript_run(u, &tr, "setoption name UCI_Elo value 5000");
  CHECK_STR_CONTAINS(o, "expected 1000 to " CF_STRENGTH_ELO_MAX_TEXT);
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_UCI_ELO), "1400");
  cf_uci_free(u);
}

/* A level's nodes cap any go: a long movetime, a clock, go nodes above it;
 * go nodes below it still wins; with the option off the clock decides. */
static void test_node_cap(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  uci_transcript_run(u, &tr, "setoption name WeightsFile value <built in>\nsetoption name "
                             "UCI_LimitStrength value true\nsetoption name UCI_Elo value 1200\nisready");
  const long cap = cf_strength_at(1200).nodes;
  const char *o = uci_transcript_run(u, &tr, "ucinewgame\nposition startpos\ngo movetime 3000");
  CHECK(uci_last_nodes(o) >= 1 && uci_last_nodes(o) <= cap);
  o = uci_transcript_run(u, &tr, "ucinewgame\nposition startpos moves e2e4\ngo wtime 60000 btime 60000");
  CHECK(uci_last_nodes(o) >= 1 && uci_last_nodes(o) <= cap);
  o = uci_transcript_run(u, &tr, "ucinewgame\nposition startpos\ngo nodes 100000");
  CHECK(uci_last_nodes(o) >= 1 && uci_last_nodes(o) <= cap);
  o = uci_transcript_run(u, &tr, "ucinewgame\nposition startpos\ngo nodes 2");
  CHECK(uci_last_nodes(o) >= 1 && uci_last_nodes(o) <= 2);
  /* Smart pruning off: the search alone would not stop before go's nodes. */
  o = uci_transcript_run(u, &tr, "setoption name UCI_LimitStrength value false\nsetoption name "
                                 "SmartPruningFactor value 0\nucinewgame\nposition startpos\n"
                                 "go nodes 300");
  CHECK(uci_last_nodes(o) > cap);
  cf_uci_free(u);
}

/* Positions: the first plies of openings of data/match/openings.txt, where
 * many moves are close, and Lichess puzzles of data/puzzles/ rated 1000 to
 * 1500 (the first twelve in the file, after the opponent's move), where the
 * ranking is sharp. */
static const char *const positions[] = {
    "startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6",
    "startpos moves e2e4 e7e5 f2f4 e5f4 g1f3",
    "startpos moves e2e4 c7c5 c2c3 g8f6 e4e5 f6d5",
    "startpos moves e2e4 e7e6 d2d4 d7d5 b1c3 f8b4",
    "fen 7k/8/4PKR1/3r4/6P1/6b1/8/8 b - - 2 46 moves g3h4",
    "fen 2k4r/Q1p2pp1/5n2/3rNq2/4p2p/6Pb/PPP1BP1P/R3R1K1 b - - 1 22 moves h4g3",
    "fen 5rr1/3pk1q1/p2Rp3/1pP4p/1P3p2/2P2QP1/1P3P1P/5RK1 w - - 1 26 moves d6d4",
    "fen 5rk1/5pp1/4p3/7R/2P5/2n2N2/5r2/2K4R b - - 2 37 moves g7g6",
    "fen 6k1/p4p2/3P4/6pp/P2Q4/5qPP/r4P1K/3R4 w - - 1 42 moves d6d7",
    "fen r1b3r1/2q2p1k/1n2p2n/p2pP1NP/P1pP1QP1/1pP5/1P3PB1/R3R1K1 b - - 4 26 moves h7h8",
    "fen 7r/8/3b4/3p4/5PR1/2kN4/4KP2/8 w - - 1 67 moves f4f5",
    "fen rnb2r2/pp4k1/2p3pp/4Np2/2BP4/8/PP4PP/2KRR3 b - - 0 18 moves b8d7",
    "fen 5k1r/p3Rpbp/3N2p1/4nbB1/2P5/3rP3/q4PPP/3Q1RK1 b - - 2 16 moves f7f6",
    "fen 5rk1/p4pp1/3qb2p/1B1p4/1r1P4/Q3PN2/P4PPP/2R3K1 b - - 5 19 moves b4b1",
    "fen 5k2/5r1p/pp2pQ2/8/8/1P6/P1q2PPP/4R1K1 w - - 1 32 moves f6e6",
    "fen 5k2/1R4p1/p2bpr1p/3rN3/3P4/8/P1R2pPP/5K2 b - - 1 34 moves d6e5",
};
#define N_POS ((int)(sizeof positions / sizeof positions[0]))
#define NODES "400" /* every search's go: the full search, and the top levels' cap */
#define DRAWS 4     /* moves drawn per position and level */
#define MAX_RANKED 64

/* The full search's ranking of the root moves: MultiPV lines in order. */
static int ranking(const char *out, char moves[][8]) {
  int n = 0;
  const char *last = strstr(out, "bestmove");
  for (const char *p = strstr(out, " multipv "); p && p < last && n < MAX_RANKED;
       p = strstr(p + 1, " multipv ")) {
    const int k = atoi(p + 9);
    const char *pv = strstr(p, " pv ");
    if (k == 1) n = 0; /* a later info block replaces an earlier one */
    if (!pv || k != n + 1) continue;
    sscanf(pv + 4, "%7s", moves[n++]);
  }
  return n;
}

static void test_levels_monotonic(cf_test *t) {
  static const int levels[] = {1000, 1200, 1400, 1600, CF_STRENGTH_ELO_MAX};
  enum { N_LEVELS = (int)(sizeof levels / sizeof levels[0]) };
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  /* Smart pruning stops a search on the clock (its 200 ms tolerance), so
   * under load two levels that both reach go's 400 nodes could stop at
   * other counts and trade ranks: off, every search here is decided by
   * nodes and seeds alone. */
  uci_transcript_run(u, &tr,
                     "setoption name WeightsFile value <built in>\n"
                     "setoption name SmartPruningFactor value 0\nisready");
  static char ranked[N_POS][MAX_RANKED][8];
  int n_ranked[N_POS];
  char cmd[512];
  uci_transcript_run(u, &tr, "setoption name MultiPV value 500");
  for (int i = 0; i < N_POS; i++) {
    snprintf(cmd, sizeof cmd, "ucinewgame\nposition %s\ngo nodes " NODES, positions[i]);
    n_ranked[i] = ranking(uci_transcript_run(u, &tr, cmd), ranked[i]);
    CHECK(n_ranked[i] > 1);
  }
  uci_transcript_run(u, &tr, "setoption name MultiPV value 1\nsetoption name UCI_LimitStrength value true");
  double rank[N_LEVELS], nodes[N_LEVELS];
  for (int l = 0; l < N_LEVELS; l++) {
    snprintf(cmd, sizeof cmd, "setoption name UCI_Elo value %d\nsetoption name Seed value 4242", levels[l]);
    uci_transcript_run(u, &tr, cmd);
    rank[l] = nodes[l] = 0;
    for (int i = 0; i < N_POS; i++)
      for (int d = 0; d < DRAWS; d++) {
        snprintf(cmd, sizeof cmd, "ucinewgame\nposition %s\ngo nodes " NODES, positions[i]);
        const char *o = uci_transcript_run(u, &tr, cmd);
        char move[8] = "";
        const char *b = strstr(o, "bestmove ");
        if (b) sscanf(b + 9, "%7s", move);
        int r = n_ranked[i] + 1; /* a move the full search did not rank: below all */
        for (int k = 0; k < n_ranked[i]; k++)
          if (strcmp(move, ranked[i][k]) == 0) r = k + 1;
        rank[l] += r / (double)(N_POS * DRAWS);
        const long n = uci_last_nodes(o);
        nodes[l] += (double)n / (N_POS * DRAWS);
        /* Never more than the level's nodes (its cap, or go's 400 above it). */
        const long cap = cf_strength_at(levels[l]).nodes;
        if (!CHECK(n >= 1 && (cap == 0 || n <= cap)))
          fprintf(stderr, "  UCI_Elo %d searched %ld nodes (at most %ld)\n", levels[l], n, cap);
      }
    fprintf(stderr, "  UCI_Elo %d: mean rank %.2f, mean nodes %.1f\n", levels[l], rank[l], nodes[l]);
    /* The mean nodes only where the caps differ: two levels both capped by
     * go's 400 search the same nodes. */
    const long cap = cf_strength_at(levels[l]).nodes;
    const bool below_go = cap > 0 && cap < atol(NODES);
    if (l > 0 && !CHECK(rank[l] <= rank[l - 1] && (!below_go || nodes[l] >= nodes[l - 1])))
      fprintf(stderr, "  UCI_Elo %d plays better or searches more than %d\n", levels[l - 1], levels[l]);
  }
  /* The ends differ: the weakest level plays clearly worse moves. */
  CHECK(rank[0] > rank[N_LEVELS - 1] + 0.5);
  cf_uci_free(u);
}

CF_TEST_MAIN(test_table_monotonic, test_options, test_node_cap, test_levels_monotonic)
