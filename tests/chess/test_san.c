/* test_san.c: SAN read and written against the move generator: every legal
 * move of tricky positions round-trips, disambiguation by file, rank and
 * both, promotions with and without '=', castling in both notations, and
 * errors telling malformed, illegal and ambiguous text apart. */
#include "chess/cf_fen.h"
#include "chess/cf_move_uci.h"
#include "chess/cf_movegen.h"
#include "chess/cf_san.h"
#include "tests/cf_test.h"

/* SAN text as UCI text in the position of fen ("" on error). */
static const char *san_to_uci(const char *fen, const char *san, char *out) {
  cf_position pos;
  cf_move m;
  out[0] = 0;
  if (cf_position_from_fen(&pos, fen, NULL) != CF_OK) return out;
  if (cf_san_parse(&pos, san, &m, NULL) != CF_OK) return out;
  cf_move_write_uci(m, 0, out);
  return out;
}

static const char *uci_to_san(const char *fen, const char *uci, char *out) {
  cf_position pos;
  cf_move m;
  out[0] = 0;
  if (cf_position_from_fen(&pos, fen, NULL) != CF_OK) return out;
  if (cf_move_parse_uci(&pos, uci, &m, NULL) != CF_OK) return out;
  cf_san_write(&pos, m, out);
  return out;
}

static void test_round_trip_all_moves(cf_test *t) {
  static const char *fens[] = {
    CF_FEN_STARTPOS,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "4k3/8/8/3Q1Q2/8/3Q1Q2/8/4K3 w - - 0 1", /* four queens: file, rank and both */
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", /* Chess960 */
  };
  for (size_t f = 0; f < sizeof fens / sizeof fens[0]; f++) {
    cf_position pos;
    CHECK_INT_EQ(cf_position_from_fen(&pos, fens[f], NULL), CF_OK);
    cf_movelist list;
    cf_generate_legal(&pos, &list);
    for (int i = 0; i < list.count; i++) {
      char san[CF_SAN_MAX];
      cf_san_write(&pos, list.moves[i], san);
      cf_move back = CF_MOVE_NONE;
      cf_error err = {CF_OK, ""};
      CHECK_INT_EQ(cf_san_parse(&pos, san, &back, &err), CF_OK);
      CHECK_INT_EQ(back, list.moves[i]);
    }
  }
}

static void test_disambiguation(cf_test *t) {
  char out[CF_SAN_MAX];
  const char *queens = "4k3/8/8/3Q1Q2/8/3Q1Q2/8/4K3 w - - 0 1";
  CHECK_STR_EQ(uci_to_san(queens, "d5e4", out), "Qd5e4#"); /* both: file and rank are shared */
  CHECK_STR_EQ(uci_to_san(queens, "d5d4", out), "Q5d4");  /* rank */
  CHECK_STR_EQ(uci_to_san(queens, "d5e6", out), "Qde6#");  /* file */
  CHECK_STR_EQ(san_to_uci(queens, "Qd5e4", out), "d5e4");
  CHECK_STR_EQ(san_to_uci(queens, "Q3d4", out), "d3d4");
  CHECK_STR_EQ(san_to_uci(queens, "Qfxe4", out), ""); /* still ambiguous: f5 and f3 */
  const char *knights = "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1";
  CHECK_STR_EQ(uci_to_san(knights, "b1d2", out), "Nbd2");
  CHECK_STR_EQ(san_to_uci(knights, "Nfd2", out), "f3d2");
  CHECK_STR_EQ(san_to_uci(knights, "Nf3d2", out), "f3d2"); /* over-disambiguated */
  CHECK_STR_EQ(san_to_uci(knights, "Ng1", out), "f3g1");
  CHECK_STR_EQ(san_to_uci(knights, "Nbg1", out), "");     /* b1 cannot go there */
}

static void test_promotions_and_pawns(cf_test *t) {
  char out[CF_SAN_MAX];
  const char *fen = "r3k3/1P6/8/3pP3/8/8/8/4K3 w - d6 0 2";
  CHECK_STR_EQ(san_to_uci(fen, "b8=Q", out), "b7b8q");
  CHECK_STR_EQ(san_to_uci(fen, "b8N", out), "b7b8n");
  CHECK_STR_EQ(san_to_uci(fen, "bxa8=R+", out), "b7a8r");
  CHECK_STR_EQ(san_to_uci(fen, "exd6", out), "e5d6"); /* en passant */
  CHECK_STR_EQ(san_to_uci(fen, "ed6", out), "e5d6");  /* no 'x' */
  CHECK_STR_EQ(san_to_uci(fen, "b8", out), "");       /* a promotion must name its piece */
  CHECK_STR_EQ(uci_to_san(fen, "b7a8q", out), "bxa8=Q+");
  CHECK_STR_EQ(uci_to_san(fen, "e5d6", out), "exd6");
}

static void test_castling_both_notations(cf_test *t) {
  char out[CF_SAN_MAX];
  const char *fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
  CHECK_STR_EQ(san_to_uci(fen, "O-O", out), "e1g1");
  CHECK_STR_EQ(san_to_uci(fen, "0-0", out), "e1g1");
  CHECK_STR_EQ(san_to_uci(fen, "O-O-O+", out), "e1c1");
  CHECK_STR_EQ(san_to_uci(fen, "0-0-0", out), "e1c1");
  CHECK_STR_EQ(uci_to_san(fen, "e1g1", out), "O-O");
  CHECK_STR_EQ(uci_to_san(fen, "e1c1", out), "O-O-O");
  CHECK_STR_EQ(san_to_uci("4k3/8/8/8/8/8/8/4K2R w - - 0 1", "O-O", out), ""); /* no right */
}

static void test_check_and_mate_signs(cf_test *t) {
  char out[CF_SAN_MAX];
  CHECK_STR_EQ(uci_to_san("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8", out), "Ra8#");
  CHECK_STR_EQ(uci_to_san("6k1/8/8/8/8/8/8/R5K1 w - - 0 1", "a1a8", out), "Ra8+");
  CHECK_STR_EQ(san_to_uci("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "Ra8#!?", out), "a1a8");
}

static void test_errors(cf_test *t) {
  cf_position pos;
  cf_position_startpos(&pos);
  cf_move m;
  cf_error err = {CF_OK, ""};
  CHECK_INT_EQ(cf_san_parse(&pos, "e5", &m, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "illegal move 'e5'");
  CHECK_INT_EQ(cf_san_parse(&pos, "Zz9", &m, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "malformed move");
  CHECK_INT_EQ(cf_san_parse(&pos, "", &m, &err), CF_ERR_ARG);
  CHECK_INT_EQ(cf_san_parse(&pos, "\xff\xfe", &m, &err), CF_ERR_ARG);
  CHECK_INT_EQ(cf_san_parse(&pos, "Nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxf3", &m, &err), CF_ERR_ARG);
  cf_position_from_fen(&pos, "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", NULL);
  CHECK_INT_EQ(cf_san_parse(&pos, "Nd2", &m, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "ambiguous move 'Nd2'");
}

CF_TEST_MAIN(test_round_trip_all_moves, test_disambiguation, test_promotions_and_pawns,
             test_castling_both_notations, test_check_and_mate_signs, test_errors)
