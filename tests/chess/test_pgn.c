/* test_pgn.c: PGN games read against the move generator: tags, move
 * numbers, comments of both kinds, NAGs, nested variations skipped,
 * results, FEN and Variant/Chess960 tags, and each kind of malformed game
 * refused with its line. */
#include <stdlib.h>
#include <string.h>

#include "chess/cf_fen.h"
#include "chess/cf_move_uci.h"
#include "chess/cf_pgn.h"
#include "tests/cf_test.h"

/* The game's moves as UCI text, space-separated, into out. */
static void moves_uci(const cf_pgn_game *g, char *out, size_t size) {
  size_t at = 0;
  out[0] = 0;
  for (int i = 0; i < g->n_moves && at + 8 < size; i++) {
    char m[CF_UCI_MOVE_MAX];
    cf_move_write_uci(g->moves[i], g->start.chess960, m);
    at += (size_t)snprintf(out + at, size - at, "%s%s", i ? " " : "", m);
  }
}

static cf_status parse(const char *text, cf_pgn_game *g, cf_error *err) {
  return cf_pgn_parse_game(text, strlen(text), 1, g, err);
}

/* Parses text, which must be good, and checks its moves as UCI text. */
#define CHECK_GAME_MOVES(text, g, want)                 \
  do {                                                  \
    cf_error err_ = {CF_OK, ""};                        \
    CHECK_INT_EQ(parse((text), (g), &err_), CF_OK);     \
    CHECK_STR_EQ(err_.msg, "");                         \
    char uci_[256];                                     \
    moves_uci((g), uci_, sizeof uci_);                  \
    CHECK_STR_EQ(uci_, (want));                         \
  } while (0)

static void test_tags_comments_nags_variations(cf_test *t) {
  const char *text =
      "[Event \"Test \\\"quoted\\\" event\"]\n"
      "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n"
      "% an escape line\n"
      "1. e4 {best by test (really)} e5 $1 2. Nf3!? (2. f4 exf4 (2... d5) 3. Nf3) Nc6\n"
      "; a rest-of-line comment with { and (\n"
      "3.Bb5 a6 {a comment\nover two lines} 4. Ba4 Nf6 5. O-O Be7 1-0\n";
  cf_pgn_game g = {0};
  CHECK_GAME_MOVES(text, &g, "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7");
  CHECK_STR_EQ(g.result, "1-0");
  CHECK_STR_EQ(cf_pgn_tag_value(&g, "Event"), "Test \"quoted\" event");
  CHECK_STR_EQ(cf_pgn_tag_value(&g, "Black"), "B");
  CHECK(cf_pgn_tag_value(&g, "Site") == NULL);
  cf_pgn_game_free(&g);
}

static void test_results_and_no_tags(cf_test *t) {
  static const char *results[] = {"1-0", "0-1", "1/2-1/2", "*"};
  for (int i = 0; i < 4; i++) {
    char text[64];
    snprintf(text, sizeof text, "1. d4 d5 %s\n", results[i]);
    cf_pgn_game g = {0};
    CHECK_INT_EQ(parse(text, &g, NULL), CF_OK);
    CHECK_STR_EQ(g.result, results[i]);
    CHECK_INT_EQ(g.n_moves, 2);
    cf_pgn_game_free(&g);
  }
  cf_pgn_game g = {0};
  CHECK_INT_EQ(parse("[Event \"no moves\"]\n\n*\n", &g, NULL), CF_OK);
  CHECK_INT_EQ(g.n_moves, 0);
  cf_pgn_game_free(&g);
}

static void test_fen_tag_promotion_and_castling_zeros(cf_test *t) {
  const char *text = "[SetUp \"1\"]\n[FEN \"r3k2r/6P1/8/8/8/8/8/R3K2R b KQkq - 0 30\"]\n\n"
                     "30... 0-0-0 31. gxh8=Q Rxh8 32. 0-0 *\n";
  cf_pgn_game g = {0};
  CHECK_GAME_MOVES(text, &g, "e8c8 g7h8q d8h8 e1g1");
  cf_pgn_game_free(&g);
}

static void test_chess960_variant(cf_test *t) {
  const char *text =
      "[Variant \"Chess960\"]\n"
      "[FEN \"1k6/8/8/8/8/8/8/RK2R3 w EA - 0 1\"]\n\n"
      "1. O-O Kc7 *\n";
  cf_pgn_game g = {0};
  CHECK_GAME_MOVES(text, &g, "b1e1 b8c7"); /* king takes rook in a 960 position */
  cf_pgn_game_free(&g);
  cf_error err2 = {CF_OK, ""};
  CHECK_INT_EQ(parse("[Variant \"Crazyhouse\"]\n\n1. e4 *\n", &g, &err2), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err2.msg, "Crazyhouse");
  cf_pgn_game_free(&g);
}

/* Each malformed game: the status, the line the message names, and for an
 * error at a move its ply, the legal moves before it kept. */
static void test_malformed_games(cf_test *t) {
  static const struct {
    const char *text, *needle;
    int bad_move;
  } cases[] = {
      {"[Event \"x\"]\n\n1. e4 e5 2. Nf9 *\n", "line 3: malformed move 'Nf9'", 3},
      {"[Event \"x\"]\n\n1. e4 e5\n2. Ke3 *\n", "line 4: illegal move 'Ke3'", 3},
      {"1. e4 {never closed\n2. d4 d5 *\n", "line 1: unterminated comment", 0},
      {"1. e4 (1. d4 d5\n2. c4 *\n", "line 1: unterminated variation", 0},
      {"[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 *\n", "bad FEN tag", 0},
      {"1. e4 \x01\x02\x03 e5 *\n", "control byte 0x01", 0},
      {"1. e4 e5 1-0 Nf3\n", "moves after the result", 0},
      {"[Event \"x\n1. e4 *\n", "line 1: unterminated tag value", 0},
      {"1. e4 e5 ) *\n", "unexpected ')'", 0},
      {"1. \xc3\xa9\xff *\n", "malformed move", 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cf_pgn_game g = {0};
    cf_error err = {CF_OK, ""};
    CHECK(parse(cases[i].text, &g, &err) != CF_OK);
    CHECK_STR_CONTAINS(err.msg, cases[i].needle);
    CHECK_INT_EQ(g.bad_move, cases[i].bad_move);
    if (cases[i].bad_move) CHECK_INT_EQ(g.n_moves, cases[i].bad_move - 1);
    cf_pgn_game_free(&g);
  }
}

/* first_line shifts the numbers, and NUL bytes in the text are junk, not
 * its end. */
static void test_line_numbers_and_nul(cf_test *t) {
  cf_pgn_game g = {0};
  cf_error err = {CF_OK, ""};
  const char *text = "1. e4 e5\n2. Qh9 *\n";
  CHECK(cf_pgn_parse_game(text, strlen(text), 100, &g, &err) != CF_OK);
  CHECK_STR_CONTAINS(err.msg, "line 101");
  const char with_nul[] = "1. e4 \0 e5 *\n";
  CHECK(cf_pgn_parse_game(with_nul, sizeof with_nul - 1, 1, &g, &err) != CF_OK);
  CHECK_STR_CONTAINS(err.msg, "control byte 0x00");
  cf_pgn_game_free(&g);
}

/* A game with more than the ply limit is refused, not grown without end. */
static void test_ply_limit(cf_test *t) {
  size_t cap = (size_t)(CF_PGN_MOVES_MAX + 8) * 12 + 16, at = 0;
  char *text = malloc(cap);
  CHECK(text != NULL);
  if (!text) return;
  for (int i = 0; i < CF_PGN_MOVES_MAX / 4 + 2; i++)
    at += (size_t)snprintf(text + at, cap - at, "Nf3 Nf6 Ng1 Ng8 ");
  cf_pgn_game g = {0};
  cf_error err = {CF_OK, ""};
  CHECK(cf_pgn_parse_game(text, at, 1, &g, &err) != CF_OK);
  CHECK_STR_CONTAINS(err.msg, "plies");
  free(text);
  cf_pgn_game_free(&g);
}

CF_TEST_MAIN(test_tags_comments_nags_variations, test_results_and_no_tags,
             test_fen_tag_promotion_and_castling_zeros, test_chess960_variant,
             test_malformed_games, test_line_numbers_and_nul, test_ply_limit)
