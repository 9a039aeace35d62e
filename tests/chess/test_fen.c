/* test_fen.c: FEN parsing (one check per class of bad FEN, each asserting
 * that the message names the problem), writing, and round trips. */
#include "chess/cf_fen.h"
#include "chess/cf_movegen.h"
#include "tests/cf_test.h"

/* Parses fen, expecting CF_ERR_ARG with `needle` in the message. */
#define CHECK_BAD_FEN(fen, needle)                                                  \
  do {                                                                              \
    cf_position pos_;                                                               \
    cf_error err_ = {CF_OK, ""};                                                    \
    CHECK_INT_EQ(cf_position_from_fen(&pos_, (fen), &err_), CF_ERR_ARG);            \
    CHECK_INT_EQ(err_.status, CF_ERR_ARG);                                          \
    CHECK_STR_CONTAINS(err_.msg, (needle));                                         \
  } while (0)

static void test_fen_startpos(cf_test *t) {
  cf_position pos, start;
  char fen[CF_FEN_MAX];
  if (!CHECK_INT_EQ(cf_position_from_fen(&pos, CF_FEN_STARTPOS, NULL), CF_OK)) return;
  cf_position_startpos(&start);
  CHECK(memcmp(&pos, &start, sizeof pos) == 0);
  CHECK_INT_EQ(pos.side, CF_WHITE);
  CHECK_INT_EQ(pos.castling, 15);
  CHECK_INT_EQ(pos.ep_square, CF_NO_SQUARE);
  CHECK_INT_EQ(pos.rule50, 0);
  CHECK_INT_EQ(pos.fullmove, 1);
  CHECK_INT_EQ(pos.pieces[CF_WHITE][CF_PAWN], 0xFF00ULL);
  CHECK_INT_EQ(pos.pieces[CF_BLACK][CF_KING], 1ULL << 60);
  CHECK_INT_EQ(pos.castle_rook[cf_castle_index(CF_WHITE, 1)], 0);
  CHECK_INT_EQ(pos.castle_rook[cf_castle_index(CF_BLACK, 0)], 63);
  CHECK(cf_position_is_consistent(&pos));
  cf_position_to_fen(&pos, fen);
  CHECK_STR_EQ(fen, CF_FEN_STARTPOS);
}

static void test_fen_round_trip(cf_test *t) {
  static const char *fens[] = {
    CF_FEN_STARTPOS,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b Kq d3 0 3",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 37 81",
    "4k3/8/8/8/8/8/8/4K2R b K - 99 250",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
  };
  for (size_t i = 0; i < sizeof fens / sizeof fens[0]; i++) {
    cf_position pos;
    char out[CF_FEN_MAX];
    cf_error err;
    if (!CHECK_INT_EQ(cf_position_from_fen(&pos, fens[i], &err), CF_OK)) {
      fprintf(stderr, "  %s: %s\n", fens[i], err.msg);
      continue;
    }
    CHECK(cf_position_is_consistent(&pos));
    cf_position_to_fen(&pos, out);
    CHECK_STR_EQ(out, fens[i]);
  }
}

static void test_fen_four_fields_and_whitespace(cf_test *t) {
  cf_position pos;
  char out[CF_FEN_MAX];
  CHECK_INT_EQ(cf_position_from_fen(&pos, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", NULL), CF_OK);
  cf_position_to_fen(&pos, out);
  CHECK_STR_EQ(out, CF_FEN_STARTPOS);
  CHECK_INT_EQ(cf_position_from_fen(&pos, "  \t8/8/8/8/8/8/8/K6k  b -  -\n 3   40 \n", NULL), CF_OK);
  cf_position_to_fen(&pos, out);
  CHECK_STR_EQ(out, "8/8/8/8/8/8/8/K6k b - - 3 40");
  /* Fullmove 0, written by some tools, reads as 1. */
  CHECK_INT_EQ(cf_position_from_fen(&pos, "8/8/8/8/8/8/8/K6k w - - 0 0", NULL), CF_OK);
  CHECK_INT_EQ(pos.fullmove, 1);
}

/* An en-passant square with no legal capture onto it is valid FEN but
 * changes nothing, so it is dropped (and the key equals the plain one). */
static void test_fen_ep_normalised(cf_test *t) {
  cf_position with_ep, without;
  char out[CF_FEN_MAX];
  CHECK_INT_EQ(cf_position_from_fen(&with_ep, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", NULL),
               CF_OK);
  CHECK_INT_EQ(cf_position_from_fen(&without, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", NULL),
               CF_OK);
  CHECK_INT_EQ(with_ep.ep_square, CF_NO_SQUARE);
  CHECK_INT_EQ(with_ep.double_step_square, cf_square(4, 2)); /* e3, as given */
  CHECK_INT_EQ(without.double_step_square, CF_NO_SQUARE);
  CHECK_INT_EQ(with_ep.key, without.key);
  cf_position_to_fen(&with_ep, out);
  CHECK_STR_EQ(out, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
  /* A capturable one is kept and changes the key. */
  CHECK_INT_EQ(cf_position_from_fen(&with_ep, "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1", NULL), CF_OK);
  CHECK_INT_EQ(with_ep.ep_square, 20);
  CHECK_INT_EQ(cf_position_from_fen(&without, "4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1", NULL), CF_OK);
  CHECK(with_ep.key != without.key);
  /* Capturable in principle but pinned: not legal, so dropped. */
  CHECK_INT_EQ(cf_position_from_fen(&with_ep, "8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1", NULL), CF_OK);
  CHECK_INT_EQ(with_ep.ep_square, CF_NO_SQUARE);
}

static void test_fen_bad_structure(cf_test *t) {
  cf_position pos;
  cf_error err;
  CHECK_INT_EQ(cf_position_from_fen(&pos, NULL, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "NULL");
  CHECK_INT_EQ(cf_position_from_fen(&pos, NULL, NULL), CF_ERR_ARG); /* err may be NULL */
  CHECK_BAD_FEN("", "empty");
  CHECK_BAD_FEN("   \t ", "empty");
  CHECK_BAD_FEN("8/8/8/8/8/8/8/K6k w", "2 fields");
  CHECK_BAD_FEN("8/8/8/8/8/8/8/K6k w - - 0", "5 fields");
  CHECK_BAD_FEN("8/8/8/8/8/8/8/K6k w - - 0 1 extra", "7 fields");
}

static void test_fen_bad_board(cf_test *t) {
  CHECK_BAD_FEN("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "7 ranks");
  CHECK_BAD_FEN("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "9 ranks");
  CHECK_BAD_FEN("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "bad piece letter 'X'");
  CHECK_BAD_FEN("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "rank 1");
  CHECK_BAD_FEN("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQK0NR w KQkq - 0 1", "empty-square count '0'");
  CHECK_BAD_FEN("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "empty-square count '9'");
  CHECK_BAD_FEN("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 7 is too long");
  CHECK_BAD_FEN("rnbqkbnr/pppppppp/8/4P4/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 5 is too long");
  CHECK_BAD_FEN("rnbqkbnr/pppppppp/8/7/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 5 is too short (7 squares");
  CHECK_BAD_FEN("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", "rank 1 is too short");
  CHECK_BAD_FEN("rnbqkbnr/pppppppp//8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 6 is too short (0 squares");
}

static void test_fen_bad_kings_and_pawns(cf_test *t) {
  CHECK_BAD_FEN("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "no black king");
  CHECK_BAD_FEN("8/8/8/8/8/8/8/7k w - - 0 1", "no white king");
  CHECK_BAD_FEN("8/8/8/8/8/8/8/K1K4k w - - 0 1", "2 white kings");
  CHECK_BAD_FEN("kk6/8/8/8/8/8/8/K7 w - - 0 1", "2 black kings");
  CHECK_BAD_FEN("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "white pawn on a1");
  CHECK_BAD_FEN("4k2p/8/8/8/8/8/8/4K3 w - - 0 1", "black pawn on h8");
  CHECK_BAD_FEN("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "first or last rank");
  CHECK_BAD_FEN("4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1", "9 black pawns");
  CHECK_BAD_FEN("QQQQkQQQ/QQQQQQQQ/8/8/8/8/8/4K3 w - - 0 1", "promoted");
  CHECK_BAD_FEN("4k3/8/8/8/8/NNNNNNNN/NNNNNNNN/NNNKNNNN w - - 0 1", "24 white pieces");
}

static void test_fen_bad_side_and_check(cf_test *t) {
  CHECK_BAD_FEN(" 8/8/8/8/8/8/8/K6k x - - 0 1", "bad side to move 'x'");
  CHECK_BAD_FEN("8/8/8/8/8/8/8/K6k W - - 0 1", "bad side to move 'W'");
  CHECK_BAD_FEN("8/8/8/8/8/8/8/K6k white - - 0 1", "bad side to move 'white'");
  /* Black is in check from the rook but it is white's move. */
  CHECK_BAD_FEN("4k3/8/8/8/8/8/8/K3R3 w - - 0 1", "side not to move (black) is in check");
  CHECK_BAD_FEN("4k3/8/8/8/8/8/8/K3r3 b - - 0 1", "side not to move (white) is in check");
  /* Kings next to each other: each attacks the other. */
  CHECK_BAD_FEN("8/8/8/8/8/8/8/Kk6 w - - 0 1", "is in check");
}

static void test_fen_bad_castling(cf_test *t) {
  CHECK_BAD_FEN("r3k2r/8/8/8/8/8/8/R3K2R w KQkx - 0 1", "unexpected 'x'");
  CHECK_BAD_FEN("r3k2r/8/8/8/8/8/8/R3K2R w KQk1 - 0 1", "bad castling field 'KQk1'");
  CHECK_BAD_FEN("r3k2r/8/8/8/8/8/8/R3K2R w KK - 0 1", "white kingside right given twice");
  CHECK_BAD_FEN("r3k2r/8/8/8/8/8/8/R3K2R w KH - 0 1", "given twice");
  /* Rights the placement cannot support. */
  CHECK_BAD_FEN("r3k2r/8/8/8/8/8/8/R3K3 w K - 0 1",
                "right 'K' needs a white rook on rank 1 on the king's kingside (towards the h-file)");
  CHECK_BAD_FEN("r3k2r/8/8/8/8/8/3K4/R6R w Q - 0 1", "right 'Q' needs the white king on rank 1");
  CHECK_BAD_FEN("4k2r/8/8/8/8/8/8/R3K2R w q - 0 1", "right 'q' needs a black rook on rank 8 on the king's queenside");
  /* A rook beyond the king does not count for that side's K/Q. */
  CHECK_BAD_FEN("4k3/8/8/8/8/8/8/RK6 w K - 0 1", "right 'K' needs a white rook on rank 1");
  CHECK_BAD_FEN("4k3/8/8/8/8/8/8/RK6 w B - 0 1", "right 'B' needs a white rook on b1");
  CHECK_BAD_FEN("r3k2r/8/8/8/8/8/8/R3K2R w G - 0 1", "right 'G' needs a white rook on g1");
  CHECK_BAD_FEN("r3k2r/8/8/8/8/8/4K3/R6R w H - 0 1", "right 'H' needs the white king on rank 1");
}

static void test_fen_bad_en_passant(cf_test *t) {
  CHECK_BAD_FEN("4k3/8/8/3pP3/8/8/8/4K3 w - e9 0 1", "bad en-passant square 'e9'");
  CHECK_BAD_FEN("4k3/8/8/3pP3/8/8/8/4K3 w - d66 0 1", "bad en-passant square 'd66'");
  CHECK_BAD_FEN("4k3/8/8/3pP3/8/8/8/4K3 w - D6 0 1", "bad en-passant square 'D6'");
  CHECK_BAD_FEN("4k3/8/8/3pP3/8/8/8/4K3 w - d3 0 1", "d3 is impossible with white to move (must be on rank 6)");
  CHECK_BAD_FEN("4k3/8/8/8/3Pp3/8/8/4K3 b - d6 0 1", "with black to move (must be on rank 3)");
  CHECK_BAD_FEN("4k3/8/8/3pP3/8/8/8/4K3 w - c6 0 1", "no black pawn on c5");
  CHECK_BAD_FEN("4k3/3p4/8/3pP3/8/8/8/4K3 w - d6 0 1", "d6 and d7 must be empty");
}

static void test_fen_bad_counters(cf_test *t) {
  CHECK_BAD_FEN("8/8/8/8/8/8/8/K6k w - - x 1", "halfmove clock 'x' is not a number");
  CHECK_BAD_FEN("8/8/8/8/8/8/8/K6k w - - 1 y", "fullmove number 'y' is not a number");
  CHECK_BAD_FEN("8/8/8/8/8/8/8/K6k w - - 5x 1", "not a number");
  CHECK_BAD_FEN("8/8/8/8/8/8/8/K6k w - - - 1", "halfmove clock '-' is not a number");
  CHECK_BAD_FEN("8/8/8/8/8/8/8/K6k w - - -1 1", "halfmove clock '-1' is negative");
  CHECK_BAD_FEN("8/8/8/8/8/8/8/K6k w - - 0 -7", "fullmove number '-7' is negative");
  CHECK_BAD_FEN("8/8/8/8/8/8/8/K6k w - - 10001 1", "halfmove clock '10001' is absurd");
  CHECK_BAD_FEN("8/8/8/8/8/8/8/K6k w - - 0 99999999999999999999999", "fullmove number '99999999999999999999999' is absurd");
}

/* Parses fen (expected fine) and checks its castling rights: rights is the
 * CF_CASTLE_* mask, rooks[i] the rook square of right i when held. */
static void check_rights(cf_test *t, const char *fen, int rights, const char *rooks[4], int chess960) {
  cf_position pos;
  cf_error err;
  if (!CHECK_INT_EQ(cf_position_from_fen(&pos, fen, &err), CF_OK)) {
    fprintf(stderr, "  %s: %s\n", fen, err.msg);
    return;
  }
  if (!CHECK_INT_EQ(pos.castling, rights)) fprintf(stderr, "  %s\n", fen);
  for (int i = 0; i < 4; i++) {
    int want = rooks[i] ? cf_square(rooks[i][0] - 'a', rooks[i][1] - '1') : CF_NO_SQUARE;
    if (!CHECK_INT_EQ(pos.castle_rook[i], want)) fprintf(stderr, "  %s right %d\n", fen, i);
  }
  CHECK_INT_EQ(pos.chess960, chess960);
}

/* X-FEN: K/Q name the outermost rook on that side of the king; a file letter
 * names an inner rook. Shredder letters give the same position, and the FEN
 * is written back in Shredder-FEN whenever castling is not standard. */
static void test_fen_x_fen(cf_test *t) {
  /* Right order: white kingside, white queenside, black kingside, black queenside. */
  /* Chess960 start 'nrkbbqrn': kings on c, rooks on b and g. */
  check_rights(t, "nrkbbqrn/pppppppp/8/8/8/8/PPPPPPPP/NRKBBQRN w KQkq - 0 1", 15,
               (const char *[4]){"g1", "b1", "g8", "b8"}, 1);
  check_rights(t, "nrkbbqrn/pppppppp/8/8/8/8/PPPPPPPP/NRKBBQRN w GBgb - 0 1", 15,
               (const char *[4]){"g1", "b1", "g8", "b8"}, 1);
  /* King on e1 but the kingside rook on g1 (h1 empty): K is that rook. */
  check_rights(t, "4k3/8/8/8/8/8/8/R3K1R1 w KQ - 0 1", 3, (const char *[4]){"g1", "a1", NULL, NULL}, 1);
  /* Two rooks on the kingside: K is the outer one (g1 here, h1 below), G
   * names the inner one when h1 holds the other. */
  check_rights(t, "4k3/8/8/8/8/8/8/4KRR1 w K - 0 1", 1, (const char *[4]){"g1", NULL, NULL, NULL}, 1);
  check_rights(t, "4k3/8/8/8/8/8/8/4K1RR w K - 0 1", 1, (const char *[4]){"h1", NULL, NULL, NULL}, 0);
  check_rights(t, "4k3/8/8/8/8/8/8/4K1RR w G - 0 1", 1, (const char *[4]){"g1", NULL, NULL, NULL}, 1);
  /* King on b8 with the rook on a8 beside it, X-FEN q. */
  check_rights(t, "rk6/8/8/8/8/8/8/4K3 w q - 0 1", 8, (const char *[4]){NULL, NULL, NULL, "a8"}, 1);
  /* Standard placements stay standard (written KQkq). */
  check_rights(t, "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1", 15, (const char *[4]){"h1", "a1", "h8", "a8"}, 0);

  static const struct {
    const char *in, *out;
  } writes[] = {
      {"nrkbbqrn/pppppppp/8/8/8/8/PPPPPPPP/NRKBBQRN w KQkq - 0 1",
       "nrkbbqrn/pppppppp/8/8/8/8/PPPPPPPP/NRKBBQRN w GBgb - 0 1"},
      {"4k3/8/8/8/8/8/8/4K1RR w G - 0 1", "4k3/8/8/8/8/8/8/4K1RR w G - 0 1"},
      {"r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"},
  };
  for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++) {
    cf_position pos;
    char out[CF_FEN_MAX];
    if (!CHECK_INT_EQ(cf_position_from_fen(&pos, writes[i].in, NULL), CF_OK)) continue;
    cf_position_to_fen(&pos, out);
    CHECK_STR_EQ(out, writes[i].out);
  }
}

static void test_fen_error_leaves_position(cf_test *t) {
  cf_position pos, before;
  cf_position_startpos(&pos);
  before = pos;
  CHECK_INT_EQ(cf_position_from_fen(&pos, "8/8/8/8/8/8/8/K6k w - - x 1", NULL), CF_ERR_ARG);
  CHECK(memcmp(&pos, &before, sizeof pos) == 0);
}

static void test_fen_garbage_is_quoted_printably(cf_test *t) {
  cf_position pos;
  cf_error err;
  char fen[2100];
  memset(fen, 'x', sizeof fen - 1);
  fen[sizeof fen - 1] = '\0';
  CHECK_INT_EQ(cf_position_from_fen(&pos, fen, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "too long");
  CHECK_INT_EQ(cf_position_from_fen(&pos, "8/8/8/8/8/8/8/K6\x01 w - - 0 1", &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "bad piece letter '?'");
}

CF_TEST_MAIN(test_fen_startpos, test_fen_round_trip, test_fen_four_fields_and_whitespace, test_fen_ep_normalised,
             test_fen_bad_structure, test_fen_bad_board, test_fen_bad_kings_and_pawns, test_fen_bad_side_and_check,
             test_fen_bad_castling, test_fen_x_fen, test_fen_bad_en_passant, test_fen_bad_counters, test_fen_error_leaves_position,
             test_fen_garbage_is_quoted_printably)
