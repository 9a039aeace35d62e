/* test_uci_game_over.c: go at a root without a legal move. Checkmate and
 * stalemate are answered with the game's result as a score (mate 0, or the
 * draw) and bestmove 0000, with no error and no network; a held go
 * (infinite, ponder) writes bestmove only after stop or ponderhit, on the
 * worker and with inline_search. The draws that leave legal moves (fifty
 * moves, repetition, bare kings) are still searched. The network is the
 * fuzz target's tiny random net (tests/engine/fuzz/tiny.pb.gz) on the ref
 * backend. */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "engine/uci/cf_uci.h"
#include "tests/cf_test.h"
#include "tests/engine/uci_transcript.h"

#ifndef CF_TEST_TINY_NET
#error "CF_TEST_TINY_NET: the path of tests/engine/fuzz/tiny.pb.gz (meson passes it)"
#endif

#define MATED "position fen 7k/5QQ1/8/8/8/8/8/K7 b - - 0 1\n"
/* Mated by the last move of a game given with moves. */
#define MATED_BY_MOVE "position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1 moves a1a8\n"
#define STALEMATED "position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\n"

static transcript tr;

static const char *const net_setup = "setoption name WeightsFile value " CF_TEST_TINY_NET "\n"
                                     "setoption name Backend value ref\n";

static cf_uci *engine(cf_test *t, bool inline_search) {
  uci_transcript_init(&tr);
  cf_uci_config cfg = {.max_batch = 4, .inline_search = inline_search};
  cf_uci *u = NULL;
  CHECK(cf_uci_create(&cfg, uci_transcript_collect, &tr, &u, NULL) == CF_OK);
  return u;
}

static const char *run(cf_uci *u, const char *lines) { return uci_transcript_run(u, &tr, lines); }

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* What the engine wrote since from (the transcript's lock held). */
static bool said_since(size_t from, const char *needle) {
  pthread_mutex_lock(&tr.mu);
  const bool found = strstr(tr.text + from, needle) != NULL;
  pthread_mutex_unlock(&tr.mu);
  return found;
}

/* The answer to a finished game: one depth-0 score line, the reason in
 * words, bestmove 0000, and nothing called an error. */
static void check_answer(cf_test *t, const char *o, const char *score, const char *reason) {
  CHECK_INT_EQ(uci_count(o, "info depth "), 1);
  CHECK_STR_CONTAINS(o, "info depth 0 seldepth 0 time ");
  CHECK_STR_CONTAINS(o, score);
  CHECK_STR_CONTAINS(o, reason);
  CHECK(strstr(o, "error") == NULL);
  CHECK(strstr(o, " pv") == NULL);
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
  CHECK_STR_CONTAINS(o, "bestmove 0000\n");
  /* bestmove is the last line. */
  const size_t n = strlen(o);
  CHECK(n >= 14 && strcmp(o + n - 14, "bestmove 0000\n") == 0);
}

static void test_scores(cf_test *t) {
  cf_uci *u = engine(t, false);
  if (!u) return;
  run(u, net_setup);
  const char *o = run(u, MATED "go");
  check_answer(t, o, " nodes 0 score mate 0\n",
               "info string checkmate: no legal move, the game is over (lost for the side to move)\n");
  check_answer(t, run(u, MATED_BY_MOVE "go wtime 1000 btime 1000"), " nodes 0 score mate 0\n",
               "info string checkmate: ");
  o = run(u, STALEMATED "go movetime 10");
  check_answer(t, o, " nodes 0 score cp 0\n",
               "info string stalemate: no legal move, the game is over (drawn)\n");
  /* W/D/L on request: certain. */
  run(u, "setoption name UCI_ShowWDL value true");
  check_answer(t, run(u, MATED "go nodes 100"), " score mate 0 wdl 0 0 1000\n", "checkmate");
  check_answer(t, run(u, STALEMATED "go depth 5"), " score cp 0 wdl 0 1000 0\n", "stalemate");
  /* MultiPV: the one line there is, as the best. */
  run(u, "setoption name MultiPV value 3");
  check_answer(t, run(u, MATED "go"), " nodes 0 multipv 1 score mate 0 wdl 0 0 1000\n",
               "checkmate");
  check_answer(t, run(u, STALEMATED "go"), " multipv 1 score cp 0 wdl 0 1000 0\n", "stalemate");
  /* The draw on ScoreType's scale (win_percentage: 50%). */
  run(u, "setoption name MultiPV value 1\nsetoption name ScoreType value win_percentage");
  check_answer(t, run(u, STALEMATED "go"), " score cp 5000 wdl 0 1000 0\n", "stalemate");
  check_answer(t, run(u, MATED "go"), " score mate 0 wdl 0 0 1000\n", "checkmate");
  cf_uci_free(u);
}

/* No network is needed: one that fails to load says nothing here. */
static void test_without_network(cf_test *t) {
  cf_uci *u = engine(t, false);
  if (!u) return;
  run(u, "setoption name WeightsFile value /nonexistent/dir/net.pb.gz");
  check_answer(t, run(u, STALEMATED "go"), " score cp 0\n", "stalemate");
  /* A position with moves still needs it. */
  CHECK_STR_CONTAINS(run(u, "position startpos\ngo nodes 2"), "info string error: go: no network");
  cf_uci_free(u);
}

/* go infinite and go ponder: the score at once, bestmove after stop or
 * ponderhit; isready answers meanwhile. */
static void check_held(cf_test *t, bool inline_search) {
  cf_uci *u = engine(t, inline_search);
  if (!u) return;
  run(u, net_setup);
  run(u, MATED);
  size_t from = tr.at;
  cf_uci_feed(u, "go infinite");
  cf_uci_feed(u, "isready");
  sleep_ms(100);
  CHECK(said_since(from, " score mate 0\n"));
  CHECK(said_since(from, "readyok\n"));
  CHECK(!said_since(from, "bestmove"));
  const char *o = run(u, "stop");
  CHECK_STR_EQ(o, "bestmove 0000\n");
  CHECK_STR_EQ(run(u, "stop"), ""); /* a second stop: nothing */
  /* go ponder: held until ponderhit. */
  run(u, STALEMATED);
  from = tr.at;
  cf_uci_feed(u, "go ponder wtime 1000 btime 1000");
  sleep_ms(100);
  CHECK(said_since(from, " score cp 0\n"));
  CHECK(!said_since(from, "bestmove"));
  CHECK_STR_EQ(run(u, "ponderhit"), "bestmove 0000\n");
  /* A new position ends a held one: its bestmove first. */
  from = tr.at;
  cf_uci_feed(u, "go infinite");
  o = run(u, "position startpos");
  CHECK_STR_CONTAINS(o, "bestmove 0000\n");
  cf_uci_free(u);
}

static void test_held_on_worker(cf_test *t) { check_held(t, false); }
static void test_held_inline(cf_test *t) { check_held(t, true); }

/* A held go at a finished game that stop reached while it waited behind a
 * network load (behind isready) answers at once when its turn comes. */
static void test_stopped_while_queued(cf_test *t) {
  uci_transcript_init(&tr);
  cf_uci_config cfg = {.max_batch = 4, .background_load = true};
  cf_uci *u = NULL;
  if (!CHECK(cf_uci_create(&cfg, uci_transcript_collect, &tr, &u, NULL) == CF_OK)) return;
  CHECK(cf_uci_set_option(u, CF_OPT_WEIGHTS_FILE, "<built in>", NULL) == CF_OK);
  CHECK(cf_uci_set_option(u, CF_OPT_BACKEND, "ref", NULL) == CF_OK);
  CHECK(cf_uci_set_option(u, CF_OPT_BACKEND_OPTIONS, "create_delay_ms=300", NULL) == CF_OK);
  const size_t from = tr.at;
  cf_uci_feed(u, "isready");
  cf_uci_feed(u, "position fen 7k/5QQ1/8/8/8/8/8/K7 b - - 0 1");
  cf_uci_feed(u, "go infinite");
  cf_uci_feed(u, "stop");
  CHECK(!said_since(from, "readyok")); /* all of it came during the load */
  /* Polled, not waited for: a go still held would never end. */
  for (int ms = 0; ms < 20000 && !said_since(from, "bestmove"); ms += 10) sleep_ms(10);
  pthread_mutex_lock(&tr.mu);
  const char *o = tr.text + from;
  const char *ready = strstr(o, "readyok\n"), *score = strstr(o, " score mate 0\n"),
             *best = strstr(o, "bestmove 0000\n");
  CHECK(ready && score && best && ready < score && score < best);
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
  pthread_mutex_unlock(&tr.mu);
  cf_uci_free(u);
}

/* Draws that leave legal moves are searched as any position: a legal move. */
static void test_draws_with_moves_searched(cf_test *t) {
  cf_uci *u = engine(t, false);
  if (!u) return;
  run(u, net_setup);
  static const struct {
    const char *fen, *moves;
  } draws[] = {
      {"7k/8/8/8/8/8/8/KQ6 w - - 100 80", ""},                      /* fifty moves */
      {"7k/8/8/8/8/8/8/K7 w - - 0 1", ""},                          /* bare kings */
      {"7k/8/8/8/8/8/8/KQ6 w - - 0 1", "b1b2 h8g8 b2b1 g8h8 b1b2 h8g8 b2b1 g8h8"}, /* threefold */
  };
  for (size_t i = 0; i < sizeof draws / sizeof draws[0]; i++) {
    char cmd[256], move[8];
    snprintf(cmd, sizeof cmd, "position fen %s%s%s\ngo nodes 8", draws[i].fen,
             draws[i].moves[0] ? " moves " : "", draws[i].moves);
    const char *o = run(u, cmd);
    CHECK(strstr(o, "no legal move") == NULL);
    CHECK(uci_bestmove_legal(o, draws[i].fen, draws[i].moves, move));
  }
  cf_uci_free(u);
}

CF_TEST_MAIN(test_scores, test_without_network, test_held_on_worker, test_held_inline,
             test_stopped_while_queued, test_draws_with_moves_searched)
