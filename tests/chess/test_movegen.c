/* test_movegen.c: the rules that perft counts exercise only in bulk, one
 * at a time: en passant with pins and checks, every castling condition,
 * promotions, and castling rights after make/unmake. */
#include "chess/cf_fen.h"
#include "chess/cf_move_uci.h"
#include "chess/cf_movegen.h"
#include "tests/cf_test.h"

static int setup(cf_test *t, cf_position *pos, const char *fen) {
  cf_error err;
  if (CHECK_INT_EQ(cf_position_from_fen(pos, fen, &err), CF_OK)) return 1;
  fprintf(stderr, "  %s: %s\n", fen, err.msg);
  return 0;
}

/* Plays a UCI move that must be legal. */
static int play(cf_test *t, cf_position *pos, const char *text) {
  cf_move m;
  cf_undo undo;
  cf_error err;
  if (!CHECK_INT_EQ(cf_move_parse_uci(pos, text, &m, &err), CF_OK)) {
    fprintf(stderr, "  %s: %s\n", text, err.msg);
    return 0;
  }
  cf_position_make(pos, m, &undo);
  return 1;
}

static int count_kind(const cf_position *pos, cf_move_kind kind) {
  cf_movelist list;
  int n = 0;
  cf_generate_legal(pos, &list);
  for (int i = 0; i < list.count; i++) n += cf_move_kind_of(list.moves[i]) == kind;
  return n;
}

static int has_move(const cf_position *pos, const char *text) {
  cf_move m;
  return cf_move_parse_uci(pos, text, &m, NULL) == CF_OK;
}

static void test_ep_plain(cf_test *t) {
  cf_position pos;
  if (!setup(t, &pos, "4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1") || !play(t, &pos, "d7d5")) return;
  CHECK_INT_EQ(pos.ep_square, cf_square(3, 5)); /* d6 */
  CHECK_INT_EQ(count_kind(&pos, CF_MOVE_EN_PASSANT), 1);
  if (!play(t, &pos, "e5d6")) return;
  CHECK_INT_EQ(pos.double_step_square, CF_NO_SQUARE);
  CHECK_INT_EQ(pos.board[cf_square(3, 4)], CF_NO_PIECE); /* the d5 pawn is gone */
  CHECK_INT_EQ(pos.board[cf_square(3, 5)], cf_piece_make(CF_WHITE, CF_PAWN));
  CHECK(cf_position_is_consistent(&pos));
}

/* White king a5, pawns d5 (black, just moved) and e5 (white), black rook h5:
 * exd6 would empty the rank between rook and king at once. */
static void test_ep_horizontally_pinned(cf_test *t) {
  cf_position pos;
  if (!setup(t, &pos, "4k3/3p4/8/K3P2r/8/8/8/8 b - - 0 1") || !play(t, &pos, "d7d5")) return;
  CHECK_INT_EQ(pos.ep_square, CF_NO_SQUARE); /* no legal capture: not an ep position */
  CHECK_INT_EQ(pos.double_step_square, cf_square(3, 5)); /* but the double step is recorded */
  CHECK_INT_EQ(count_kind(&pos, CF_MOVE_EN_PASSANT), 0);
  CHECK(!has_move(&pos, "e5d6"));
  CHECK(has_move(&pos, "e5e6")); /* the pawn alone is not pinned */
  /* The same through FEN: the square is valid syntax, so no error, but dropped. */
  if (!setup(t, &pos, "4k3/8/8/K2pP2r/8/8/8/8 w - d6 0 1")) return;
  CHECK_INT_EQ(pos.ep_square, CF_NO_SQUARE);
  /* With a third piece between them the rank stays closed: legal. */
  if (!setup(t, &pos, "4k3/8/8/K1NpP2r/8/8/8/8 w - d6 0 1")) return;
  CHECK_INT_EQ(count_kind(&pos, CF_MOVE_EN_PASSANT), 1);
}

/* A diagonally pinned pawn may capture en passant along the pin line. */
static void test_ep_along_diagonal_pin(cf_test *t) {
  cf_position pos;
  if (!setup(t, &pos, "1k6/2bp4/8/4P3/8/6K1/8/8 b - - 0 1") || !play(t, &pos, "d7d5")) return;
  CHECK(has_move(&pos, "e5d6"));
  CHECK(!has_move(&pos, "e5e6"));
}

/* The capture removes the pawn that blocked the bishop's diagonal: it gives
 * a discovered check, which is legal. */
static void test_ep_discovered_check(cf_test *t) {
  cf_position pos;
  if (!setup(t, &pos, "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1")) return;
  CHECK_INT_EQ(pos.ep_square, cf_square(3, 2));
  if (!play(t, &pos, "c4d3")) return;
  CHECK(cf_position_in_check(&pos));
  CHECK(cf_bb_has(cf_position_checkers(&pos), cf_square(2, 4))); /* the bishop on c5 */
}

/* A double step that gives check can be answered by capturing en passant,
 * and when a different piece gives check, en passant does not help. */
static void test_ep_and_check(cf_test *t) {
  cf_position pos;
  if (!setup(t, &pos, "8/8/8/1k6/3p4/8/2P5/4K3 w - - 0 1") || !play(t, &pos, "c2c4")) return;
  CHECK(cf_position_in_check(&pos));
  CHECK(has_move(&pos, "d4c3"));
  /* d2d4 uncovers the bishop c1's check on g5; exd3 does not block it. */
  if (!setup(t, &pos, "8/8/8/6k1/4p3/8/3P4/2B1K3 w - - 0 1") || !play(t, &pos, "d2d4")) return;
  CHECK(cf_position_in_check(&pos));
  CHECK(!has_move(&pos, "e4d3"));
  CHECK_INT_EQ(pos.ep_square, CF_NO_SQUARE);
}

static void test_castling_available(cf_test *t) {
  cf_position pos;
  if (!setup(t, &pos, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")) return;
  CHECK_INT_EQ(count_kind(&pos, CF_MOVE_CASTLING), 2);
  CHECK(has_move(&pos, "e1g1"));
  CHECK(has_move(&pos, "e1c1"));
  if (!play(t, &pos, "e1g1")) return;
  CHECK_INT_EQ(pos.board[cf_square(6, 0)], cf_piece_make(CF_WHITE, CF_KING));
  CHECK_INT_EQ(pos.board[cf_square(5, 0)], cf_piece_make(CF_WHITE, CF_ROOK));
  CHECK_INT_EQ(pos.board[cf_square(7, 0)], CF_NO_PIECE);
  CHECK_INT_EQ(pos.castling, CF_CASTLE_BLACK_KINGSIDE | CF_CASTLE_BLACK_QUEENSIDE);
  if (!play(t, &pos, "e8c8")) return;
  CHECK_INT_EQ(pos.board[cf_square(2, 7)], cf_piece_make(CF_BLACK, CF_KING));
  CHECK_INT_EQ(pos.board[cf_square(3, 7)], cf_piece_make(CF_BLACK, CF_ROOK));
  CHECK_INT_EQ(pos.castling, 0);
  CHECK(cf_position_is_consistent(&pos));
}

static void test_castling_conditions(cf_test *t) {
  static const struct {
    const char *fen;
    int kingside, queenside;
    const char *why;
  } cases[] = {
    {"4k3/8/8/8/8/8/8/R3K2R w - - 0 1", 0, 0, "no rights"},
    {"4k3/8/8/8/8/8/8/R3K2R w K - 0 1", 1, 0, "kingside right only"},
    {"4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1", 0, 0, "knights in the way (b1 counts too)"},
    {"4k3/8/8/8/8/8/8/R2QK2R w KQ - 0 1", 1, 0, "queen on d1"},
    {"4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1", 0, 0, "in check"},
    {"4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1", 0, 1, "f1 attacked: through check"},
    {"4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1", 0, 1, "g1 attacked: into check"},
    {"3rk3/8/8/8/8/8/8/R3K2R w KQ - 0 1", 1, 0, "d1 attacked"},
    {"2r1k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", 1, 0, "c1 attacked"},
    {"1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", 1, 1, "b1 attacked: the king never crosses it"},
    {"4k3/8/8/8/8/8/7b/R3K2R w KQ - 0 1", 0, 1, "bishop h2 attacks g1"},
    {"4k3/8/8/8/8/8/6n1/R3K2R w KQ - 0 1", 0, 0, "knight g2 gives check"},
    {"4k3/8/8/8/8/6n1/8/R3K2R w KQ - 0 1", 0, 1, "knight g3 attacks f1"},
    {"4k3/8/8/8/8/8/6p1/R3K2R w KQ - 0 1", 0, 1, "pawn g2 attacks f1"},
    {"4k3/8/8/8/8/8/1p6/R3K2R w KQ - 0 1", 1, 0, "pawn b2 attacks c1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cf_position pos;
    if (!setup(t, &pos, cases[i].fen)) continue;
    int ks = has_move(&pos, "e1g1"), qs = has_move(&pos, "e1c1");
    int ok = CHECK_INT_EQ(ks, cases[i].kingside);
    ok &= CHECK_INT_EQ(qs, cases[i].queenside); /* both checks always run */
    if (!ok) fprintf(stderr, "  %s (%s)\n", cases[i].fen, cases[i].why);
  }
}

static void test_castling_rights_lost(cf_test *t) {
  cf_position pos;
  /* Rook moves lose one right; a captured rook loses the opponent's. */
  if (!setup(t, &pos, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")) return;
  if (!play(t, &pos, "h1h8")) return; /* takes the black rook on h8 */
  CHECK_INT_EQ(pos.castling, CF_CASTLE_WHITE_QUEENSIDE | CF_CASTLE_BLACK_QUEENSIDE);
  CHECK(!has_move(&pos, "e8g8"));
  if (!setup(t, &pos, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1") || !play(t, &pos, "e1e2")) return;
  CHECK_INT_EQ(pos.castling, CF_CASTLE_BLACK_KINGSIDE | CF_CASTLE_BLACK_QUEENSIDE);
  /* make/unmake restores rights and key exactly. */
  cf_position before = pos;
  cf_move m;
  cf_undo undo;
  if (!CHECK_INT_EQ(cf_move_parse_uci(&pos, "a8a1", &m, NULL), CF_OK)) return;
  cf_position_make(&pos, m, &undo);
  CHECK_INT_EQ(pos.castling, CF_CASTLE_BLACK_KINGSIDE);
  cf_position_unmake(&pos, m, &undo);
  CHECK(memcmp(&pos, &before, sizeof pos) == 0);
}

static void test_promotions(cf_test *t) {
  cf_position pos;
  if (!setup(t, &pos, "2n1k3/1P6/8/8/8/8/8/4K3 w - - 0 1")) return;
  CHECK_INT_EQ(count_kind(&pos, CF_MOVE_PROMOTION), 8); /* b8 and c8, four pieces each */
  CHECK(has_move(&pos, "b7b8q"));
  CHECK(has_move(&pos, "b7c8n"));
  if (!play(t, &pos, "b7c8r")) return;
  CHECK_INT_EQ(pos.board[cf_square(2, 7)], cf_piece_make(CF_WHITE, CF_ROOK));
  CHECK_INT_EQ(pos.pieces[CF_WHITE][CF_PAWN], 0);
  CHECK_INT_EQ(pos.pieces[CF_BLACK][CF_KNIGHT], 0);
  CHECK(cf_position_in_check(&pos));
  CHECK(cf_position_is_consistent(&pos));
}

static void test_double_check_only_king_moves(cf_test *t) {
  cf_position pos;
  /* Rook e8 and bishop b4 both check the king on e1; the queen could take
   * the bishop, but that leaves the rook's check. */
  if (!setup(t, &pos, "4r1k1/8/8/Q7/1b6/8/8/4K3 w - - 0 1")) return;
  CHECK(cf_bb_several(cf_position_checkers(&pos)));
  cf_movelist list;
  cf_generate_legal(&pos, &list);
  for (int i = 0; i < list.count; i++) CHECK_INT_EQ(cf_move_from(list.moves[i]), cf_square(4, 0));
  CHECK(list.count > 0);
}

CF_TEST_MAIN(test_ep_plain, test_ep_horizontally_pinned, test_ep_along_diagonal_pin, test_ep_discovered_check,
             test_ep_and_check, test_castling_available, test_castling_conditions, test_castling_rights_lost,
             test_promotions, test_double_check_only_king_moves)
