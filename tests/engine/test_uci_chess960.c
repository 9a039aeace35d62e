/* test_uci_chess960.c: UCI_Chess960 through the in-memory responder: the
 * option and its flags, castling written king takes rook when it is on (in
 * every position) and in Chess960 positions when it is off, both notations
 * read in `position` and `searchmoves`, X-FEN and Shredder-FEN positions. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine/uci/cf_uci.h"
#include "engine/uci/cf_uci_options.h"
#include "tests/cf_test.h"
#include "tests/engine/uci_transcript.h"

/* An engine on the built-in network with the one-evaluation policy agent:
 * its bestmove is the only move allowed wherever there is one. */
static cf_uci *engine(cf_test *t, transcript *tr) {
  uci_transcript_init(tr);
  cf_uci_config cfg = {.search_dirs = NULL, .max_batch = 8};
  cf_uci *u = NULL;
  cf_error err = {0};
  if (!CHECK(cf_uci_create(&cfg, uci_transcript_collect, tr, &u, &err) == CF_OK)) return NULL;
  cf_uci_feed(u, "setoption name Agent value policy");
  return u;
}

static const char *run(cf_uci *u, transcript *tr, const char *lines) {
  return uci_transcript_run(u, tr, lines);
}

/* A Chess960 position whose only legal move is kingside castling with the
 * king already on g1 (it stays, the rook goes h1 -> f1): X-FEN K and
 * Shredder-FEN H name the same right. In standard chess no position has
 * castling as its only move (the rook can always step sideways), so the
 * standard cases below restrict the root with searchmoves instead. */
#define ONLY_CASTLING_X_FEN "k4r2/8/8/8/6p1/6Pb/7B/6KR w K - 0 1"
#define ONLY_CASTLING_SHREDDER "k4r2/8/8/8/6p1/6Pb/7B/6KR w H - 0 1"
#define STANDARD_CASTLING "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"

static void test_option_declared(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  const char *o = run(u, &tr, "uci");
  CHECK_STR_CONTAINS(o, "option name UCI_Chess960 type check default false\n");
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_UCI_CHESS960), "false");
  o = run(u, &tr, "setoption name uci_chess960 value TRUE");
  CHECK_STR_EQ(o, "");
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_UCI_CHESS960), "true");
  o = run(u, &tr, "setoption name UCI_Chess960 value maybe");
  CHECK_STR_CONTAINS(o, "info string error: option UCI_Chess960: bad value 'maybe' (expected true or false)");
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_UCI_CHESS960), "true");
  cf_uci_free(u);
  /* Lc0's flag, and the option's name as a flag. */
  cf_uci_option_id id = CF_OPT_COUNT;
  CHECK(cf_uci_option_by_flag("chess960", &id) != NULL);
  CHECK_INT_EQ(id, CF_OPT_UCI_CHESS960);
  id = CF_OPT_COUNT;
  CHECK(cf_uci_option_by_flag("uci-chess960", &id) != NULL);
  CHECK_INT_EQ(id, CF_OPT_UCI_CHESS960);
}

/* A Chess960 position writes castling king takes rook whatever the option
 * says (e1g1-style text would be a king step or nothing), X-FEN or not. */
static void test_960_position_either_mode(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  static const char *const fens[] = {ONLY_CASTLING_X_FEN, ONLY_CASTLING_SHREDDER};
  static const char *const modes[] = {"false", "true"};
  for (int m = 0; m < 2; m++)
    for (int f = 0; f < 2; f++) {
      char cmd[256];
      snprintf(cmd, sizeof cmd, "setoption name UCI_Chess960 value %s\nposition fen %s\ngo nodes 1",
               modes[m], fens[f]);
      const char *o = run(u, &tr, cmd);
      CHECK(!strstr(o, "error"));
      CHECK_STR_CONTAINS(o, " pv g1h1");
      if (!CHECK_STR_CONTAINS(o, "bestmove g1h1")) fprintf(stderr, "  %s, UCI_Chess960 %s\n", fens[f], modes[m]);
    }
  /* The castled position: the rook stands on f1 (f1f2 needs it there), the
   * king still on g1 (g1h1 is now a king step to the empty h1). */
  const char *o = run(u, &tr, "position fen " ONLY_CASTLING_X_FEN " moves g1h1 f8e8 f1f2 e8f8 g1h1\ngo nodes 1");
  CHECK(!strstr(o, "error"));
  CHECK_STR_CONTAINS(o, "bestmove ");
  /* A middle game given in X-FEN and in Shredder-FEN: castling g8h8 is
   * allowed by searchmoves and played in king-takes-rook text. */
  static const char *const mid[] = {
      "bbqnr1kr/p1pnp1pp/1p6/3p1p2/1P5P/Q1P3P1/P2PPP2/BB1NRNKR b KQkq - 1 5",
      "bbqnr1kr/p1pnp1pp/1p6/3p1p2/1P5P/Q1P3P1/P2PPP2/BB1NRNKR b HEhe - 1 5",
  };
  for (int f = 0; f < 2; f++) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "setoption name UCI_Chess960 value true\nposition fen %s\ngo nodes 1 searchmoves g8h8", mid[f]);
    o = run(u, &tr, cmd);
    CHECK(!strstr(o, "error"));
    CHECK_STR_CONTAINS(o, "bestmove g8h8");
  }
  cf_uci_free(u);
}

/* A standard position: e1g1 with the option off, e1h1 with it on, in the
 * pv and the bestmove; either text is read in searchmoves and position. */
static void test_standard_castling_notation(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  const char *o = run(u, &tr, "position fen " STANDARD_CASTLING "\ngo nodes 1 searchmoves e1h1");
  CHECK_STR_CONTAINS(o, " pv e1g1");
  CHECK_STR_CONTAINS(o, "bestmove e1g1");
  o = run(u, &tr, "go nodes 1 searchmoves e1c1");
  CHECK_STR_CONTAINS(o, "bestmove e1c1");
  o = run(u, &tr, "setoption name UCI_Chess960 value true\ngo nodes 1 searchmoves e1g1");
  CHECK_STR_CONTAINS(o, " pv e1h1");
  CHECK_STR_CONTAINS(o, "bestmove e1h1");
  o = run(u, &tr, "go nodes 1 searchmoves e1a1");
  CHECK_STR_CONTAINS(o, "bestmove e1a1");
  /* Black too, after White castled (the ponder move is White's reply). */
  o = run(u, &tr, "position fen " STANDARD_CASTLING " moves e1h1\ngo nodes 1 searchmoves e8a8");
  CHECK(!strstr(o, "error"));
  CHECK_STR_CONTAINS(o, "bestmove e8a8");
  /* The start position, castled both ways in either mode: the rook lands
   * on f1 only if the castling was played (f1e1 needs it there). */
  static const char *const castles[] = {"e1h1", "e1g1"};
  static const char *const modes[] = {"false", "true"};
  for (int m = 0; m < 2; m++)
    for (int c = 0; c < 2; c++) {
      char cmd[256];
      snprintf(cmd, sizeof cmd,
               "setoption name UCI_Chess960 value %s\n"
               "position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 %s f8c5 f1e1\ngo nodes 1",
               modes[m], castles[c]);
      o = run(u, &tr, cmd);
      if (!CHECK(!strstr(o, "error"))) fprintf(stderr, "  %s\n", o);
      CHECK_STR_CONTAINS(o, "bestmove ");
    }
  /* Without the right, neither text is castling: the position is refused. */
  o = run(u, &tr, "position fen r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1 moves e1h1");
  CHECK_STR_CONTAINS(o, "info string error: position: move 1 'e1h1' rejected");
  cf_uci_free(u);
}

CF_TEST_MAIN(test_option_declared, test_960_position_either_mode, test_standard_castling_notation)
