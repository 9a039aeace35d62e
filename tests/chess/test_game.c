/* test_game.c: history, repetition counts, and every result and reason. */
#include "chess/cf_fen.h"
#include "chess/cf_game.h"
#include "chess/cf_move_uci.h"
#include "tests/cf_test.h"

/* Plays space-separated UCI moves; 0 on the first failure. */
static int play_all(cf_test *t, cf_game *game, const char *moves) {
  char buf[1024];
  char *save = NULL;
  snprintf(buf, sizeof buf, "%s", moves);
  for (char *m = strtok_r(buf, " ", &save); m; m = strtok_r(NULL, " ", &save)) {
    cf_error err;
    if (!CHECK_INT_EQ(cf_game_push_uci(game, m, &err), CF_OK)) {
      fprintf(stderr, "  %s: %s\n", m, err.msg);
      return 0;
    }
  }
  return 1;
}

static cf_game_result outcome_of_fen(cf_test *t, const char *fen, cf_game_reason *reason) {
  cf_position pos;
  if (!CHECK_INT_EQ(cf_position_from_fen(&pos, fen, NULL), CF_OK)) return CF_RESULT_ONGOING;
  return cf_position_outcome(&pos, reason);
}

static void test_game_history_fields(cf_test *t) {
  cf_game game;
  if (!CHECK_INT_EQ(cf_game_init(&game, NULL, NULL), CF_OK)) return;
  CHECK_INT_EQ(game.count, 1);
  CHECK_INT_EQ(game.plies[0].move, CF_MOVE_NONE);
  if (play_all(t, &game, "e2e4 c7c5 g1f3")) {
    CHECK_INT_EQ(game.count, 4);
    const cf_game_ply *p = &game.plies[2];
    CHECK_INT_EQ(p->pos.side, CF_WHITE);
    CHECK_INT_EQ(p->pos.rule50, 0);
    CHECK_INT_EQ(game.plies[3].pos.rule50, 1);
    CHECK_INT_EQ(p->repetitions, 0);
    char fen[CF_FEN_MAX];
    cf_position_to_fen(cf_game_position(&game), fen);
    CHECK_STR_EQ(fen, "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
    char text[CF_UCI_MOVE_MAX];
    cf_move_write_uci(game.plies[3].move, 0, text);
    CHECK_STR_EQ(text, "g1f3");
    cf_game_pop(&game);
    CHECK_INT_EQ(game.count, 3);
  }
  cf_game_free(&game);
  cf_game_free(&game); /* freeing twice and freeing NULL are harmless */
  cf_game_free(NULL);
}

static void test_game_errors(cf_test *t) {
  cf_game game;
  cf_error err;
  CHECK_INT_EQ(cf_game_init_fen(&game, "not a fen", &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "FEN has 3 fields");
  CHECK_INT_EQ(game.count, 0);
  if (!CHECK_INT_EQ(cf_game_init(&game, NULL, &err), CF_OK)) return;
  CHECK_INT_EQ(cf_game_push_uci(&game, "e2e5", &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "illegal move 'e2e5'");
  CHECK_INT_EQ(cf_game_push(&game, cf_move_make(cf_square(4, 1), cf_square(4, 4)), &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "illegal move 'e2e5'");
  CHECK_INT_EQ(game.count, 1);
  cf_game_pop(&game); /* at ply 0: nothing happens */
  CHECK_INT_EQ(game.count, 1);
  cf_game_free(&game);
}

static void test_game_repetitions(cf_test *t) {
  cf_game game;
  if (!CHECK_INT_EQ(cf_game_init(&game, NULL, NULL), CF_OK)) return;
  CHECK_INT_EQ(cf_game_repetition_distance(&game), 0);
  if (play_all(t, &game, "g1f3 g8f6 f3g1 f6g8")) {
    CHECK_INT_EQ(game.plies[4].repetitions, 1); /* the start position again */
    CHECK_INT_EQ(game.plies[3].repetitions, 0);
    CHECK_INT_EQ(cf_game_outcome(&game, NULL), CF_RESULT_ONGOING);
    CHECK_INT_EQ(cf_game_repetition_distance(&game), 4);
  }
  if (play_all(t, &game, "g1f3")) {
    CHECK_INT_EQ(game.plies[5].repetitions, 1);
    CHECK_INT_EQ(cf_game_repetition_distance(&game), 4); /* the most recent occurrence */
  }
  if (play_all(t, &game, "e7e6")) CHECK_INT_EQ(cf_game_repetition_distance(&game), 0);
  cf_game_pop(&game);
  if (play_all(t, &game, "g8f6 f3g1 f6g8")) {
    cf_game_reason reason = CF_REASON_NONE;
    CHECK_INT_EQ(game.plies[8].repetitions, 2);
    CHECK_INT_EQ(cf_game_outcome(&game, &reason), CF_RESULT_DRAW);
    CHECK_INT_EQ(reason, CF_REASON_THREEFOLD_REPETITION);
    CHECK_STR_EQ(cf_game_reason_name(reason), "threefold repetition");
  }
  cf_game_pop(&game);
  CHECK_INT_EQ(cf_game_outcome(&game, NULL), CF_RESULT_ONGOING);
  cf_game_free(&game);
}

/* Same pieces, but the first time an en-passant capture was possible (or
 * castling rights differed): not a repetition. */
static void test_game_repetition_needs_same_rights(cf_test *t) {
  cf_game game;
  if (!CHECK_INT_EQ(cf_game_init_fen(&game, "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1", NULL), CF_OK)) return;
  if (play_all(t, &game, "e2e4")) CHECK(game.plies[1].pos.ep_square != CF_NO_SQUARE);
  if (play_all(t, &game, "e8e7 e1e2 e7e8 e2e1")) CHECK_INT_EQ(game.plies[5].repetitions, 0);
  if (play_all(t, &game, "e8e7 e1e2 e7e8 e2e1")) CHECK_INT_EQ(game.plies[9].repetitions, 1);
  cf_game_free(&game);

  if (!CHECK_INT_EQ(cf_game_init_fen(&game, "r3k3/8/8/8/8/8/8/4K3 b q - 0 1", NULL), CF_OK)) return;
  if (play_all(t, &game, "a8a7 e1e2 a7a8 e2e1")) CHECK_INT_EQ(game.plies[4].repetitions, 0); /* right lost */
  if (play_all(t, &game, "a8a7 e1e2 a7a8 e2e1")) CHECK_INT_EQ(game.plies[8].repetitions, 1);
  cf_game_free(&game);
}

static void test_game_fifty_moves(cf_test *t) {
  cf_game game;
  cf_game_reason reason;
  if (!CHECK_INT_EQ(cf_game_init_fen(&game, "4k3/8/8/8/8/8/8/R3K3 w - - 98 60", NULL), CF_OK)) return;
  if (play_all(t, &game, "a1a2")) {
    CHECK_INT_EQ(cf_game_position(&game)->rule50, 99);
    CHECK_INT_EQ(cf_game_outcome(&game, &reason), CF_RESULT_ONGOING);
    CHECK_INT_EQ(reason, CF_REASON_NONE);
  }
  if (play_all(t, &game, "e8d8")) {
    CHECK_INT_EQ(cf_game_position(&game)->rule50, 100);
    CHECK_INT_EQ(cf_game_outcome(&game, &reason), CF_RESULT_DRAW);
    CHECK_INT_EQ(reason, CF_REASON_FIFTY_MOVES);
  }
  cf_game_free(&game);
  /* A capture or pawn move resets the count. */
  if (!CHECK_INT_EQ(cf_game_init_fen(&game, "4k3/8/8/8/8/8/r7/R3K3 w - - 98 60", NULL), CF_OK)) return;
  if (play_all(t, &game, "a1a2")) CHECK_INT_EQ(cf_game_position(&game)->rule50, 0);
  cf_game_free(&game);
  /* Mate on the hundredth half-move is still mate. */
  CHECK_INT_EQ(outcome_of_fen(t, "k6R/8/1K6/8/8/8/8/8 b - - 100 80", &reason), CF_RESULT_WHITE_WINS);
  CHECK_INT_EQ(reason, CF_REASON_CHECKMATE);
}

static void test_game_mate_and_stalemate(cf_test *t) {
  cf_game game;
  cf_game_reason reason;
  if (!CHECK_INT_EQ(cf_game_init(&game, NULL, NULL), CF_OK)) return;
  if (play_all(t, &game, "f2f3 e7e5 g2g4 d8h4")) {
    CHECK_INT_EQ(cf_game_outcome(&game, &reason), CF_RESULT_BLACK_WINS);
    CHECK_INT_EQ(reason, CF_REASON_CHECKMATE);
    CHECK_STR_EQ(cf_game_result_name(CF_RESULT_BLACK_WINS), "0-1");
  }
  cf_game_free(&game);
  CHECK_INT_EQ(outcome_of_fen(t, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", &reason), CF_RESULT_DRAW);
  CHECK_INT_EQ(reason, CF_REASON_STALEMATE);
  CHECK_INT_EQ(outcome_of_fen(t, "6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1", &reason), CF_RESULT_WHITE_WINS); /* smothered */
  CHECK_INT_EQ(reason, CF_REASON_CHECKMATE);
  CHECK_INT_EQ(outcome_of_fen(t, "7k/8/8/5Q2/8/8/8/6K1 b - - 0 1", &reason), CF_RESULT_ONGOING);
  CHECK_INT_EQ(reason, CF_REASON_NONE);
  CHECK_STR_EQ(cf_game_result_name(CF_RESULT_ONGOING), "*");
}

static void test_game_insufficient_material(cf_test *t) {
  static const struct {
    const char *fen;
    int insufficient;
  } cases[] = {
    {"4k3/8/8/8/8/8/8/4K3 w - - 0 1", 1},     /* K v K */
    {"4k3/8/8/8/8/8/8/2B1K3 w - - 0 1", 1},   /* K+B v K */
    {"4k3/8/8/8/8/8/8/1N2K3 b - - 0 1", 1},   /* K+N v K */
    {"4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1", 1},  /* bishops on dark squares (c1, f8) */
    {"4k1b1/8/8/8/8/8/8/2B1K3 w - - 0 1", 0}, /* opposite colours: a mate exists */
    {"4k3/8/8/8/8/8/8/B1B1K3 w - - 0 1", 1},  /* two bishops, both dark (a1, c1) */
    {"4k3/8/8/8/8/8/8/1BB1K3 w - - 0 1", 0},  /* bishop pair */
    {"4k3/8/8/8/8/8/8/1NN1K3 w - - 0 1", 0},  /* two knights: helpmate exists */
    {"4kn2/8/8/8/8/8/8/1N2K3 w - - 0 1", 0},  /* N v N */
    {"4kb2/8/8/8/8/8/8/1N2K3 w - - 0 1", 0},  /* N v B */
    {"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", 0},   /* a pawn */
    {"4k3/8/8/8/8/8/8/R3K3 w - - 0 1", 0},    /* a rook */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cf_position pos;
    cf_game_reason reason;
    if (!CHECK_INT_EQ(cf_position_from_fen(&pos, cases[i].fen, NULL), CF_OK)) continue;
    if (!CHECK_INT_EQ(cf_position_insufficient_material(&pos), cases[i].insufficient))
      fprintf(stderr, "  %s\n", cases[i].fen);
    cf_game_result r = cf_position_outcome(&pos, &reason);
    CHECK_INT_EQ(r, cases[i].insufficient ? CF_RESULT_DRAW : CF_RESULT_ONGOING);
    if (cases[i].insufficient) CHECK_INT_EQ(reason, CF_REASON_INSUFFICIENT_MATERIAL);
  }
  /* Reached in play: the capture of the last rook ends the game. */
  cf_game game;
  cf_game_reason reason;
  if (!CHECK_INT_EQ(cf_game_init_fen(&game, "4k3/8/8/8/8/8/4r3/4KN2 w - - 0 1", NULL), CF_OK)) return;
  if (play_all(t, &game, "e1e2")) {
    CHECK_INT_EQ(cf_game_outcome(&game, &reason), CF_RESULT_DRAW);
    CHECK_INT_EQ(reason, CF_REASON_INSUFFICIENT_MATERIAL);
  }
  cf_game_free(&game);
}

/* Longer games grow the history past its first allocation. */
static void test_game_long(cf_test *t) {
  cf_game game;
  if (!CHECK_INT_EQ(cf_game_init(&game, NULL, NULL), CF_OK)) return;
  for (int i = 0; i < 100; i++)
    if (!play_all(t, &game, "g1f3 g8f6 f3g1 f6g8")) break;
  CHECK_INT_EQ(game.count, 401);
  CHECK_INT_EQ(game.plies[400].repetitions, 100);
  CHECK_INT_EQ(game.plies[400].pos.fullmove, 201);
  cf_game_free(&game);
}

/* A copy has the whole history (repetition counts included) and lives on
 * its own: moves pushed on it leave the original as it was. */
static void test_game_copy(cf_test *t) {
  cf_game game, copy;
  if (!CHECK_INT_EQ(cf_game_init(&game, NULL, NULL), CF_OK)) return;
  for (int i = 0; i < 40; i++)
    if (!play_all(t, &game, "g1f3 g8f6 f3g1 f6g8")) break;
  if (!CHECK_INT_EQ(cf_game_copy(&copy, &game, NULL), CF_OK)) {
    cf_game_free(&game);
    return;
  }
  CHECK_INT_EQ(copy.count, game.count);
  CHECK(copy.plies != game.plies && copy.capacity >= copy.count);
  CHECK(memcmp(copy.plies, game.plies, (size_t)game.count * sizeof *game.plies) == 0);
  CHECK(play_all(t, &copy, "e2e4 e7e5 g1f3"));
  CHECK_INT_EQ(copy.count, game.count + 3);
  CHECK_INT_EQ(game.count, 161);
  CHECK(game.plies[160].move != copy.plies[161].move);
  CHECK_INT_EQ(copy.plies[160].repetitions, 40);
  cf_game_free(&copy);
  cf_game_free(&game);
}

CF_TEST_MAIN(test_game_copy, test_game_history_fields, test_game_errors, test_game_repetitions, test_game_repetition_needs_same_rights,
             test_game_fifty_moves, test_game_mate_and_stalemate, test_game_insufficient_material, test_game_long)
