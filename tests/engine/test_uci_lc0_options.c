/* test_uci_lc0_options.c: the UCI engine on the built-in network with what
 * Lc0 users set: short movetimes under the default MoveOverheadMs (no move
 * played blind), Temperature with Seed, go mate, UCI_ShowMovesLeft,
 * TimeManager, Lc0's backend names, and clean output (setup warnings after
 * uciok, unvisited MultiPV lines without invented figures). No wall-clock
 * assertions: what was searched is read from the info lines. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/cf_backend.h"
#include "engine/uci/cf_uci.h"
#include "tests/cf_test.h"
#include "tests/engine/uci_transcript.h"
#include "tests/weights/weights_test_util.h"

/* An engine writing to tr (batches of up to 8, the options' defaults). */
static cf_uci *engine(cf_test *t, transcript *tr) { return uci_transcript_engine(t, tr); }



static void bestmove_of(const char *out, char move[8]) {
  move[0] = 0;
  const char *b = strstr(out, "bestmove ");
  if (b) sscanf(b + 9, "%7s", move);
}

#define MATE_IN_ONE "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"

/* MoveOverheadMs 200 (the default) and movetimes at and below it: every
 * one searches (the root and at least one minibatch: nodes > 1), and the
 * warning naming MoveOverheadMs comes once a game. */
static void test_no_move_played_blind(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  uci_transcript_run(u, &tr, "setoption name WeightsFile value <built in>\nisready");
  const long movetimes[] = {1, 50, 100, 199, 200, 250};
  for (size_t i = 0; i < sizeof movetimes / sizeof movetimes[0]; i++) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ucinewgame\nposition fen %s\ngo movetime %ld", MATE_IN_ONE,
             movetimes[i]);
    const char *o = uci_transcript_run(u, &tr, cmd);
    const long nodes = uci_last_nodes(o);
    if (!CHECK(nodes > 1)) fprintf(stderr, "  movetime %ld:\n%s", movetimes[i], o);
    CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
    CHECK(!strstr(o, "time trouble"));
    /* 250 ms less 200 would leave 50: under half, so the warning too */
    CHECK_INT_EQ(uci_count(o, "info string warning: MoveOverheadMs 200 is more than half of the "
                          "movetime"), 1);
    /* the second move of the same game: no second warning */
    snprintf(cmd, sizeof cmd, "go movetime %ld", movetimes[i]);
    o = uci_transcript_run(u, &tr, cmd);
    CHECK(uci_last_nodes(o) > 1);
    CHECK_INT_EQ(uci_count(o, "warning"), 0);
  }
  /* movetime 100 (python-chess's 0.1 s) searches rather than playing the
   * raw policy move; the mate in one takes 7 visits here, so 20 find it
   * (fixed visits: how many 100 ms buy depends on the machine's load). */
  char cmd[256], move[8];
  snprintf(cmd, sizeof cmd, "ucinewgame\nposition fen %s\ngo movetime 100", MATE_IN_ONE);
  const char *o = uci_transcript_run(u, &tr, cmd);
  CHECK(uci_last_nodes(o) > 1);
  snprintf(cmd, sizeof cmd, "ucinewgame\nposition fen %s\ngo nodes 20", MATE_IN_ONE);
  o = uci_transcript_run(u, &tr, cmd);
  bestmove_of(o, move);
  if (!CHECK_STR_EQ(move, "h5f7")) fprintf(stderr, "%s", o);
  CHECK_STR_CONTAINS(o, "score mate 1");
  /* A budget that MoveOverheadMs does not halve: no warning. */
  o = uci_transcript_run(u, &tr, "ucinewgame\nposition startpos\ngo movetime 401");
  CHECK_INT_EQ(uci_count(o, "warning"), 0);
  cf_uci_free(u);
  /* A clock under twice MoveOverheadMs: half of it is kept back from the
   * budget, and the rest is searched while the clock less MoveOverheadMs
   * still pays for an answer (a fresh engine has measured none yet; time
   * trouble is test_uci.c's); python-chess's go wtime 1000 searches too. */
  u = engine(t, &tr);
  if (!u) return;
  uci_transcript_run(u, &tr, "setoption name WeightsFile value <built in>\nisready");
  o = uci_transcript_run(u, &tr, "ucinewgame\nposition startpos\ngo wtime 300 btime 300");
  CHECK(uci_last_nodes(o) > 1);
  CHECK_STR_CONTAINS(o, "info string warning: MoveOverheadMs 200 is more than half of the time left");
  o = uci_transcript_run(u, &tr, "ucinewgame\nposition startpos\ngo wtime 1000 btime 1000");
  CHECK(uci_last_nodes(o) > 1);
  cf_uci_free(u);
}

/* The openings of n games of plies plies from the start position, one
 * per line, with the options in setup. */
static void openings(cf_test *t, const char *setup, int n, int plies, char *out, size_t size) {
  transcript tr;
  cf_uci *u = engine(t, &tr);
  out[0] = 0;
  if (!u) return;
  uci_transcript_run(u, &tr, setup);
  size_t at = 0;
  for (int g = 0; g < n; g++) {
    char moves[512] = "";
    size_t m = 0;
    uci_transcript_run(u, &tr, "ucinewgame");
    for (int p = 0; p < plies; p++) {
      char cmd[640], move[8];
      snprintf(cmd, sizeof cmd, "position startpos%s%s\ngo nodes 12", m ? " moves" : "", moves);
      bestmove_of(uci_transcript_run(u, &tr, cmd), move);
      if (!CHECK(move[0] && strcmp(move, "0000") != 0)) break;
      m += (size_t)snprintf(moves + m, sizeof moves - m, " %s", move);
    }
    at += (size_t)snprintf(out + at, size - at, "%s\n", moves);
  }
  cf_uci_free(u);
}

static int distinct_lines(const char *text) {
  char *copy = strdup(text);
  char *lines[256];
  int n = 0, distinct = 0;
  for (char *s = NULL, *l = strtok_r(copy, "\n", &s); l && n < 256; l = strtok_r(NULL, "\n", &s))
    lines[n++] = l;
  for (int i = 0; i < n; i++) {
    bool seen = false;
    for (int j = 0; j < i && !seen; j++) seen = strcmp(lines[i], lines[j]) == 0;
    distinct += !seen;
  }
  free(copy);
  return distinct;
}

/* Temperature 1: 100 openings of 8 plies are all distinct; with a fixed
 * Seed a second run repeats them exactly; Temperature 0 repeats one game. */
static void test_temperature_openings(cf_test *t) {
  static char a[100 * 64], b[100 * 64], c[8 * 64];
  const char *setup = "setoption name WeightsFile value <built in>\nsetoption name Temperature value 1\n"
                      "setoption name Seed value 12345\nisready";
  openings(t, setup, 100, 8, a, sizeof a);
  CHECK_INT_EQ(distinct_lines(a), 100);
  openings(t, setup, 100, 8, b, sizeof b);
  CHECK(strcmp(a, b) == 0);
  openings(t, "setoption name WeightsFile value <built in>\nisready", 4, 8, c, sizeof c);
  CHECK_INT_EQ(distinct_lines(c), 1);
}

/* go mate N: stops at a proven mate in N or fewer; alone it searches until
 * then; with nodes it stops at the nodes where there is no mate. */
static void test_go_mate(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  uci_transcript_run(u, &tr, "setoption name WeightsFile value <built in>\nisready");
  char cmd[256], move[8];
  snprintf(cmd, sizeof cmd, "position fen %s\ngo mate 1", MATE_IN_ONE);
  const char *o = uci_transcript_run(u, &tr, cmd);
  bestmove_of(o, move);
  CHECK_STR_EQ(move, "h5f7");
  CHECK_STR_CONTAINS(o, "score mate 1");
  /* smart pruning off: past 0.2 s (a slow machine under ASan) it may stop
   * a node limit early, as Lc0's does */
  o = uci_transcript_run(u, &tr,
                         "setoption name SmartPruningFactor value 0\nucinewgame\n"
                         "position startpos\ngo mate 1 nodes 40");
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
  CHECK(uci_last_nodes(o) >= 40 && uci_last_nodes(o) < 60);
  cf_uci_free(u);
}

/* Setup warnings (the flags before any command) come after uciok; the
 * MultiPV line of an unvisited move shows the root's value (Lc0's), not an
 * invented 500 0 500. */
static void test_clean_output(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  cf_error err = {0};
  CHECK(cf_uci_set_option(u, CF_OPT_THREADS, "128", &err) == CF_OK);
  CHECK_INT_EQ((int)tr.at, 0); /* held */
  const char *o = uci_transcript_run(u, &tr, "uci");
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 128) {
    const char *w = strstr(o, "info string warning: Threads 128");
    CHECK(w && w > strstr(o, "uciok"));
  }
  CHECK(strncmp(o, "id name", 7) == 0);
  o = uci_transcript_run(u, &tr, "setoption name Threads value 1\nsetoption name WeightsFile value <built in>\n"
                  "setoption name UCI_ShowWDL value true\nsetoption name MultiPV value 20\n"
                  "setoption name VerboseMoveStats value true\nisready\nposition startpos\ngo nodes 3");
  /* unvisited moves (N: 0) show the same root figures, never 500 0 500 */
  CHECK_STR_CONTAINS(o, "N:       0 ");
  CHECK(!strstr(o, "wdl 500 0 500"));
  const char *l19 = strstr(o, " multipv 19 "), *l20 = strstr(o, " multipv 20 ");
  char w19[32] = "", w20[32] = "";
  if (CHECK(l19 && l20)) {
    sscanf(strstr(l19, " wdl "), " wdl %31[0-9 ]", w19);
    sscanf(strstr(l20, " wdl "), " wdl %31[0-9 ]", w20);
    CHECK_STR_EQ(w19, w20);
  }
  cf_uci_free(u);
}

/* UCI_ShowMovesLeft with a network that has a moves-left head: Lc0's
 * movesleft, (1 + plies left after the best move) / 2, in every info line
 * with a score; none when the option is off. */
static void test_moves_left(cf_test *t) {
  char dir[] = "/tmp/cf_test_movesleft_XXXXXX", path[128];
  if (!CHECK(mkdtemp(dir))) return;
  snprintf(path, sizeof path, "%s/mlh.pb.gz", dir);
  cf_test_shape sh = {.layers = 1, .d = 8, .heads = 2, .dff = 8, .rpe = true, .rms = true,
                      .input_format = 4, .cv = 2, .cm = 2, .seed = 5};
  cf_error err = {0};
  cf_weights *w = cf_test_random_net(&sh, &err);
  if (CHECK(w != NULL)) {
    CHECK(cf_weights_save_file(w, path, CF_ENC_FLOAT32, true, &err) == CF_OK);
    cf_weights_free(w);
  }
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (u) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "setoption name WeightsFile value %s\nsetoption name "
                              "UCI_ShowMovesLeft value true\nisready\ngo nodes 20", path);
    const char *o = uci_transcript_run(u, &tr, cmd);
    const char *ml = strstr(o, " movesleft ");
    if (CHECK(ml)) CHECK(atol(ml + 11) >= 0);
    CHECK_INT_EQ(uci_count(o, " movesleft "), uci_count(o, " score "));
    o = uci_transcript_run(u, &tr, "setoption name UCI_ShowMovesLeft value false\ngo nodes 20");
    CHECK(!strstr(o, " movesleft "));
    cf_uci_free(u);
  }
  unlink(path);
  rmdir(dir);
}

/* Lc0's names: Backend blas is openblas (where compiled in), other Lc0
 * backends are refused with the list; TimeManager takes legacy and its
 * keys, refuses Lc0's others and Slowmover beside its own settings. */
static void test_lc0_names(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  bool openblas = false;
  for (int i = 0; i < cf_backend_count(); i++)
    openblas |= strcmp(cf_backend_at(i)->name, "openblas") == 0 && cf_backend_at(i)->priority >= 0;
  const char *o = uci_transcript_run(u, &tr, "setoption name Backend value blas");
  if (openblas) {
    CHECK_STR_EQ(o, "");
    CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_BACKEND), "openblas");
  } else {
    CHECK_STR_CONTAINS(o, "expected one of: auto");
  }
  o = uci_transcript_run(u, &tr, "setoption name Backend value cudnn-fp16");
  CHECK_STR_CONTAINS(o, "info string error: option Backend: bad value 'cudnn-fp16' (expected one of: auto, ");
  CHECK_STR_EQ(uci_transcript_run(u, &tr, "setoption name TimeManager value legacy(slowmover=1.5, steepness=6)"), "");
  o = uci_transcript_run(u, &tr, "setoption name TimeManager value smooth");
  CHECK_STR_CONTAINS(o, "'smooth' is not available (available: legacy");
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_TIME_MANAGER), "legacy(slowmover=1.5, steepness=6)");
  CHECK_STR_CONTAINS(uci_transcript_run(u, &tr, "setoption name TimeManager value legacy(speed=2)"),
                     "unknown legacy setting 'speed'");
  CHECK_STR_CONTAINS(uci_transcript_run(u, &tr, "setoption name Slowmover value 2"), "cannot both be set");
  CHECK_STR_EQ(uci_transcript_run(u, &tr, "setoption name TimeManager value legacy\nsetoption name Slowmover value 2"), "");
  CHECK_STR_CONTAINS(uci_transcript_run(u, &tr, "setoption name Temperature value 101"), "expected 0 to 100");
  CHECK_STR_CONTAINS(uci_transcript_run(u, &tr, "setoption name TempVisitOffset value -1001"),
                     "expected -1000 to 1000");
  cf_uci_free(u);
}

CF_TEST_MAIN(test_no_move_played_blind, test_temperature_openings, test_go_mate, test_clean_output,
             test_moves_left, test_lc0_names)
