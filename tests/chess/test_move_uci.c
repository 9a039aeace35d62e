/* test_move_uci.c: UCI move text both ways, both castling notations, and
 * errors that tell malformed text from well-formed illegal moves. */
#include "chess/cf_fen.h"
#include "chess/cf_move_uci.h"
#include "chess/cf_movegen.h"
#include "tests/cf_test.h"

#define CHECK_BAD_MOVE(pos, text, needle)                                   \
  do {                                                                      \
    cf_move m_ = CF_MOVE_NONE;                                              \
    cf_error err_ = {CF_OK, ""};                                            \
    CHECK_INT_EQ(cf_move_parse_uci((pos), (text), &m_, &err_), CF_ERR_ARG); \
    CHECK_STR_CONTAINS(err_.msg, (needle));                                 \
  } while (0)

static void test_uci_write(cf_test *t) {
  char out[CF_UCI_MOVE_MAX];
  cf_move_write_uci(cf_move_make(cf_square(4, 1), cf_square(4, 3)), 0, out);
  CHECK_STR_EQ(out, "e2e4");
  cf_move_write_uci(cf_move_make_promotion(cf_square(4, 6), cf_square(4, 7), CF_QUEEN), 0, out);
  CHECK_STR_EQ(out, "e7e8q");
  cf_move_write_uci(cf_move_make_promotion(cf_square(1, 1), cf_square(0, 0), CF_KNIGHT), 0, out);
  CHECK_STR_EQ(out, "b2a1n");
  cf_move castle = cf_move_make_kind(cf_square(4, 0), cf_square(7, 0), CF_MOVE_CASTLING);
  cf_move_write_uci(castle, 0, out);
  CHECK_STR_EQ(out, "e1g1");
  cf_move_write_uci(castle, 1, out);
  CHECK_STR_EQ(out, "e1h1");
  cf_move_write_uci(cf_move_make_kind(cf_square(4, 7), cf_square(0, 7), CF_MOVE_CASTLING), 0, out);
  CHECK_STR_EQ(out, "e8c8");
  cf_move_write_uci(CF_MOVE_NONE, 0, out);
  CHECK_STR_EQ(out, "0000");
}

/* Every legal move written and parsed back is the same move. */
static void test_uci_round_trip_all_moves(cf_test *t) {
  static const char *fens[] = {
    CF_FEN_STARTPOS,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
  };
  for (size_t f = 0; f < sizeof fens / sizeof fens[0]; f++) {
    cf_position pos;
    cf_movelist list;
    if (!CHECK_INT_EQ(cf_position_from_fen(&pos, fens[f], NULL), CF_OK)) continue;
    cf_generate_legal(&pos, &list);
    for (int i = 0; i < list.count; i++) {
      char text[CF_UCI_MOVE_MAX];
      cf_move back = CF_MOVE_NONE;
      cf_move_write_uci(list.moves[i], pos.chess960, text);
      CHECK_INT_EQ(cf_move_parse_uci(&pos, text, &back, NULL), CF_OK);
      CHECK_INT_EQ(back, list.moves[i]);
    }
  }
}

/* Lc0 sends castling as king-takes-rook; standard GUIs as the king's step. */
static void test_uci_castling_both_forms(cf_test *t) {
  cf_position pos;
  cf_move a, b;
  if (!CHECK_INT_EQ(cf_position_from_fen(&pos, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", NULL), CF_OK)) return;
  CHECK_INT_EQ(cf_move_parse_uci(&pos, "e1g1", &a, NULL), CF_OK);
  CHECK_INT_EQ(cf_move_parse_uci(&pos, "e1h1", &b, NULL), CF_OK);
  CHECK_INT_EQ(a, b);
  CHECK_INT_EQ(cf_move_kind_of(a), CF_MOVE_CASTLING);
  CHECK_INT_EQ(cf_move_parse_uci(&pos, "e1c1", &a, NULL), CF_OK);
  CHECK_INT_EQ(cf_move_parse_uci(&pos, "e1a1", &b, NULL), CF_OK);
  CHECK_INT_EQ(a, b);
  CHECK_INT_EQ(cf_move_kind_of(b), CF_MOVE_CASTLING);
  /* Without the right, e1h1 is just illegal (the king cannot take its rook). */
  if (!CHECK_INT_EQ(cf_position_from_fen(&pos, "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1", NULL), CF_OK)) return;
  CHECK_BAD_MOVE(&pos, "e1h1", "illegal move 'e1h1'");
  CHECK_BAD_MOVE(&pos, "e1g1", "illegal move 'e1g1'");
  /* Chess960: only king-takes-rook; f1g1 stays an ordinary king step. */
  if (!CHECK_INT_EQ(cf_position_from_fen(&pos, "4k3/8/8/8/8/8/8/5KR1 w G - 0 1", NULL), CF_OK)) return;
  CHECK(pos.chess960);
  CHECK_INT_EQ(cf_move_parse_uci(&pos, "f1g1", &a, NULL), CF_OK);
  CHECK_INT_EQ(cf_move_kind_of(a), CF_MOVE_CASTLING);
  CHECK_INT_EQ(cf_castling_king_to(a), cf_square(6, 0));
}

/* The notation rule: king takes rook under UCI_Chess960, and in a Chess960
 * position either way; the standard form only for standard castling with
 * the option off. */
static void test_uci_castling_notation_rule(cf_test *t) {
  cf_position pos;
  char text[CF_UCI_MOVE_MAX];
  cf_move m;
  if (!CHECK_INT_EQ(cf_position_from_fen(&pos, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", NULL), CF_OK)) return;
  CHECK_INT_EQ(cf_move_uci_king_takes_rook(&pos, 0), 0);
  CHECK_INT_EQ(cf_move_uci_king_takes_rook(&pos, 1), 1);
  if (!CHECK_INT_EQ(cf_move_parse_uci(&pos, "e1a1", &m, NULL), CF_OK)) return;
  cf_move_write_uci(m, cf_move_uci_king_takes_rook(&pos, 0), text);
  CHECK_STR_EQ(text, "e1c1");
  cf_move_write_uci(m, cf_move_uci_king_takes_rook(&pos, 1), text);
  CHECK_STR_EQ(text, "e1a1");
  /* X-FEN Chess960 start (king c1, rooks b1 and g1). */
  if (!CHECK_INT_EQ(cf_position_from_fen(&pos, "nrk3rn/pppppppp/8/8/8/8/PPPPPPPP/NRK3RN w KQkq - 0 1", NULL),
                    CF_OK))
    return;
  CHECK_INT_EQ(cf_move_uci_king_takes_rook(&pos, 0), 1);
  CHECK_INT_EQ(cf_move_uci_king_takes_rook(&pos, 1), 1);
  /* Queenside: the king stays on c1, the rook goes b1 -> d1; c1b1 is the
   * only text for it (c1c1 is no move). */
  if (!CHECK_INT_EQ(cf_move_parse_uci(&pos, "c1b1", &m, NULL), CF_OK)) return;
  CHECK_INT_EQ(cf_move_kind_of(m), CF_MOVE_CASTLING);
  cf_move_write_uci(m, cf_move_uci_king_takes_rook(&pos, 0), text);
  CHECK_STR_EQ(text, "c1b1");
}

static void test_uci_malformed(cf_test *t) {
  cf_position pos;
  cf_error err;
  cf_move m;
  cf_position_startpos(&pos);
  CHECK_INT_EQ(cf_move_parse_uci(&pos, NULL, &m, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "NULL");
  CHECK_BAD_MOVE(&pos, "", "malformed move ''");
  CHECK_BAD_MOVE(&pos, "e2", "malformed move 'e2'");
  CHECK_BAD_MOVE(&pos, "e2e", "malformed move 'e2e'");
  CHECK_BAD_MOVE(&pos, "e2-e4", "malformed move 'e2-e4'");
  CHECK_BAD_MOVE(&pos, "e2e4e4", "malformed move 'e2e4e4'");
  CHECK_BAD_MOVE(&pos, "e2e9", "malformed move 'e2e9'");
  CHECK_BAD_MOVE(&pos, "i2i4", "malformed move 'i2i4'");
  CHECK_BAD_MOVE(&pos, "E2E4", "malformed");
  CHECK_BAD_MOVE(&pos, "e7e8x", "malformed move 'e7e8x'");
  CHECK_BAD_MOVE(&pos, "Nf3", "malformed move 'Nf3' (expected UCI text");
  CHECK_BAD_MOVE(&pos, "e2\x01" "4", "malformed move 'e2?4'");
  CHECK_BAD_MOVE(&pos, "0000", "null move");
  char long_text[300];
  memset(long_text, 'e', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  CHECK_BAD_MOVE(&pos, long_text, "...");
}

static void test_uci_illegal(cf_test *t) {
  cf_position pos;
  cf_position_startpos(&pos);
  CHECK_BAD_MOVE(&pos, "e2e5", "illegal move 'e2e5' in position rnbqkbnr/");
  CHECK_BAD_MOVE(&pos, "e7e5", "illegal move 'e7e5'"); /* black's pawn, white to move */
  CHECK_BAD_MOVE(&pos, "e3e4", "illegal move 'e3e4'"); /* empty square */
  CHECK_BAD_MOVE(&pos, "e2e4q", "illegal move 'e2e4q'");
  CHECK_BAD_MOVE(&pos, "g1g3", "illegal move");
  if (!CHECK_INT_EQ(cf_position_from_fen(&pos, "4k3/P7/8/8/8/8/8/4K3 w - - 0 1", NULL), CF_OK)) return;
  CHECK_BAD_MOVE(&pos, "a7a8", "move 'a7a8' needs a promotion letter");
  cf_move m;
  CHECK_INT_EQ(cf_move_parse_uci(&pos, "a7a8n", &m, NULL), CF_OK);
  CHECK_INT_EQ(cf_move_promotion(m), CF_KNIGHT);
  CHECK_INT_EQ(cf_move_parse_uci(&pos, "a7a8Q", &m, NULL), CF_OK); /* tolerated */
  CHECK_INT_EQ(cf_move_promotion(m), CF_QUEEN);
}

CF_TEST_MAIN(test_uci_write, test_uci_round_trip_all_moves, test_uci_castling_both_forms,
             test_uci_castling_notation_rule, test_uci_malformed, test_uci_illegal)
