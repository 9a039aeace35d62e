/* test_perft.c: move generation against published perft counts, at depths
 * that keep this under a second even with sanitizers (the full depths run
 * in test_perft_deep.c, suite 'slow'). */
#include <inttypes.h>

#include "chess/cf_fen.h"
#include "chess/cf_movegen.h"
#include "chess/cf_perft.h"
#include "tests/cf_test.h"
#include "tests/chess/perft_positions.h"

static uint64_t perft_fen(cf_test *t, const char *fen, int depth) {
  cf_position pos;
  cf_error err;
  if (!CHECK_INT_EQ(cf_position_from_fen(&pos, fen, &err), CF_OK)) {
    fprintf(stderr, "  %s: %s\n", fen, err.msg);
    return 0;
  }
  cf_position before = pos;
  uint64_t nodes = cf_perft(&pos, depth);
  CHECK(memcmp(&before, &pos, sizeof pos) == 0); /* make/unmake restored everything */
  return nodes;
}

/* The six standard positions, up to about 5 million nodes each. */
static void test_perft_standard_positions(cf_test *t) {
  for (int i = 0; i < CPW_POSITION_COUNT; i++) {
    const perft_case *c = &cpw_positions[i];
    for (int d = 1; d <= c->depths && c->counts[d - 1] <= 5000000; d++) {
      uint64_t nodes = perft_fen(t, c->fen, d);
      if (!CHECK_INT_EQ(nodes, c->counts[d - 1])) fprintf(stderr, "  %s depth %d\n", c->name, d);
    }
  }
}

/* Positions built around single rules (the well-known "perftsuite" set
 * shared on talkchess): en passant with discovered checks and pins,
 * castling that gives check or is prevented, promotions with and without
 * check, and stalemate traps. */
static void test_perft_rule_positions(cf_test *t) {
  static const struct {
    const char *fen;
    int depth;
    uint64_t nodes;
  } cases[] = {
    {"3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", 6, 1134888},      /* ep would expose the king */
    {"8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1", 6, 1015133},     /* double step into a pin */
    {"8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 6, 1440467},     /* ep out of a diagonal pin */
    {"5k2/8/8/8/8/8/8/4K2R w K - 0 1", 6, 661072},           /* castling gives check */
    {"3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", 6, 803711},           /* long castling gives check */
    {"r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1", 4, 1274206}, /* castling rights lost */
    {"r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1", 4, 1720476},  /* castling prevented */
    {"2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", 6, 3821001},       /* promote out of check */
    {"8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1", 5, 1004658},     /* discovered check */
    {"4k3/1P6/8/8/8/8/K7/8 w - - 0 1", 6, 217342},           /* promote to give check */
    {"8/P1k5/K7/8/8/8/8/8 w - - 0 1", 6, 92683},             /* under-promotion */
    {"K1k5/8/P7/8/8/8/8/8 w - - 0 1", 6, 2217},              /* self stalemate */
    {"8/k1P5/8/1K6/8/8/8/8 w - - 0 1", 7, 567584},           /* stalemate and checkmate */
    {"8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1", 4, 23527},         /* checkmate and stalemate */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint64_t nodes = perft_fen(t, cases[i].fen, cases[i].depth);
    if (!CHECK_INT_EQ(nodes, cases[i].nodes)) fprintf(stderr, "  %s\n", cases[i].fen);
  }
}

/* Chess960 castling (king-takes-rook, rooks on any file), from the
 * published Chess960 perft set. */
static void test_perft_chess960(cf_test *t) {
  static const struct {
    const char *fen;
    uint64_t counts[4];
  } cases[] = {
    {"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", {21, 528, 12189, 326672}},
    {"2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9", {21, 807, 18002, 667366}},
    {"b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9", {20, 479, 10471, 273318}},
    {"qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9", {22, 593, 13440, 382958}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int d = 1; d <= 4; d++) {
      uint64_t nodes = perft_fen(t, cases[i].fen, d);
      if (!CHECK_INT_EQ(nodes, cases[i].counts[d - 1])) fprintf(stderr, "  %s depth %d\n", cases[i].fen, d);
    }
}

static void test_perft_divide_sums(cf_test *t) {
  cf_position pos;
  cf_movelist moves;
  uint64_t counts[CF_MAX_MOVES], sum = 0;
  if (!CHECK_INT_EQ(cf_position_from_fen(&pos, cpw_positions[1].fen, NULL), CF_OK)) return;
  uint64_t total = cf_perft_divide(&pos, 3, &moves, counts);
  CHECK_INT_EQ(moves.count, 48);
  for (int i = 0; i < moves.count; i++) sum += counts[i];
  CHECK_INT_EQ(sum, total);
  CHECK_INT_EQ(total, 97862);
  CHECK_INT_EQ(cf_perft(&pos, 0), 1);
}

CF_TEST_MAIN(test_perft_standard_positions, test_perft_rule_positions, test_perft_chess960,
             test_perft_divide_sums)
