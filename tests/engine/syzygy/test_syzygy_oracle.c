/* test_syzygy_oracle.c: the prober against the retrograde oracle
 * (retro_solver.h) on every legal K+Q v K, K+R v K and K+P v K position,
 * then the root filter's choices, and the positions Lc0 never probes. */
#include <stdio.h>
#include <stdlib.h>

#include "tests/cf_test.h"
#include "chess/cf_chess.h"
#include "engine/syzygy/cf_syzygy.h"
#include "retro_solver.h"
#include "syzygy_test_tables.h"

static retro_table *g_tables[CF_PIECE_TYPE_COUNT];
static const retro_table *g_promo[CF_PIECE_TYPE_COUNT];

static int load_tables(cf_test *t) { return syzygy_test_load(t); }

static const retro_table *solved(cf_piece_type piece) {
  if (!g_tables[piece]) {
    if (piece == CF_PAWN) solved(CF_QUEEN), solved(CF_ROOK);
    g_tables[piece] = malloc(sizeof *g_tables[piece]);
    g_tables[piece]->piece = piece;
    retro_solve(g_tables[piece], g_promo);
    g_promo[piece] = piece == CF_QUEEN || piece == CF_ROOK ? g_tables[piece] : NULL;
  }
  return g_tables[piece];
}

/* The same position with the colours swapped (black holds the piece). */
static void flip_colours(const cf_position *pos, cf_position *out) {
  char fen[CF_FEN_MAX], flipped[CF_FEN_MAX];
  cf_position_to_fen(pos, fen);
  int n = 0, rank_start[8], r = 0;
  rank_start[0] = 0;
  for (int i = 0; fen[i] != ' '; i++)
    if (fen[i] == '/') rank_start[++r] = i + 1;
  for (int k = 7; k >= 0; k--) {
    for (int i = rank_start[k]; fen[i] != '/' && fen[i] != ' '; i++) {
      char c = fen[i];
      flipped[n++] = (char)(c >= 'a' && c <= 'z' ? c - 32 : c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    if (k) flipped[n++] = '/';
  }
  snprintf(flipped + n, sizeof flipped - (size_t)n, " %c - - 0 1", pos->side == CF_WHITE ? 'b' : 'w');
  cf_position_from_fen(out, flipped, NULL);
}

/* WDL of every legal position (and of a sample with colours swapped). */
static void check_wdl_table(cf_test *t, cf_piece_type piece) {
  if (!load_tables(t)) return;
  const retro_table *tb = solved(piece);
  int compared = 0, mismatches = 0, counts[5] = {0};
  for (int i = 0; i < RETRO_SIZE; i++) {
    if (tb->value[i] == RETRO_ILLEGAL) continue;
    cf_position pos;
    retro_position(piece, i, &pos);
    cf_syzygy_wdl wdl;
    int ok = cf_syzygy_probe_wdl(&pos, &wdl);
    if (!ok || (int)wdl != tb->value[i]) {
      if (++mismatches <= 5) {
        char fen[CF_FEN_MAX];
        cf_position_to_fen(&pos, fen);
        fprintf(stderr, "%s: probe %d wdl %d, oracle %d\n", fen, ok, ok ? (int)wdl : 0, tb->value[i]);
      }
      continue;
    }
    counts[tb->value[i] + 2]++;
    if (i % 7 == 0) {
      cf_position flipped;
      flip_colours(&pos, &flipped);
      if (!cf_syzygy_probe_wdl(&flipped, &wdl) || (int)wdl != tb->value[i]) mismatches++;
    }
    compared++;
  }
  CHECK_INT_EQ(mismatches, 0);
  CHECK(compared > 100000);
  /* Each ending has wins and losses; the pawn ending has draws too. */
  CHECK(counts[RETRO_WIN + 2] > 1000 && counts[RETRO_LOSS + 2] > 1000);
  if (piece == CF_PAWN) CHECK(counts[RETRO_DRAW + 2] > 1000);
  printf("  %c: %d positions, %d won, %d drawn, %d lost\n", "PNBRQK"[piece], compared,
         counts[4], counts[2], counts[0]);
}

static void test_wdl_kqk(cf_test *t) { check_wdl_table(t, CF_QUEEN); }
static void test_wdl_krk(cf_test *t) { check_wdl_table(t, CF_ROOK); }
static void test_wdl_kpk(cf_test *t) { check_wdl_table(t, CF_PAWN); }

/* Lc0's rank of a root move from the oracle: dtz counted from the root. */
static int lc0_rank(int dtz, int cnt50) {
  if (dtz > 0) return dtz + cnt50 <= 99 ? 1000 : 1000 - (dtz + cnt50);
  if (dtz < 0) return -dtz * 2 + cnt50 < 100 ? -1000 : -1000 + (-dtz + cnt50);
  return 0;
}

/* With the rule-50 count at zero every result is exact: the kept moves are
 * exactly those the oracle ranks best (in KQK and KRK no win is long enough
 * for the fifty-move rule, and a lost side's moves all rank alike). */
static void check_root_filter(cf_test *t, cf_piece_type piece) {
  if (!load_tables(t)) return;
  const retro_table *tb = solved(piece);
  int positions = 0, wrong = 0, narrowed = 0;
  for (int i = 0; i < RETRO_SIZE; i += 11) {
    cf_position pos;
    if (tb->value[i] == RETRO_ILLEGAL || !retro_position(piece, i, &pos)) continue;
    cf_movelist legal, safe;
    cf_generate_legal(&pos, &legal);
    if (legal.count == 0) continue;
    int rank[CF_MAX_MOVES], best = -100000;
    for (int k = 0; k < legal.count; k++) {
      int v, d;
      retro_after(tb, g_promo, &pos, legal.moves[k], &v, &d);
      int dtz = v == RETRO_LOSS ? d + 1 : v == RETRO_WIN ? -(d + 1) : 0;
      rank[k] = lc0_rank(dtz, 0);
      if (rank[k] > best) best = rank[k];
    }
    cf_syzygy_root how = cf_syzygy_root_filter(&pos, 0, &safe);
    int expected = 0, agree = how == CF_SYZYGY_ROOT_DTZ;
    for (int k = 0; k < legal.count; k++) {
      int kept = 0;
      for (int j = 0; j < safe.count; j++) kept |= safe.moves[j] == legal.moves[k];
      expected += rank[k] == best;
      agree &= kept == (rank[k] == best);
    }
    agree &= expected == safe.count;
    narrowed += safe.count < legal.count;
    wrong += !agree;
    positions++;
  }
  CHECK_INT_EQ(wrong, 0);
  CHECK(positions > 10000);
  CHECK(narrowed > 1000);
}

static void test_root_kqk(cf_test *t) { check_root_filter(t, CF_QUEEN); }
static void test_root_krk(cf_test *t) { check_root_filter(t, CF_ROOK); }

/* Late in the fifty-move count a won KRK must still be won in time: every
 * kept move wins, and where the oracle has a win that zeroes the count with
 * a ply to spare, every kept move does too (the tables' DTZ may round a
 * distance up by one ply, which the spare ply absorbs). */
static void test_root_dtz_conversion(cf_test *t) {
  if (!load_tables(t)) return;
  const retro_table *tb = solved(CF_ROOK);
  int positions = 0, lost_win = 0, too_slow = 0, tight = 0;
  for (int i = 0; i < RETRO_SIZE; i += 29) {
    if (tb->value[i] != RETRO_WIN) continue;
    for (int cnt50 = 60; cnt50 <= 96; cnt50 += 12) {
      cf_position pos;
      retro_position(CF_ROOK, i, &pos);
      pos.rule50 = cnt50;
      cf_movelist safe;
      if (cf_syzygy_root_filter(&pos, 0, &safe) != CF_SYZYGY_ROOT_DTZ) {
        lost_win++;
        continue;
      }
      cf_movelist legal;
      cf_generate_legal(&pos, &legal);
      int fastest = 1000;
      for (int k = 0; k < legal.count; k++) {
        int v, d;
        retro_after(tb, g_promo, &pos, legal.moves[k], &v, &d);
        if (v == RETRO_LOSS && d + 1 < fastest) fastest = d + 1;
      }
      for (int j = 0; j < safe.count; j++) {
        int v, d;
        retro_after(tb, g_promo, &pos, safe.moves[j], &v, &d);
        if (v != RETRO_LOSS) lost_win++;
        else if (fastest + cnt50 <= 98 && d + 1 + cnt50 > 100) too_slow++;
      }
      tight += fastest + cnt50 > 90;
      positions++;
    }
  }
  CHECK_INT_EQ(lost_win, 0);
  CHECK_INT_EQ(too_slow, 0);
  CHECK(positions > 10000);
  CHECK(tight > 1000);
  printf("  %d won positions at counts 60-96, %d with the fastest win beyond count 90\n", positions, tight);
}

static void probe_fen(cf_test *t, const char *fen, int expect_tree, int expect_root) {
  cf_position pos;
  if (!CHECK_INT_EQ(cf_position_from_fen(&pos, fen, NULL), CF_OK)) return;
  cf_syzygy_wdl wdl;
  cf_movelist safe;
  CHECK_INT_EQ(cf_syzygy_tree_probeable(&pos), expect_tree);
  CHECK_INT_EQ(cf_syzygy_probe_wdl(&pos, &wdl), expect_tree);
  CHECK_INT_EQ(cf_syzygy_root_filter(&pos, 0, &safe) != CF_SYZYGY_ROOT_NONE, expect_root);
}

/* Lc0 probes in the tree only with no castling rights and a zero rule-50
 * count, and at the root only without castling rights and within the
 * tables' piece count. */
static void test_exclusions(cf_test *t) {
  if (!load_tables(t)) return;
  probe_fen(t, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", 1, 1);
  probe_fen(t, "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", 0, 0);   /* castling right */
  probe_fen(t, "4k3/8/8/8/8/8/8/R3K3 w - - 1 1", 0, 1);   /* rule-50 count 1 */
  probe_fen(t, "4k3/8/8/8/8/8/8/R3K3 w - - 37 40", 0, 1);
  probe_fen(t, "4k3/8/8/8/8/8/1P6/RN2K3 w - - 0 1", 0, 0); /* five pieces */
  cf_syzygy_unload();
  probe_fen(t, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", 0, 0);  /* nothing loaded */
}

/* The 4-piece tables answer too: K+B+N v K is won for the side with the
 * pieces wherever nothing hangs. */
static void test_four_pieces(cf_test *t) {
  if (!load_tables(t)) return;
  cf_position pos;
  cf_syzygy_wdl wdl;
  CHECK_INT_EQ(cf_position_from_fen(&pos, "8/8/8/4k3/8/8/8/KBN5 w - - 0 1", NULL), CF_OK);
  CHECK(cf_syzygy_probe_wdl(&pos, &wdl) && wdl == CF_SYZYGY_WIN);
  CHECK_INT_EQ(cf_position_from_fen(&pos, "8/8/8/4k3/8/8/8/KBN5 b - - 0 1", NULL), CF_OK);
  CHECK(cf_syzygy_probe_wdl(&pos, &wdl) && wdl == CF_SYZYGY_LOSS);
}

CF_TEST_MAIN(test_wdl_kqk, test_wdl_krk, test_wdl_kpk, test_root_kqk, test_root_krk,
             test_root_dtz_conversion, test_exclusions, test_four_pieces)
