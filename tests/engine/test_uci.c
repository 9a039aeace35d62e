/* test_uci.c: UCI transcripts through the in-memory responder: every
 * command, the option table, weights loading (built in, autodiscover,
 * missing and corrupt files, recovery) and the error paths. */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backends/cf_backend.h"
#include "chess/cf_fen.h"
#include "chess/cf_game.h"
#include "chess/cf_move_uci.h"
#include "common/cf_clock.h"
#include "engine/cf_engine_weights.h"
#include "engine/uci/cf_uci.h"
#include "engine/cf_agent.h"
#include "engine/uci/cf_uci_go.h"
#include "engine/uci/cf_uci_score.h"
#include "engine/uci/cf_uci_text.h"
#include "tests/cf_test.h"
#include "tests/engine/uci_transcript.h"
#include "tests/weights/weights_test_util.h"

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static cf_uci *engine(cf_test *t, transcript *tr, const char *const *dirs) {
  uci_transcript_init(tr);
  cf_uci_config cfg = {.search_dirs = dirs, .max_batch = 8};
  cf_uci *u = NULL;
  cf_error err = {0};
  CHECK(cf_uci_create(&cfg, uci_transcript_collect, tr, &u, &err) == CF_OK);
  return u;
}

static const char *run(cf_uci *u, transcript *tr, const char *lines) {
  return uci_transcript_run(u, tr, lines);
}


/* The bestmove in out is legal in fen + moves. */
static bool bestmove_legal(const char *out, const char *fen, const char *moves, char *move) {
  return uci_bestmove_legal(out, fen, moves, move);
}

static void test_handshake(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) return;
  const char *o = run(u, &tr, "uci");
  CHECK_STR_CONTAINS(o, "id name cformer");
  CHECK_STR_CONTAINS(o, "id author");
  CHECK_STR_CONTAINS(o, "option name WeightsFile type string default <autodiscover>\n");
  CHECK_STR_CONTAINS(o, "option name WeightsMaxMb type spin default 0 min 0 max 1048576\n");
  /* Backend's choices are "auto" and every backend compiled in: the
   * simulated accelerator too (a test double, never chosen by auto). */
  char backend_line[512];
  size_t at = (size_t)snprintf(backend_line, sizeof backend_line,
                               "option name Backend type combo default auto var auto");
  for (int i = 0; i < cf_backend_count(); i++)
    at += (size_t)snprintf(backend_line + at, sizeof backend_line - at, " var %s",
                           cf_backend_at(i)->name);
  snprintf(backend_line + at, sizeof backend_line - at, "\n");
  CHECK_STR_CONTAINS(o, backend_line);
  CHECK_STR_CONTAINS(o, " var ref");
  CHECK_STR_CONTAINS(o, " var sim\n");
  CHECK_STR_CONTAINS(o, "option name BackendOptions type string default \n");
  CHECK_STR_CONTAINS(o, "option name Threads type spin default 0 min 0 max 128\n");
  CHECK_STR_CONTAINS(o, "option name Agent type combo default search var policy var value var search\n");
  CHECK_STR_CONTAINS(o, "option name PolicyTemperature type string default 1.359\n");
  CHECK_STR_CONTAINS(o, "option name CPuct type string default 1.745\n");
  CHECK_STR_CONTAINS(o, "option name MinibatchSize type spin default 0 min 0 max 1024\n");
  CHECK_STR_CONTAINS(o, "option name ScoreType type combo default WDL_mu var centipawn");
  CHECK_STR_CONTAINS(o, "option name Ponder type check default false\n");
  CHECK_STR_CONTAINS(o, "option name HistoryFill type combo default fen_only var fen_only");
  CHECK_STR_CONTAINS(o, "option name UCI_ShowWDL type check default false\n");
  CHECK_INT_EQ(uci_count(o, "option name"), CF_OPT_COUNT);
  CHECK(strlen(o) > 6 && strcmp(o + strlen(o) - 6, "uciok\n") == 0);
  /* isready loads the built-in net (no folders to search); the shipped
   * default network is trained, so no warning (a placeholder shipped by
   * mistake would fail here). */
  o = run(u, &tr, "isready");
  CHECK_STR_CONTAINS(o, "info string loaded network <built in>");
  CHECK(!strstr(o, "untrained"));
  CHECK_STR_CONTAINS(o, "readyok\n");
  o = run(u, &tr, "isready\ndebug on\nregister later\n\n   \nucinewgame");
  CHECK_STR_EQ(o, "readyok\n"); /* loaded once; the rest are silent */
  CHECK(!cf_uci_feed(u, "quit"));
  cf_uci_free(u);
}

/* The engine runs precision=auto unless BackendOptions names a precision
 * (docs/PRECISION.md): onednn says so in the load line, with the precision
 * it picked on this CPU; a named precision is taken as it is. */
static void test_default_precision(cf_test *t) {
  const cf_backend_desc *d = cf_backend_find("onednn");
  if (!d) {
    CF_SKIP("the onednn backend is not compiled in");
    return;
  }
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) return;
  char want[96];
  const cf_precision pick = cf_backend_auto_precision(d);
  if (pick == CF_PRECISION_F32)
    snprintf(want, sizeof want, "f32 (precision=auto: ");
  else
    snprintf(want, sizeof want, "%s matmuls (precision=auto: ", cf_precision_name(pick));
  const char *o = run(u, &tr, "setoption name Backend value onednn\nisready");
  CHECK_STR_CONTAINS(o, "info string loaded network <built in>");
  if (!CHECK_STR_CONTAINS(o, want)) fprintf(stderr, "%s", o);
  o = run(u, &tr, "setoption name BackendOptions value threads=1\nisready");
  CHECK_STR_CONTAINS(o, want); /* other options keep the default precision */
  o = run(u, &tr, "setoption name BackendOptions value precision=f32\nisready");
  CHECK_STR_CONTAINS(o, "info string loaded network <built in>");
  CHECK(!strstr(o, "precision=auto"));
  CHECK(!strstr(o, "matmuls"));
  o = run(u, &tr, "ucinewgame\nposition startpos\ngo nodes 20");
  CHECK_STR_CONTAINS(o, "bestmove ");
  cf_uci_free(u);
}

static void test_go_and_position(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) return;
  char mv[8];
  /* These are the one-ply agents' answers (the search's are in
   * test_uci_search.c). */
  run(u, &tr, "setoption name Agent value value");
  /* go before any position: the start position. */
  const char *o = run(u, &tr, "go nodes 5");
  CHECK(bestmove_legal(o, CF_FEN_STARTPOS, "", mv));
  CHECK_STR_CONTAINS(o, "info depth 1 seldepth 1 time ");
  CHECK_STR_CONTAINS(o, " nodes 5 score cp "); /* the search's field order */
  CHECK_STR_CONTAINS(o, " nps ");
  CHECK_STR_CONTAINS(o, " pv ");
  CHECK(!strstr(o, " wdl "));
  CHECK_INT_EQ(uci_count(o, "bestmove"), 1);
  o = run(u, &tr, "position startpos moves e2e4 e7e5 g1f3\ngo movetime 200");
  CHECK(bestmove_legal(o, CF_FEN_STARTPOS, "e2e4 e7e5 g1f3", mv));
  /* The ponder move (the expected reply) is legal after the best move and
   * ends the pv. */
  o = run(u, &tr, "go");
  char pv[64], ponder[8] = "", played[64];
  const char *bm = strstr(o, "bestmove ");
  CHECK(bm && sscanf(bm, "bestmove %7s ponder %7s", mv, ponder) == 2);
  snprintf(played, sizeof played, "e2e4 e7e5 g1f3 %s", mv);
  snprintf(pv, sizeof pv, " pv %s %s\n", mv, ponder);
  CHECK_STR_CONTAINS(o, pv);
  cf_game g;
  if (CHECK(cf_game_init_fen(&g, CF_FEN_STARTPOS, NULL) == CF_OK)) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", played);
    for (char *s = NULL, *m = strtok_r(buf, " ", &s); m; m = strtok_r(NULL, " ", &s))
      CHECK(cf_game_push_uci(&g, m, NULL) == CF_OK);
    CHECK(cf_game_push_uci(&g, ponder, NULL) == CF_OK);
    cf_game_free(&g);
  }
  /* Every legal child evaluated: 1 + 29 evaluations. */
  o = run(u, &tr, "go");
  CHECK_STR_CONTAINS(o, " nodes 30 ");
  o = run(u, &tr, "position fen 8/8/8/8/8/5k2/8/5K1R w - - 0 1 moves h1h2\ngo wtime 1000 btime 1000 winc 10 binc 10 movestogo 5");
  CHECK(bestmove_legal(o, "8/8/8/8/8/5k2/8/5K1R w - - 0 1", "h1h2", mv));
  /* Castling is written the standard way. */
  o = run(u, &tr, "position fen r3k2r/8/8/8/8/8/8/4K3 b kq - 0 1\ngo searchmoves e8g8");
  CHECK_STR_CONTAINS(o, "bestmove e8g8 ponder ");
  /* WDL on request; the policy agent spends one evaluation. */
  o = run(u, &tr, "setoption name UCI_ShowWDL value true\nsetoption name agent value POLICY\n"
                  "position startpos\ngo depth 3");
  CHECK_STR_CONTAINS(o, " nodes 1 ");
  CHECK_STR_CONTAINS(o, " wdl ");
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_AGENT), "policy");
  /* A mate in one is found and reported as such by the value agent. */
  o = run(u, &tr, "setoption name Agent value value\nposition fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\ngo nodes 1000");
  CHECK_STR_CONTAINS(o, "score mate 1 wdl 1000 0 0 nps ");
  CHECK_STR_CONTAINS(o, " pv a1a8\n");
  CHECK_STR_CONTAINS(o, "bestmove a1a8\n");
  /* Checkmated or stalemated: the game's result as the score, no move
   * (every case, held ones included: test_uci_game_over.c). */
  o = run(u, &tr, "position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1 moves a1a8\ngo");
  CHECK_STR_CONTAINS(o, " nodes 0 score mate 0 wdl 0 0 1000\n");
  CHECK(strstr(o, "error") == NULL);
  CHECK_STR_CONTAINS(o, "bestmove 0000\n");
  o = run(u, &tr, "position fen 7k/8/6QK/8/8/8/8/8 b - - 0 1\ngo movetime 10");
  CHECK_STR_CONTAINS(o, " nodes 0 score cp 0 wdl 0 1000 0\n");
  CHECK_STR_CONTAINS(o, "info string stalemate: ");
  CHECK_STR_CONTAINS(o, "bestmove 0000\n");
  cf_uci_free(u);
}

static void test_infinite_ponder_stop_quit(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) return;
  run(u, &tr, "isready");
  /* go infinite holds bestmove until stop; isready answers meanwhile. */
  size_t from = tr.at;
  cf_uci_feed(u, "go infinite");
  cf_uci_feed(u, "isready");
  sleep_ms(100);
  pthread_mutex_lock(&tr.mu);
  CHECK(!strstr(tr.text + from, "bestmove"));
  CHECK_STR_CONTAINS(tr.text + from, "readyok");
  pthread_mutex_unlock(&tr.mu);
  const char *o = run(u, &tr, "stop");
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
  /* stop with no search: nothing. */
  CHECK_STR_EQ(run(u, &tr, "stop\nponderhit"), "");
  /* go ponder holds until ponderhit. */
  from = tr.at;
  cf_uci_feed(u, "go ponder wtime 100 btime 100");
  sleep_ms(50);
  pthread_mutex_lock(&tr.mu);
  CHECK(!strstr(tr.text + from, "bestmove"));
  pthread_mutex_unlock(&tr.mu);
  o = run(u, &tr, "ponderhit");
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
  /* A new position during a held search ends it first. */
  o = run(u, &tr, "go infinite\nposition startpos moves d2d4\ngo nodes 2");
  CHECK_INT_EQ(uci_count(o, "bestmove "), 2);
  /* quit during a held search: bestmove, then the loop ends. */
  from = tr.at;
  cf_uci_feed(u, "go infinite");
  CHECK(!cf_uci_feed(u, "quit"));
  CHECK_STR_CONTAINS(tr.text + from, "bestmove ");
  cf_uci_free(u);
  /* Freeing with a search running stops it. */
  u = engine(t, &tr, NULL);
  if (!u) return;
  cf_uci_feed(u, "go infinite");
  cf_uci_free(u);
}

static void test_bad_input(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) return;
  const char *o = run(u, &tr, "xyzzy 1 2");
  CHECK_STR_EQ(o, "info string error: unknown command 'xyzzy'\n");
  o = run(u, &tr, "position");
  CHECK_STR_CONTAINS(o, "info string error: position: expected 'startpos' or 'fen <FEN>'");
  o = run(u, &tr, "position fen");
  CHECK_STR_CONTAINS(o, "'fen' needs a FEN");
  o = run(u, &tr, "position startpos e2e4");
  CHECK_STR_CONTAINS(o, "expected 'moves', got 'e2e4'");
  o = run(u, &tr, "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1");
  CHECK_STR_CONTAINS(o, "info string error: position: invalid FEN");
  o = run(u, &tr, "position fen 8/8/8/8/8/8/8/8 w - - 0 1");
  CHECK_STR_CONTAINS(o, "invalid FEN");
  /* A bad move leaves the position as it was (after 1. e4), naming the move. */
  run(u, &tr, "position startpos moves e2e4");
  o = run(u, &tr, "position startpos moves d2d4 e7e5 d4d6");
  CHECK_STR_CONTAINS(o, "move 3 'd4d6' rejected");
  CHECK_STR_CONTAINS(o, "position unchanged");
  o = run(u, &tr, "position startpos moves e2e4 zz9");
  CHECK_STR_CONTAINS(o, "'zz9'");
  o = run(u, &tr, "go searchmoves e7e5");
  CHECK_STR_CONTAINS(o, "bestmove e7e5");
  /* go: bad words are reported and skipped; a bestmove still comes. */
  o = run(u, &tr, "go wtime abc binc -5 frobnicate nodes 3 searchmoves e2e4");
  CHECK_STR_CONTAINS(o, "bad value 'abc' for wtime");
  CHECK_STR_CONTAINS(o, "bad value '-5' for binc");
  CHECK_STR_CONTAINS(o, "unknown word 'frobnicate'");
  CHECK_STR_CONTAINS(o, "searchmoves: 'e2e4' is not a legal move");
  CHECK_STR_CONTAINS(o, " nodes 3 ");
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
  o = run(u, &tr, "go movetime");
  CHECK_STR_CONTAINS(o, "bad value '' for movetime");
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
  /* setoption errors. */
  o = run(u, &tr, "setoption name NoSuchThing value 3");
  CHECK_STR_EQ(o, "info string error: unknown option 'NoSuchThing'\n");
  o = run(u, &tr, "setoption Threads 3");
  CHECK_STR_CONTAINS(o, "expected 'setoption name <name> [value <value>]'");
  o = run(u, &tr, "setoption name Threads value 0"); /* Lc0's "automatic" */
  CHECK_STR_EQ(o, "");
  o = run(u, &tr, "setoption name Threads value -1");
  CHECK_STR_CONTAINS(o, "option Threads: bad value '-1' (expected 0 to 128)");
  o = run(u, &tr, "setoption name Threads value 4x");
  CHECK_STR_CONTAINS(o, "bad value '4x'");
  o = run(u, &tr, "setoption name Agent value mcts");
  CHECK_STR_CONTAINS(o, "option Agent: bad value 'mcts' (expected one of: policy, value, search)");
  o = run(u, &tr, "setoption name UCI_ShowWDL value maybe");
  CHECK_STR_CONTAINS(o, "expected true or false");
  o = run(u, &tr, "setoption name PolicyTemperature value nan");
  CHECK_STR_CONTAINS(o, "bad value 'nan'");
  o = run(u, &tr, "setoption name HistoryFill value sometimes");
  CHECK_STR_CONTAINS(o, "bad value 'sometimes'");
  o = run(u, &tr, "setoption name Backend value warp");
  CHECK_STR_CONTAINS(o, "option Backend: bad value 'warp'");
  /* (More threads than cores: accepted with a warning, test_threads_warning.) */
  o = run(u, &tr, "setoption name threads value 7\nsetoption name PolicyTemperature value 2.5");
  CHECK(sysconf(_SC_NPROCESSORS_ONLN) < 7 ? strstr(o, "info string warning: Threads 7 ") != NULL
                                          : strcmp(o, "") == 0);
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_THREADS), "7");
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_SEARCH(policy_temperature)), "2.5");
  /* Backend options the backend does not know: an error at load time. */
  o = run(u, &tr, "setoption name BackendOptions value turbo=1\nisready");
  CHECK_STR_CONTAINS(o, "info string error: ");
  CHECK_STR_CONTAINS(o, "readyok");
  o = run(u, &tr, "setoption name BackendOptions value\nisready");
  CHECK_STR_CONTAINS(o, "loaded network");
  /* Threads reaches the network as lanes=N, which every backend runs (the
   * reference backend too); BackendOptions' own threads= goes to the
   * backend instead, and the reference backend runs on one thread and says
   * so. */
  o = run(u, &tr, "setoption name Backend value ref\nsetoption name Threads value 2\nisready");
  CHECK_STR_CONTAINS(o, "loaded network");
  CHECK(!strstr(o, "info string error: "));
  o = run(u, &tr, "setoption name BackendOptions value threads=2\nisready");
  CHECK_STR_CONTAINS(o, "info string error: ");
  CHECK_STR_CONTAINS(o, "threads");
  o = run(u, &tr, "setoption name BackendOptions value threads=1\nisready");
  CHECK_STR_CONTAINS(o, "loaded network");
  o = run(u, &tr, "setoption name BackendOptions value\nsetoption name Threads value 1\nisready");
  CHECK_STR_CONTAINS(o, "loaded network");
  /* Binary noise. */
  o = run(u, &tr, "\x01\x02\xff go");
  CHECK_STR_CONTAINS(o, "unknown command");
  cf_uci_free(u);
}

static bool write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

/* A tiny random net with the given license field, saved at path. */
static bool save_net_with_license(const char *path, const char *license) {
  cf_test_shape s = {.layers = 1, .d = 8, .heads = 2, .dff = 8, .rpe = true, .rms = true,
                     .input_format = 4, .cv = 2, .cm = 2, .seed = 77};
  cf_error err;
  cf_weights *w = cf_test_random_net(&s, &err);
  if (!w) return false;
  w->license = strdup(license);
  bool ok = cf_weights_save_file(w, path, CF_ENC_FLOAT32, true, &err) == CF_OK;
  cf_weights_free(w);
  return ok;
}

static void test_weights(cf_test *t) {
  char dir[] = "/tmp/cf_test_uci_XXXXXX";
  if (!CHECK(mkdtemp(dir))) return;
  char good[1100], bad[1100], empty_dir[1100];
  snprintf(good, sizeof good, "%s/a-good.pb.gz", dir);
  snprintf(bad, sizeof bad, "%s/b-corrupt.pb.gz", dir);
  snprintf(empty_dir, sizeof empty_dir, "%s/none", dir);
  CHECK(save_net_with_license(good, "GPL-3.0-or-later"));
  char untrained[1100];
  snprintf(untrained, sizeof untrained, "%s/untrained/u.pb.gz", dir);
  char untrained_dir[1100];
  snprintf(untrained_dir, sizeof untrained_dir, "%s/untrained", dir);
  CHECK(mkdir(untrained_dir, 0700) == 0);
  CHECK(save_net_with_license(untrained, "cformer untrained placeholder: random weights"));
  CHECK(write_file(bad, "\x1f\x8b garbage", 10));
  /* the corrupt file is the newer one, so autodiscover tries it first */
  struct timespec later[2] = {{.tv_sec = time(NULL) + 60}, {.tv_sec = time(NULL) + 60}};
  CHECK(utimensat(AT_FDCWD, bad, later, 0) == 0);
  /* Autodiscover: the corrupt file (newer) is skipped, the good one used,
   * and no untrained warning. */
  const char *dirs[] = {empty_dir, dir, NULL};
  transcript tr;
  cf_uci *u = engine(t, &tr, dirs);
  if (!u) goto done;
  const char *o = run(u, &tr, "isready");
  CHECK_STR_CONTAINS(o, "loaded network ");
  CHECK_STR_CONTAINS(o, "a-good.pb.gz (1 layers, d 8, 2 heads");
  CHECK(!strstr(o, "untrained"));
  /* ... and says which file it passed over, and why */
  CHECK_INT_EQ(uci_count(o, "info string warning: autodiscover skipped "), 1);
  CHECK_STR_CONTAINS(o, "info string warning: autodiscover skipped ");
  CHECK_STR_CONTAINS(o, "b-corrupt.pb.gz");
  CHECK(strstr(o, "b-corrupt.pb.gz") < strstr(o, "readyok"));
  /* A missing file: error, engine up, go answers, a valid file recovers. */
  o = run(u, &tr, "setoption name WeightsFile value /nonexistent/net.pb.gz\nisready");
  CHECK_STR_CONTAINS(o, "info string error: ");
  CHECK_STR_CONTAINS(o, "/nonexistent/net.pb.gz");
  CHECK_STR_CONTAINS(o, "readyok");
  o = run(u, &tr, "isready");
  CHECK_STR_EQ(o, "readyok\n"); /* reported once */
  o = run(u, &tr, "go nodes 3");
  CHECK_STR_CONTAINS(o, "info string error: go: no network loaded: ");
  CHECK_STR_CONTAINS(o, "bestmove 0000\n");
  char cmd[1300];
  snprintf(cmd, sizeof cmd, "setoption name WeightsFile value %s\nisready", bad);
  o = run(u, &tr, cmd);
  CHECK_STR_CONTAINS(o, "info string error: ");
  CHECK_STR_CONTAINS(o, "b-corrupt.pb.gz");
  snprintf(cmd, sizeof cmd, "setoption name WeightsFile value %s\ngo nodes 3", good);
  o = run(u, &tr, cmd);
  CHECK_STR_CONTAINS(o, "loaded network ");
  CHECK(bestmove_legal(o, CF_FEN_STARTPOS, "", (char[8]){0}));
  /* A net whose license field says untrained: loaded, with a warning. */
  snprintf(cmd, sizeof cmd, "setoption name WeightsFile value %s\nisready", untrained);
  o = run(u, &tr, cmd);
  CHECK_STR_CONTAINS(o, "loaded network ");
  CHECK_STR_CONTAINS(o, "info string warning: this network is untrained");
  o = run(u, &tr, "setoption name WeightsFile value <built in>\nisready");
  CHECK_STR_CONTAINS(o, "loaded network <built in>");
  CHECK(!strstr(o, "untrained"));
  cf_uci_free(u);
  /* Autodiscover with nothing to find: the built-in net. */
  const char *none[] = {empty_dir, NULL};
  u = engine(t, &tr, none);
  if (!u) goto done;
  CHECK_STR_CONTAINS(run(u, &tr, "isready"), "loaded network <built in>");
  cf_uci_free(u);
done:
  unlink(good);
  unlink(bad);
  unlink(untrained);
  rmdir(untrained_dir);
  rmdir(dir);
}

/* What a network file holds that the loader read but does not run (here a
 * field no schema declares, appended to the bare message) is an info string
 * warning before readyok; the net is loaded and plays. */
static void test_weights_notes_warned(cf_test *t) {
  char dir[] = "/tmp/cf_test_uci_XXXXXX";
  if (!CHECK(mkdtemp(dir))) return;
  char path[1100], cmd[1300];
  snprintf(path, sizeof path, "%s/extra.pb", dir);
  cf_test_shape s = {.layers = 1, .d = 8, .heads = 2, .dff = 8, .rpe = true, .rms = true,
                     .input_format = 4, .cv = 2, .cm = 2, .seed = 78};
  cf_weights *w = cf_test_random_net(&s, NULL);
  void *buf = NULL;
  size_t n = 0;
  bool ok = w && cf_weights_save_memory(w, CF_ENC_FLOAT32, false, &buf, &n, NULL) == CF_OK;
  cf_weights_free(w);
  uint8_t *file = ok ? malloc(n + 3) : NULL;
  if (!CHECK(file != NULL)) {
    free(buf);
    rmdir(dir);
    return;
  }
  memcpy(file, buf, n);
  memcpy(file + n, "\xc8\x02\x01", 3); /* Net field 41, varint 1 */
  free(buf);
  CHECK(write_file(path, file, n + 3));
  free(file);
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (u) {
    snprintf(cmd, sizeof cmd, "setoption name WeightsFile value %s\nisready", path);
    const char *o = run(u, &tr, cmd);
    CHECK_STR_CONTAINS(o, "loaded network ");
    CHECK_STR_CONTAINS(o, "info string warning: ignored 1 unknown field in Net (field number 41)");
    CHECK(strstr(o, "field number 41") && strstr(o, "field number 41") < strstr(o, "readyok"));
    CHECK(bestmove_legal(run(u, &tr, "go nodes 3"), CF_FEN_STARTPOS, "", (char[8]){0}));
    cf_uci_free(u);
  }
  unlink(path);
  rmdir(dir);
}

/* A WeightsFile that failed is tried again by the next setoption (same
 * value) and by go; what is not a regular file is refused at once (a hang
 * is killed by alarm() and fails); WeightsMaxMb decides what inflates too
 * far and a change of it retries. */
static void test_weights_retry_and_hostile_files(cf_test *t) {
  char dir[] = "/tmp/cf_test_uci_XXXXXX";
  if (!CHECK(mkdtemp(dir))) return;
  char later[1100], later2[1100], fifo[1100], big[1100], cmd[1300];
  snprintf(later, sizeof later, "%s/later.pb.gz", dir);
  snprintf(later2, sizeof later2, "%s/later2.pb.gz", dir);
  snprintf(fifo, sizeof fifo, "%s/fifo.pb.gz", dir);
  snprintf(big, sizeof big, "%s/default.pb.gz", dir);
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) goto done;
  alarm(60);
  /* Not there yet: an error; then it appears and the same setoption loads it. */
  snprintf(cmd, sizeof cmd, "setoption name WeightsFile value %s\nisready", later);
  const char *o = run(u, &tr, cmd);
  CHECK_STR_CONTAINS(o, "info string error: ");
  CHECK_STR_CONTAINS(o, "later.pb.gz: cannot open: No such file or directory");
  CHECK(save_net_with_license(later, "GPL-3.0-or-later"));
  o = run(u, &tr, cmd);
  CHECK_STR_CONTAINS(o, "info string loaded network ");
  CHECK_STR_CONTAINS(o, "later.pb.gz (1 layers, d 8");
  CHECK(!strstr(o, "error"));
  /* The same with go instead of a second setoption. */
  snprintf(cmd, sizeof cmd, "setoption name WeightsFile value %s\nisready", later2);
  CHECK_STR_CONTAINS(run(u, &tr, cmd), "later2.pb.gz: cannot open");
  CHECK(save_net_with_license(later2, "GPL-3.0-or-later"));
  o = run(u, &tr, "position startpos\ngo nodes 3");
  CHECK_STR_CONTAINS(o, "later2.pb.gz (1 layers, d 8");
  CHECK(!strstr(o, "error"));
  CHECK(bestmove_legal(o, CF_FEN_STARTPOS, "", (char[8]){0}));
  /* A FIFO nobody writes to and a device: refused, the engine answers. */
  if (CHECK(mkfifo(fifo, 0600) == 0)) {
    snprintf(cmd, sizeof cmd, "setoption name WeightsFile value %s\nisready", fifo);
    o = run(u, &tr, cmd);
    CHECK_STR_CONTAINS(o, "fifo.pb.gz: is a FIFO, not a regular file");
    CHECK_STR_CONTAINS(o, "readyok\n");
  }
  o = run(u, &tr, "setoption name WeightsFile value /dev/zero\nisready");
  CHECK_STR_CONTAINS(o, "/dev/zero: is a character device, not a regular file");
  CHECK_STR_CONTAINS(o, "readyok\n");
  /* WeightsMaxMb: the built-in net inflates to ~2.4 MB. */
  CHECK(write_file(big, cf_default_net_data, cf_default_net_size));
  snprintf(cmd, sizeof cmd, "setoption name WeightsMaxMb value 1\nsetoption name WeightsFile value %s\nisready", big);
  o = run(u, &tr, cmd);
  CHECK_STR_CONTAINS(o, "default.pb.gz: decompressed size exceeds the limit of 1048576 bytes (as set)");
  CHECK_STR_CONTAINS(o, "raise the limit with WeightsMaxMb (--weights-max-mb) to load it");
  o = run(u, &tr, "setoption name WeightsMaxMb value 3\nisready");
  CHECK_STR_CONTAINS(o, "info string loaded network ");
  CHECK_STR_CONTAINS(o, "default.pb.gz (");
  o = run(u, &tr, "setoption name WeightsMaxMb value -1");
  CHECK_STR_CONTAINS(o, "option WeightsMaxMb: bad value '-1'");
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_WEIGHTS_MAX_MB), "3");
  alarm(0);
  cf_uci_free(u);
done:
  unlink(later);
  unlink(later2);
  unlink(fifo);
  unlink(big);
  rmdir(dir);
}

static void test_options_table(cf_test *t) {
  cf_uci_option_id id;
  CHECK(cf_uci_option_by_flag("weights", &id) && id == CF_OPT_WEIGHTS_FILE);
  CHECK(cf_uci_option_by_flag("w", &id) && id == CF_OPT_WEIGHTS_FILE);
  CHECK(cf_uci_option_by_flag("b", &id) && id == CF_OPT_BACKEND);
  CHECK(cf_uci_option_by_flag("backend-opts", &id) && id == CF_OPT_BACKEND_OPTIONS);
  CHECK(cf_uci_option_by_flag("o", &id) && id == CF_OPT_BACKEND_OPTIONS);
  CHECK(cf_uci_option_by_flag("t", &id) && id == CF_OPT_THREADS);
  CHECK(cf_uci_option_by_flag("show-wdl", &id) && id == CF_OPT_SHOW_WDL);
  CHECK(cf_uci_option_by_flag("x", &id) == NULL);
  CHECK(cf_uci_option_by_name("uci_showwdl", &id) && id == CF_OPT_SHOW_WDL);
  static cf_uci_value v;
  CHECK(cf_uci_option_check(cf_uci_option_at(CF_OPT_SHOW_WDL), "TRUE", &v, NULL) == CF_OK);
  CHECK_STR_EQ(v.text, "true");
  CHECK(v.on && v.i == 1);
  char longv[CF_UCI_VALUE_MAX + 10];
  memset(longv, 'a', sizeof longv - 1);
  longv[sizeof longv - 1] = 0;
  CHECK(cf_uci_option_check(cf_uci_option_at(CF_OPT_WEIGHTS_FILE), longv, &v, NULL) == CF_ERR_ARG);
  CHECK_STR_EQ(v.text, "true"); /* a refused value leaves out as it was */
  /* Parsed once, when set: numbers and truth come with the text. */
  CHECK(cf_uci_option_check(cf_uci_option_at(CF_OPT_MULTIPV), "12", &v, NULL) == CF_OK);
  CHECK(v.i == 12 && v.f == 12.0 && !v.on);
  CHECK(cf_uci_option_check(cf_uci_option_at(CF_OPT_SEARCH(cpuct)), "2.50", &v, NULL) == CF_OK);
  CHECK_STR_EQ(v.text, "2.5");
  CHECK(v.f == 2.5);
  CHECK(cf_uci_option_check(cf_uci_option_at(CF_OPT_SEARCH(two_fold_draws)), "False", &v, NULL) == CF_OK);
  CHECK(!v.on && v.i == 0);
  CHECK(cf_uci_option_check(cf_uci_option_at(CF_OPT_SCORE_TYPE), "q", &v, NULL) == CF_OK);
  CHECK_STR_EQ(v.text, "Q");
}

static void test_score_and_time(cf_test *t) {
  CHECK_INT_EQ(cf_uci_q_to_cp(0), 0);
  CHECK_INT_EQ(cf_uci_q_to_cp(0.5f), 89); /* 90 tan(0.78188) = 89.4 */
  CHECK_INT_EQ(cf_uci_q_to_cp(-0.5f), -89);
  CHECK(cf_uci_q_to_cp(0.9f) > 500 && cf_uci_q_to_cp(1.0f) > 12000 && cf_uci_q_to_cp(1.0f) < 13000);
  int p[3];
  cf_uci_wdl_permille((float[3]){0.3334f, 0.3333f, 0.3333f}, p);
  CHECK_INT_EQ(p[0] + p[1] + p[2], 1000);
  cf_uci_wdl_permille((float[3]){0.9996f, 0.0f, 0.0008f}, p);
  CHECK(p[0] + p[1] + p[2] == 1000 && p[1] >= 0);
  cf_position pos;
  CHECK(cf_position_from_fen(&pos, CF_FEN_STARTPOS, NULL) == CF_OK);
  cf_uci_go go;
  char warn[256];
  cf_uci_go_parse("movetime 1000", &pos, &go, warn, sizeof warn);
  CHECK_INT_EQ(go.movetime, 1000);
  cf_uci_go_parse("wtime 30000 btime 60000 winc 1000 binc 0", &pos, &go, warn, sizeof warn);
  CHECK(go.wtime == 30000 && go.btime == 60000 && go.winc == 1000 && go.binc == 0);
  CHECK(go.movestogo == -1 && go.movetime == -1 && go.nodes == -1);
  /* A clock below zero is no time left: 0, move now. */
  cf_uci_go_parse("wtime -50 btime -1 movestogo 1", &pos, &go, warn, sizeof warn);
  CHECK(go.wtime == 0 && go.btime == 0 && go.movestogo == 1);
  CHECK_STR_EQ(warn, "");
  cf_uci_go_parse("infinite wtime 100", &pos, &go, warn, sizeof warn);
  CHECK(go.infinite && !go.ponder && go.wtime == 100);
  cf_uci_go_parse("", &pos, &go, warn, sizeof warn);
  CHECK(!go.infinite && go.wtime == -1 && go.movetime == -1);
  CHECK_STR_EQ(warn, "");
  cf_uci_go_parse("searchmoves e2e4 d2d4 depth 2 mate 3", &pos, &go, warn, sizeof warn);
  CHECK_INT_EQ(go.n_searchmoves, 2);
  CHECK_INT_EQ(go.depth, 2);
  CHECK_INT_EQ(go.mate, 3);
  CHECK_STR_EQ(warn, "");
}


/* Milliseconds between two monotonic times. */
static double ms_since(double t0) { return (cf_clock_now() - t0) * 1000.0; }

/* Latency bounds hold for a release build; sanitizers slow every network
 * call several times over, so their builds get that much slack. */
#define SLACK CF_TEST_SLACK

/* Waits up to ms for text to appear in the transcript after from. */
static bool wait_for(transcript *tr, size_t from, const char *text, long ms) {
  for (long waited = 0; waited <= ms; waited += 10) {
    pthread_mutex_lock(&tr->mu);
    bool seen = strstr(tr->text + from, text) != NULL;
    pthread_mutex_unlock(&tr->mu);
    if (seen) return true;
    sleep_ms(10);
  }
  return false;
}

/* The search agent through UCI: info lines, limits, reuse, options. */
static void test_search_go(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) return;
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_AGENT), "search");
  /* Without smart pruning a node limit is exact. */
  const char *o = run(u, &tr, "setoption name SmartPruningFactor value 0\n"
                              "position startpos moves e2e4 e7e5\ngo nodes 300");
  CHECK_STR_CONTAINS(o, "info depth ");
  CHECK_STR_CONTAINS(o, " seldepth ");
  CHECK_STR_CONTAINS(o, " nodes 300 score ");
  CHECK_STR_CONTAINS(o, " hashfull ");
  CHECK_STR_CONTAINS(o, " nps ");
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
  char mv[8], ponder[8];
  const char *bm = strstr(o, "bestmove ");
  CHECK(bm && sscanf(bm, "bestmove %7s ponder %7s", mv, ponder) == 2);
  /* The last info line's pv starts with bestmove and ponder. */
  char pv[32];
  snprintf(pv, sizeof pv, " pv %s %s", mv, ponder);
  CHECK_STR_CONTAINS(o, pv);
  /* Continuing the game keeps the subtree: the first info already counts
   * the reused visits, so a search of 50 more nodes reports more than 50. */
  char cmd[128];
  snprintf(cmd, sizeof cmd, "position startpos moves e2e4 e7e5 %s %s\ngo nodes 400", mv, ponder);
  o = run(u, &tr, cmd);
  const char *first = strstr(o, " nodes ");
  long n0 = first ? atol(first + 7) : 0;
  CHECK(n0 > 1);
  /* ucinewgame forgets the tree. */
  o = run(u, &tr, "ucinewgame\nposition startpos moves e2e4 e7e5\ngo nodes 20");
  first = strstr(o, " nodes ");
  CHECK(first && atol(first + 7) <= 2);
  /* MultiPV and VerboseMoveStats; WDL; ScoreType Q bounds the number. */
  o = run(u, &tr, "setoption name MultiPV value 3\nsetoption name VerboseMoveStats value true\n"
                  "setoption name UCI_ShowWDL value true\nsetoption name ScoreType value Q\n"
                  "position startpos\ngo nodes 200");
  CHECK_STR_CONTAINS(o, " multipv 1 score cp ");
  CHECK_STR_CONTAINS(o, " multipv 3 score cp ");
  CHECK(!strstr(o, " multipv 4 "));
  CHECK_INT_EQ(uci_count(o, "info string ") >= 20, 1); /* one per legal move */
  CHECK_STR_CONTAINS(o, "(P: ");
  CHECK_STR_CONTAINS(o, " wdl ");
  const char *sc = strstr(o, "score cp ");
  CHECK(sc && labs(atol(sc + 9)) <= 10000);
  /* Lc0's last stats line is the root itself: its 20 moves in the index
   * column, its visits, the policy of the moves it visited, its own W/D/L
   * and network value; no U or S. It comes after every move's line. */
  const char *node = strstr(o, "info string node  (  20) N: ");
  CHECK(node != NULL);
  if (node) {
    const char *eol = strchr(node, '\n');
    CHECK(eol && !strstr(eol, ") N: ") && strstr(eol, "bestmove "));
    CHECK(atol(node + strlen("info string node  (  20) N: ")) >= 200);
    const char *end = eol ? eol : node + strlen(node);
    const char *pp = strstr(node, "(P: ");
    CHECK(pp && pp < end && atof(pp + 4) > 0.0 && atof(pp + 4) <= 100.0);
    const char *vv = strstr(node, "(V: ");
    CHECK(vv && vv < end && strncmp(vv, "(V:  -.----)", 12) != 0); /* the root was evaluated */
    const char *uu = strstr(node, "(U: ");
    CHECK(!uu || uu > end);
  }
  run(u, &tr, "setoption name MultiPV value 1\nsetoption name VerboseMoveStats value false\n"
              "setoption name ScoreType value WDL_mu");
  /* A mate in one is seen, and ends the search at once. */
  o = run(u, &tr, "position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\ngo movetime 5000");
  CHECK_STR_CONTAINS(o, "score mate 1 ");
  CHECK_STR_CONTAINS(o, "bestmove a1a8");
  /* Mate in two: the defender's best is mated too. */
  o = run(u, &tr, "position fen 6k1/5ppp/8/8/8/8/1Q6/1R4K1 w - - 0 1\ngo nodes 3000");
  CHECK_STR_CONTAINS(o, "score mate ");
  /* go depth: the average depth reaches it. */
  o = run(u, &tr, "position startpos\ngo depth 3");
  CHECK_STR_CONTAINS(o, "info depth 3 ");
  cf_uci_free(u);
}

static void test_search_time_and_stop(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) return;
  run(u, &tr, "isready\nposition startpos\ngo nodes 1"); /* warm the backend */
  /* movetime less MoveOverheadMs: 400 - 200 leaves 200 ms. */
  double t0 = cf_clock_now();
  const char *o = run(u, &tr, "go movetime 400");
  double took = ms_since(t0);
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
  CHECK_LATENCY(took, 350 * SLACK, "go movetime 400 less MoveOverheadMs 200");
  /* A clock: Lc0's time manager stays well inside the time left. */
  t0 = cf_clock_now();
  o = run(u, &tr, "go wtime 3000 btime 3000 winc 0 binc 0");
  took = ms_since(t0);
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
  CHECK_LATENCY(took, 1500 * SLACK, "go wtime 3000 btime 3000");
  /* No time left, or less than the overhead: move at once. */
  t0 = cf_clock_now();
  o = run(u, &tr, "go wtime -50 btime -50");
  CHECK_LATENCY(ms_since(t0), 100 * SLACK, "go wtime -50 btime -50");
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
  CHECK_STR_CONTAINS(o, "info string time trouble: "); /* moved without searching */
  /* go infinite: bestmove only after stop, and within 100 ms of it. */
  size_t from = tr.at;
  cf_uci_feed(u, "go infinite");
  CHECK(wait_for(&tr, from, "info depth", 5000)); /* progress while it runs */
  sleep_ms(100);
  pthread_mutex_lock(&tr.mu);
  CHECK(!strstr(tr.text + from, "bestmove"));
  pthread_mutex_unlock(&tr.mu);
  t0 = cf_clock_now();
  cf_uci_feed(u, "stop");
  cf_uci_wait(u);
  CHECK_LATENCY(ms_since(t0), 100 * SLACK, "stop during go infinite");
  pthread_mutex_lock(&tr.mu);
  CHECK_INT_EQ(uci_count(tr.text + from, "bestmove "), 1);
  pthread_mutex_unlock(&tr.mu);
  /* Ponder, then ponderhit: a timed search from the clock of go ponder. */
  from = tr.at;
  cf_uci_feed(u, "go ponder wtime 2000 btime 2000");
  sleep_ms(100);
  pthread_mutex_lock(&tr.mu);
  CHECK(!strstr(tr.text + from, "bestmove"));
  pthread_mutex_unlock(&tr.mu);
  t0 = cf_clock_now();
  o = run(u, &tr, "ponderhit");
  CHECK_LATENCY(ms_since(t0), 1000 * SLACK, "ponderhit with wtime 2000");
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
  /* position and setoption during a search end it first (bestmove first). */
  cf_uci_feed(u, "go infinite");
  sleep_ms(50);
  o = run(u, &tr, "setoption name CPuct value 2.5\nposition startpos moves d2d4\ngo nodes 10");
  CHECK_INT_EQ(uci_count(o, "bestmove "), 2);
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_SEARCH(cpuct)), "2.5");
  /* quit during a long search: quick. */
  cf_uci_feed(u, "go infinite");
  sleep_ms(50);
  t0 = cf_clock_now();
  CHECK(!cf_uci_feed(u, "quit"));
  CHECK_LATENCY(ms_since(t0), 100 * SLACK, "quit during go infinite");
  cf_uci_free(u);
}

static void test_search_options(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) return;
  const char *bad[][2] = {
      {"NNCacheSize", "-1"},        {"MinibatchSize", "5000"}, {"CPuct", "abc"},
      {"PolicyTemperature", "0"},   {"FpuStrategy", "magic"},  {"SmartPruningFactor", "-1"},
      {"RamLimitMb", "-5"},         {"MoveOverheadMs", "-1"},  {"MultiPV", "0"},
      {"DrawScore", "2"},           {"ScoreType", "elo"},      {"TwoFoldDraws", "maybe"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cf_uci_option_id id;
    CHECK(cf_uci_option_by_name(bad[i][0], &id) != NULL);
    char before[CF_UCI_VALUE_MAX], cmd[256];
    snprintf(before, sizeof before, "%s", cf_uci_get_option(u, id));
    snprintf(cmd, sizeof cmd, "setoption name %s value %s", bad[i][0], bad[i][1]);
    const char *o = run(u, &tr, cmd);
    CHECK_STR_CONTAINS(o, "info string error: option ");
    CHECK_STR_EQ(cf_uci_get_option(u, id), before);
  }
  /* Extreme but valid: no cache, one-position batches, a huge batch, a tiny
   * memory cap (smaller than a batch: the search still moves). */
  const char *o = run(u, &tr, "setoption name NNCacheSize value 0\nsetoption name MinibatchSize value 1\n"
                              "position startpos\ngo nodes 30");
  CHECK_STR_CONTAINS(o, " nodes 30 ");
  CHECK_STR_CONTAINS(o, "hashfull 0 ");
  o = run(u, &tr, "setoption name MinibatchSize value 1024\nsetoption name RamLimitMb value 1\n"
                  "setoption name NNCacheSize value 1000\nposition startpos\ngo nodes 100000000");
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1); /* ended by the memory cap long before the nodes */
  /* The flags: Lc0's spelling, the old alias, and bare booleans. */
  cf_uci_option_id id;
  CHECK(cf_uci_option_by_flag("policy-softmax-temp", &id) && id == CF_OPT_SEARCH(policy_temperature));
  CHECK(cf_uci_option_by_flag("policy-temperature", &id) && id == CF_OPT_SEARCH(policy_temperature));
  CHECK(cf_uci_option_by_flag("nncache", &id) && id == CF_OPT_SEARCH(nn_cache_size));
  CHECK(cf_uci_option_by_flag("v", &id) && id == CF_OPT_VERBOSE_MOVE_STATS);
  cf_uci_free(u);
}

static void test_score_types(cf_test *t) {
  char s[64];
  cf_uci_score_text("centipawn", 0.5f, 0.3f, 0.5f, 0, s, sizeof s);
  CHECK_STR_EQ(s, "cp 89"); /* 90 tan(1.5637541897 * 0.5) = 89.37 */
  cf_uci_score_text("Q", 0.25f, 0.3f, 0.2f, 0, s, sizeof s);
  CHECK_STR_EQ(s, "cp 2000");
  cf_uci_score_text("W-L", 0.25f, 0.3f, 0.2f, 0, s, sizeof s);
  CHECK_STR_EQ(s, "cp 2500");
  cf_uci_score_text("win_percentage", 0.25f, 0.3f, 0.2f, 0, s, sizeof s);
  CHECK_STR_EQ(s, "cp 6250");
  cf_uci_score_text("WDL_mu", 0.25f, 0.3f, 0.25f, 0, s, sizeof s);
  /* W 0.475 D 0.3 L 0.225: mu = (a - b) / (a + b), a = ln(1/L - 1), b = ln(1/W - 1). */
  double a = log(1 / 0.225 - 1), b = log(1 / 0.475 - 1);
  char want[64];
  snprintf(want, sizeof want, "cp %ld", lround(100 * (a - b) / (a + b)));
  CHECK_STR_EQ(s, want);
  cf_uci_score_text("WDL_mu", 0.0f, 0.0f, 0.0f, 0, s, sizeof s); /* no draws: the fallback */
  CHECK_STR_EQ(s, "cp 0");
  cf_uci_score_text("WDL_mu", 0.9f, 0.1f, 0.9f, 3, s, sizeof s);
  CHECK_STR_EQ(s, "mate 3");
  int w[3];
  cf_uci_wdl_from_wl(0.25f, 0.3f, w);
  CHECK(w[0] == 475 && w[1] == 300 && w[2] == 225);
}

/* The n-th line of out that starts with prefix (0-based), or NULL. */
static const char *nth_line(const char *out, const char *prefix, int n) {
  size_t len = strlen(prefix);
  for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
    if (strncmp(l, prefix, len) == 0 && n-- == 0) return l;
  return NULL;
}

/* MultiPV and VerboseMoveStats for the one-ply agents: one info line per
 * MultiPV line in the agent's ranking (the first is the bestmove with its
 * ponder reply), one stats line per legal move, best last. */
static void test_one_ply_multipv_and_stats(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) return;
  const char *agents[] = {"value", "policy"};
  for (int a = 0; a < 2; a++) {
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "setoption name Agent value %s\nsetoption name MultiPV value 3\n"
             "setoption name VerboseMoveStats value true\nsetoption name ScoreType value centipawn\n"
             "position startpos moves e2e4\ngo nodes 100",
             agents[a]);
    const char *o = run(u, &tr, cmd);
    char best[8] = "";
    CHECK(bestmove_legal(o, CF_FEN_STARTPOS, "e2e4", best));
    CHECK_INT_EQ(uci_count(o, "info depth 1 "), 3);
    CHECK_INT_EQ(uci_count(o, ") N: "), 20);
    int last_cp = 100000;
    char seen[3][8] = {{0}};
    for (int k = 0; k < 3; k++) {
      const char *l = nth_line(o, "info depth 1 ", k);
      if (!CHECK(l != NULL)) break;
      char want[24];
      snprintf(want, sizeof want, " multipv %d ", k + 1);
      CHECK(strstr(l, want) != NULL && strstr(l, want) < strchr(l, '\n'));
      int cp = 0;
      const char *sc = strstr(l, " score cp ");
      if (CHECK(sc != NULL)) cp = atoi(sc + 10);
      const char *pv = strstr(l, " pv ");
      if (CHECK(pv != NULL)) sscanf(pv + 4, "%7s", seen[k]);
      for (int j = 0; j < k; j++) CHECK(strcmp(seen[j], seen[k]) != 0);
      if (a == 0) CHECK(cp <= last_cp); /* the value agent ranks by value */
      else CHECK(k == 0 || cp == last_cp); /* the policy agent: the root's value */
      last_cp = cp;
    }
    CHECK_STR_EQ(seen[0], best);
    /* the stats: the last line is the bestmove; N is 1 for moves the value
     * agent evaluated, 0 under the policy agent */
    const char *last = nth_line(o, "info string ", uci_count(o, "info string ") - 1);
    char stat_move[8] = "";
    if (CHECK(last != NULL)) sscanf(last + 12, "%7s", stat_move);
    CHECK_STR_EQ(stat_move, best);
    CHECK_INT_EQ(uci_count(o, "N:       1 "), a == 0 ? 20 : 0);
  }
  /* searchmoves narrows the lines; a mate in one is reported as a mate. */
  const char *o = run(u, &tr, "setoption name Agent value value\nposition startpos\n"
                              "go searchmoves a2a3 h2h3");
  CHECK_INT_EQ(uci_count(o, "info depth 1 "), 2);
  CHECK_INT_EQ(uci_count(o, ") N: "), 2);
  o = run(u, &tr, "position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\ngo");
  CHECK_STR_CONTAINS(o, "multipv 1 score mate 1 ");
  CHECK_STR_CONTAINS(o, "bestmove a1a8");
  CHECK_STR_CONTAINS(o, "(V:  -.----) (W)\nbestmove a1a8");
  /* MultiPV 1 (the default) prints no multipv field */
  o = run(u, &tr, "setoption name MultiPV value 1\nposition startpos\ngo");
  CHECK_INT_EQ(uci_count(o, "multipv"), 0);
  CHECK_INT_EQ(uci_count(o, "info depth 1 "), 1);
  cf_uci_free(u);
}

/* A network that fails part way (the reference backend's fail_after
 * option): an error line, then the best move so far for every agent that
 * got past the root's evaluation; the engine stays up, and a working
 * network plays again. */
static void test_net_failure_mid_search(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) return;
  char mv[8];
  const char *o = run(u, &tr, "setoption name Backend value ref\n"
                              "setoption name BackendOptions value fail_after=3\n"
                              "setoption name MinibatchSize value 8\n"
                              "setoption name SmartPruningFactor value 0\n"
                              "position startpos moves e2e4\ngo nodes 300");
  CHECK_INT_EQ(uci_count(o, "info string error: "), 1);
  CHECK_STR_CONTAINS(o, "injected failure after 3");
  CHECK(bestmove_legal(o, CF_FEN_STARTPOS, "e2e4", mv));
  CHECK_STR_CONTAINS(run(u, &tr, "isready"), "readyok");
  /* the value agent: the root's policy move (its children's batch failed) */
  o = run(u, &tr, "setoption name BackendOptions value fail_after=1\n"
                  "setoption name Agent value value\ngo");
  CHECK_INT_EQ(uci_count(o, "info string error: "), 1);
  CHECK(bestmove_legal(o, CF_FEN_STARTPOS, "e2e4", mv));
  /* failing at the root: no move to play */
  o = run(u, &tr, "setoption name BackendOptions value fail_after=0\n"
                  "setoption name Agent value search\ngo nodes 10");
  CHECK_INT_EQ(uci_count(o, "info string error: "), 1);
  CHECK_STR_CONTAINS(o, "bestmove 0000");
  o = run(u, &tr, "setoption name BackendOptions value\ngo nodes 50");
  CHECK_INT_EQ(uci_count(o, "info string error"), 0);
  CHECK_STR_CONTAINS(o, " nodes 50 ");
  CHECK(bestmove_legal(o, CF_FEN_STARTPOS, "e2e4", mv));
  cf_uci_free(u);
}



/* ---- clean output, NUL, held info, isready, clocks, Threads ------------ */

/* Whether every line of out is clean protocol text, checked independently
 * of cf_uci_text: no byte below 0x20 but the newline ending each line, no
 * DEL, and valid UTF-8 (shortest forms, no surrogates, at most U+10FFFF)
 * with no C1 control. */
static bool lines_clean(const char *out) {
  const unsigned char *p = (const unsigned char *)out;
  while (*p) {
    if (*p == '\n') {
      p++;
      continue;
    }
    if (*p < 0x20 || *p == 0x7f) return false;
    if (*p < 0x80) {
      p++;
      continue;
    }
    int n = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc0 ? 2 : 0;
    if (n == 0 || *p > 0xf4) return false;
    unsigned long cp = *p & (0x7f >> n);
    for (int i = 1; i < n; i++) {
      if ((p[i] & 0xc0) != 0x80) return false;
      cp = cp << 6 | (p[i] & 0x3f);
    }
    const unsigned long least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    if (cp >= 0x80 && cp <= 0x9f) return false;
    p += n;
  }
  return true;
}

static void test_text_clean(cf_test *t) {
  char out[256];
  struct {
    const char *in, *want;
  } cases[] = {
      {"plain text, é and 日本 and \xf0\x9f\x98\x80", "plain text, é and 日本 and \xf0\x9f\x98\x80"},
      {"bell\a tab\t nl\n cr\r esc\x1b[31m del\x7f", "bell\\x07 tab\\x09 nl\\x0a cr\\x0d esc\\x1b[31m del\\x7f"},
      {"c1 \xc2\x9b \xc2\x80 nbsp \xc2\xa0", "c1 \\xc2\\x9b \\xc2\\x80 nbsp \xc2\xa0"},
      {"stray \x80\xbf lead \xc3( \xff\xfe", "stray \\x80\\xbf lead \\xc3( \\xff\\xfe"},
      {"overlong \xc0\xaf \xe0\x80\xaf \xf0\x80\x80\xaf", "overlong \\xc0\\xaf \\xe0\\x80\\xaf \\xf0\\x80\\x80\\xaf"},
      {"surrogate \xed\xa0\x80 big \xf4\x90\x80\x80", "surrogate \\xed\\xa0\\x80 big \\xf4\\x90\\x80\\x80"},
      {"cut \xe2\x82", "cut \\xe2\\x82"},
      {"back\\slash", "back\\slash"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t n = cf_uci_text_clean(cases[i].in, out, sizeof out);
    CHECK_STR_EQ(out, cases[i].want);
    CHECK_INT_EQ(n, strlen(cases[i].want));
    CHECK(cf_uci_text_is_clean(out) && lines_clean(out));
    CHECK(cf_uci_text_is_clean(cases[i].in) == (strcmp(cases[i].in, cases[i].want) == 0));
  }
  /* What does not fit is left out whole. */
  cf_uci_text_clean("ab\x01", out, 6);
  CHECK_STR_EQ(out, "ab");
  cf_uci_text_clean("a\xc3\xa9", out, 3);
  CHECK_STR_EQ(out, "a");
  cf_uci_text_clean("\x01", out, 1);
  CHECK_STR_EQ(out, "");
  CHECK(cf_uci_text_is_clean("") && cf_uci_text_is_clean(NULL));
}

/* Control characters and invalid UTF-8 in the input come out escaped, in
 * every message that quotes input, and in text read from a network file. */
static void test_clean_output(cf_test *t) {
  char dir[] = "/tmp/cf_test_uci_clean_XXXXXX";
  if (!CHECK(mkdtemp(dir))) return;
  char net[1100];
  snprintf(net, sizeof net, "%s/n.pb.gz", dir);
  CHECK(save_net_with_license(net, "untrained \x1b[2J\x07 \xff license"));
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) goto done;
  const char *o = run(u, &tr, "xy\x07z\x1b[31m\xff\xfe\xc3(\xc2\x9b 1 2");
  CHECK_STR_EQ(o, "info string error: unknown command 'xy\\x07z\\x1b[31m\\xff\\xfe\\xc3(\\xc2\\x9b'\n");
  o = run(u, &tr, "\xc3\xa9" "chec");
  CHECK_STR_EQ(o, "info string error: unknown command '\xc3\xa9" "chec'\n"); /* valid UTF-8 stays */
  o = run(u, &tr, "setoption name Agent value po\tli\x7f" "cy\xed\xa0\x80");
  CHECK_STR_CONTAINS(o, "option Agent: bad value 'po\\x09li\\x7f" "cy\\xed\\xa0\\x80'");
  o = run(u, &tr, "setoption name Thr\x01" "eads value 2");
  CHECK_STR_EQ(o, "info string error: unknown option 'Thr\\x01" "eads'\n");
  o = run(u, &tr, "setoption name Threads value 2\x1b");
  CHECK_STR_CONTAINS(o, "bad value '2\\x1b'");
  o = run(u, &tr, "position fen 8/8/8/8/8/8/8/8\x08 w - - 0 1");
  CHECK_STR_CONTAINS(o, "invalid FEN '8/8/8/8/8/8/8/8\\x08 w - - 0 1'");
  o = run(u, &tr, "position startpos moves e2e4 e7\x9b" "e5");
  CHECK_STR_CONTAINS(o, "'e7\\x9b" "e5' rejected");
  o = run(u, &tr, "setoption name Agent value policy\ngo nodes 1 \x02\xfe");
  CHECK_STR_CONTAINS(o, "unknown word '\\x02\\xfe' ignored");
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
  o = run(u, &tr, "setoption name WeightsFile value /nonexistent/\x1b" "net\xff.pb.gz\nisready");
  CHECK_STR_CONTAINS(o, "/nonexistent/\\x1b" "net\\xff.pb.gz");
  /* A network file's license field. */
  char cmd[1300];
  snprintf(cmd, sizeof cmd, "setoption name WeightsFile value %s\nisready", net);
  o = run(u, &tr, cmd);
  CHECK_STR_CONTAINS(o, "untrained \\x1b[2J\\x07 \\xff license");
  /* Long runs of bad bytes: cut, but clean. */
  char big[4000] = "setoption name WeightsFile value ";
  size_t at = strlen(big);
  memset(big + at, '\x01', 900);
  big[at + 900] = 0;
  run(u, &tr, big);
  memset(big, '\xff', 3000);
  big[3000] = 0;
  o = run(u, &tr, big);
  CHECK_STR_CONTAINS(o, "unknown command '\\xff\\xff");
  snprintf(big, sizeof big, "position fen ");
  at = strlen(big);
  memset(big + at, '\x05', 1000);
  big[at + 1000] = 0;
  run(u, &tr, big);
  /* Everything said in this session. */
  pthread_mutex_lock(&tr.mu);
  CHECK(lines_clean(tr.text));
  pthread_mutex_unlock(&tr.mu);
  cf_uci_free(u);
done:
  unlink(net);
  rmdir(dir);
}

/* A NUL byte inside a line makes that line an error; the rest of the line
 * is not silently dropped (nor run). */
static void test_nul_line(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) return;
  run(u, &tr, "setoption name Agent value policy\nposition startpos moves e2e4");
  size_t from = tr.at;
  static const char line[] = "position startpos\0 moves d2d4\n";
  CHECK(cf_uci_feed_n(u, line, sizeof line - 1));
  pthread_mutex_lock(&tr.mu);
  CHECK_STR_EQ(tr.text + from,
               "info string error: input line has a NUL byte (byte 18 of 30); line ignored\n");
  pthread_mutex_unlock(&tr.mu);
  /* The position is still the one after 1. e4: black's e7e5 is legal. */
  const char *o = run(u, &tr, "go searchmoves e7e5");
  CHECK_STR_CONTAINS(o, "bestmove e7e5");
  /* quit with a NUL is not quit; a NUL first or last is the same error. */
  from = tr.at;
  CHECK(cf_uci_feed_n(u, "quit\0", 5));
  CHECK(cf_uci_feed_n(u, "\0isready\n", 9));
  CHECK(cf_uci_feed_n(u, "isready\n\0", 9));
  pthread_mutex_lock(&tr.mu);
  o = tr.text + from;
  pthread_mutex_unlock(&tr.mu);
  CHECK_INT_EQ(uci_count(o, "info string error: input line has a NUL byte"), 3);
  CHECK(!strstr(o, "readyok"));
  /* Without a NUL, a line with its length is a line. */
  from = tr.at;
  CHECK(cf_uci_feed_n(u, "isready\r\n", 9));
  CHECK(cf_uci_feed_n(u, "", 0));
  CHECK(cf_uci_feed_n(u, NULL, 0));
  pthread_mutex_lock(&tr.mu);
  CHECK_STR_CONTAINS(tr.text + from, "readyok\n");
  CHECK(!strstr(tr.text + from, "error"));
  pthread_mutex_unlock(&tr.mu);
  CHECK(!cf_uci_feed_n(u, "quit\n", 5));
  cf_uci_free(u);
}

/* go infinite and go ponder: a one-ply agent's info line comes as soon as
 * it is done; bestmove only on stop / ponderhit. */
static void test_held_info_early(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) return;
  const char *agents[] = {"value", "policy"};
  for (size_t a = 0; a < 2; a++) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "setoption name Agent value %s\nposition startpos\nisready", agents[a]);
    run(u, &tr, cmd);
    const char *held[][2] = {{"go infinite", "stop"}, {"go ponder wtime 60000 btime 60000", "ponderhit"}};
    for (size_t h = 0; h < 2; h++) {
      size_t from = tr.at;
      cf_uci_feed(u, held[h][0]);
      CHECK(wait_for(&tr, from, "info depth 1 seldepth 1 ", (long)(5000 * SLACK)));
      sleep_ms(50);
      pthread_mutex_lock(&tr.mu);
      CHECK(!strstr(tr.text + from, "bestmove"));
      pthread_mutex_unlock(&tr.mu);
      const char *o = run(u, &tr, held[h][1]);
      CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
      CHECK(!strstr(o, "info depth")); /* the info line came before */
    }
  }
  cf_uci_free(u);
}

/* The reply to isready is readyok, with only info lines before it. */
static bool only_info_then(const char *out, const char *last) {
  const size_t n = strlen(out), m = strlen(last);
  if (n < m || strcmp(out + n - m, last) != 0) return false;
  if (n > m && out[n - m - 1] != '\n') return false;
  for (const char *l = out; l < out + n - m; l = strchr(l, '\n') + 1)
    if (strncmp(l, "info string ", 12) != 0) return false;
  return true;
}

static void test_isready_replies(cf_test *t) {
  char dir[] = "/tmp/cf_test_uci_ready_XXXXXX";
  if (!CHECK(mkdtemp(dir))) return;
  char good[1100], untrained[1100], bad[1100];
  snprintf(good, sizeof good, "%s/good.pb.gz", dir);
  snprintf(untrained, sizeof untrained, "%s/untrained.pb.gz", dir);
  snprintf(bad, sizeof bad, "%s/bad.pb.gz", dir);
  CHECK(save_net_with_license(good, "GPL-3.0-or-later"));
  CHECK(save_net_with_license(untrained, "untrained"));
  CHECK(write_file(bad, "\x1f\x8b garbage", 10));
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) goto done;
  /* The first isready loads the default net. */
  const char *o = run(u, &tr, "isready");
  CHECK(only_info_then(o, "readyok\n"));
  CHECK_STR_CONTAINS(o, "info string loaded network");
  CHECK_STR_EQ(run(u, &tr, "isready"), "readyok\n");
  /* Right after each WeightsFile (or Backend) change: loaded, warned,
   * failed: all of it before readyok. */
  const char *files[] = {good, untrained, bad, "/nonexistent/x.pb.gz", CF_WEIGHTS_BUILT_IN, good};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "setoption name WeightsFile value %s\nisready", files[i]);
    o = run(u, &tr, cmd);
    CHECK(only_info_then(o, "readyok\n"));
    CHECK(strstr(o, "info string ") != NULL);
  }
  o = run(u, &tr, "setoption name Backend value ref\nisready\nisready");
  CHECK(only_info_then(o, "readyok\nreadyok\n"));
  o = run(u, &tr, "setoption name HistoryFill value always\nisready");
  CHECK(only_info_then(o, "readyok\n"));
  CHECK_STR_CONTAINS(o, "loaded network");
  /* isready during a held search: readyok, nothing else for it. */
  run(u, &tr, "setoption name Agent value policy");
  size_t from = tr.at;
  cf_uci_feed(u, "go infinite");
  CHECK(wait_for(&tr, from, "info depth", (long)(5000 * SLACK)));
  from = tr.at;
  cf_uci_feed(u, "isready");
  pthread_mutex_lock(&tr.mu);
  CHECK_STR_EQ(tr.text + from, "readyok\n");
  pthread_mutex_unlock(&tr.mu);
  run(u, &tr, "stop");
  cf_uci_free(u);
done:
  unlink(good);
  unlink(untrained);
  unlink(bad);
  rmdir(dir);
}

/* A bigger random net than the built-in one, so that a value agent's full
 * one-ply search takes long enough to be cut by a deadline. */
static bool save_slow_net(const char *path) {
  cf_test_shape s = {.layers = 6, .d = 256, .heads = 8, .dff = 512, .rpe = true, .rms = true,
                     .input_format = 4, .cv = 8, .cm = 2, .seed = 91};
  cf_error err;
  cf_weights *w = cf_test_random_net(&s, &err);
  if (!w) return false;
  w->license = strdup("GPL-3.0-or-later");
  bool ok = cf_weights_save_file(w, path, CF_ENC_FLOAT16, true, &err) == CF_OK;
  cf_weights_free(w);
  return ok;
}

/* Every agent: a clock at 0 or below means move now (without the network:
 * time trouble); MoveOverheadMs is kept back from every budget; the time a
 * network load takes counts against the move. */
static void test_clocks_every_agent(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) return;
  const char *agents[] = {"policy", "value", "search"};
  const char *gos[] = {
      "position startpos\ngo wtime -50 btime -50",
      "position startpos\ngo wtime 0 btime 0",
      "position startpos\ngo wtime 0",
      "position startpos\ngo wtime 0 winc 2000 btime 60000 binc 2000",
      "position startpos\ngo wtime -1 btime 60000 movestogo 10",
      "position startpos moves e2e4\ngo btime 0 wtime 60000",
      "position startpos\ngo movetime 150", /* less than MoveOverheadMs 200 */
      "position startpos\ngo wtime 150 btime 150",
  };
  for (size_t a = 0; a < 3; a++) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "setoption name Agent value %s\nucinewgame\nisready\ngo nodes 1",
             agents[a]);
    run(u, &tr, cmd); /* loaded and warm */
    for (size_t g = 0; g < sizeof gos / sizeof gos[0]; g++) {
      double t0 = cf_clock_now();
      const char *o = run(u, &tr, gos[g]);
      double took = ms_since(t0);
      char what[160];
      snprintf(what, sizeof what, "%s agent, '%s'", agents[a], strchr(gos[g], '\n') + 1);
      CHECK_LATENCY(took, 250 * SLACK, what);
      CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
      CHECK(!strstr(o, "bestmove 0000"));
      /* A clock at or below MoveOverheadMs cannot pay for a network
       * answer: the move is made without the network (time trouble). A
       * movetime has no clock to lose on and loses only half of itself to
       * MoveOverheadMs, so the agents think: the policy agent's one
       * evaluation, the search's root and one minibatch at least. */
      const bool instant = !strstr(gos[g], "movetime");
      const long nodes = uci_last_nodes(o);
      if (!CHECK(instant ? nodes == 0 : a == 2 ? nodes > 1 : a == 0 ? nodes == 1 : nodes >= 1))
        fprintf(stderr, "  %s: '%s'\n%s", agents[a], gos[g], o);
      CHECK(instant == (strstr(o, "info string time trouble: ") != NULL));
    }
  }
  cf_uci_free(u);

  /* MoveOverheadMs and the value agent, on a net slow enough that its
   * full one-ply search (1 + 41 evaluations here: 42 legal moves, one of
   * them mate) takes far longer than the 20 ms that movetime 40 less 20
   * leaves: on a CPU backend (a GPU runs it in a few ms), the default one
   * unless that is cuda. */
  char dir[] = "/tmp/cf_test_uci_clock_XXXXXX";
  if (!CHECK(mkdtemp(dir))) return;
  char slow[1100];
  snprintf(slow, sizeof slow, "%s/slow.pb.gz", dir);
  if (!CHECK(save_slow_net(slow))) goto done;
  u = engine(t, &tr, NULL);
  if (!u) goto done;
  char cmd[1300];
  const cf_backend_desc *def = cf_backend_default();
  const bool gpu_default = def && strcmp(def->name, "cuda") == 0;
  snprintf(cmd, sizeof cmd, "setoption name Backend value %s\n"
                            "setoption name WeightsFile value %s\nsetoption name Agent value value\n"
                            "position fen r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3\n"
                            "isready\ngo nodes 2", gpu_default ? "ref" : "auto", slow);
  run(u, &tr, cmd);
  {
    const char *o = run(u, &tr, "setoption name MoveOverheadMs value 20");
    CHECK_STR_EQ(o, "");
    double t0 = cf_clock_now();
    o = run(u, &tr, "go movetime 40");
    double took = ms_since(t0);
    const long nodes = uci_last_nodes(o);
    fprintf(stderr, "  value agent, movetime 40 less 20: %.0f ms, %ld nodes\n", took, nodes);
    CHECK_LATENCY(took, 1000, "value agent, movetime 40 less MoveOverheadMs 20");
    CHECK(nodes >= 1 && nodes < 42);
    CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
    /* Time trouble follows the measured cost of an answer: with no
     * overhead, a clock of a quarter of what the full value search just
     * took is played without the network; a clock of ten times it is not. */
    run(u, &tr, "setoption name MoveOverheadMs value 0");
    t0 = cf_clock_now();
    o = run(u, &tr, "go wtime 600000 btime 600000");
    const double full = ms_since(t0);
    CHECK(strstr(o, "time trouble") == NULL);
    char clock[128];
    snprintf(clock, sizeof clock, "go wtime %.0f btime %.0f", full / 4, full / 4);
    o = run(u, &tr, clock);
    if (!CHECK(strstr(o, "info string time trouble: ") && uci_last_nodes(o) == 0))
      fprintf(stderr, "  after %.0f ms, '%s':\n%s", full, clock, o);
    snprintf(clock, sizeof clock, "go wtime %.0f btime %.0f movestogo 1", full * 10, full * 10);
    o = run(u, &tr, clock);
    CHECK(strstr(o, "time trouble") == NULL && uci_last_nodes(o) >= 1);
    run(u, &tr, "setoption name MoveOverheadMs value 2980");
    /* The full search, for scale: it must be cut above. */
    t0 = cf_clock_now();
    o = run(u, &tr, "go");
    fprintf(stderr, "  value agent, full: %.0f ms, %ld nodes\n", ms_since(t0), uci_last_nodes(o));
    CHECK_INT_EQ(uci_last_nodes(o), 42);
    /* ponderhit gives a pondering value agent the clock's deadline (a few
     * ms of 250 less the 200 overhead), or stops it when go ponder had no
     * clock. */
    run(u, &tr, "setoption name MoveOverheadMs value 200");
    const char *ponders[] = {"go ponder wtime 250 btime 250\nponderhit", "go ponder\nponderhit"};
    for (int i = 0; i < 2; i++) {
      t0 = cf_clock_now();
      o = run(u, &tr, ponders[i]);
      fprintf(stderr, "  value agent, '%s': %.0f ms, %ld nodes\n", ponders[i], ms_since(t0),
              uci_last_nodes(o));
      CHECK(uci_last_nodes(o) >= 1 && uci_last_nodes(o) < 42);
      CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
    }
  }
  /* The first go after a load: the clock started when go was read. When
   * loading took longer than the budget (115 ms: MoveOverheadMs 200 takes
   * at most half of movetime 230), the deadline has passed once the net is
   * there: the root's evaluation only. */
  {
    run(u, &tr, "setoption name WeightsFile value <built in>\nisready\n"
                "setoption name MoveOverheadMs value 200");
    snprintf(cmd, sizeof cmd, "setoption name WeightsFile value %s", slow);
    run(u, &tr, cmd);
    pthread_mutex_lock(&tr.mu);
    tr.watch = "info string loaded network";
    tr.watch_at = 0;
    pthread_mutex_unlock(&tr.mu);
    double t0 = cf_clock_now();
    const char *o = run(u, &tr, "go movetime 230");
    const double took = ms_since(t0), load = (tr.watch_at - t0) * 1000.0;
    fprintf(stderr, "  value agent, load + movetime 230: load %.0f ms, %.0f ms in all, %ld nodes\n",
            load, took, uci_last_nodes(o));
    CHECK_STR_CONTAINS(o, "info string loaded network");
    if (load > 115 + 10) CHECK_INT_EQ(uci_last_nodes(o), 1);
    tr.watch = NULL;
  }
  cf_uci_free(u);
done:
  unlink(slow);
  rmdir(dir);
}

/* More threads than cores: accepted, with a warning naming the count. */
static void test_threads_warning(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr, NULL);
  if (!u) return;
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  CHECK(cores > 0);
  char cmd[128], want[160];
  if (cores < 128) {
    snprintf(cmd, sizeof cmd, "setoption name Threads value %ld", cores + 1);
    snprintf(want, sizeof want, "info string warning: Threads %ld is more than the %ld CPU cores online",
             cores + 1, cores);
    const char *o = run(u, &tr, cmd);
    CHECK_STR_CONTAINS(o, want);
    CHECK_INT_EQ(uci_count(o, "\n"), 1);
    CHECK_INT_EQ(atol(cf_uci_get_option(u, CF_OPT_THREADS)), cores + 1);
    /* The command-line flags go through the same call. */
    size_t from = tr.at;
    cf_error err = {0};
    CHECK(cf_uci_set_option(u, CF_OPT_THREADS, "128", &err) == CF_OK);
    pthread_mutex_lock(&tr.mu);
    CHECK_STR_CONTAINS(tr.text + from, "info string warning: Threads 128 is more than the ");
    pthread_mutex_unlock(&tr.mu);
  }
  snprintf(cmd, sizeof cmd, "setoption name Threads value %ld", cores < 128 ? cores : 128);
  CHECK_STR_EQ(run(u, &tr, cmd), "");
  CHECK_STR_EQ(run(u, &tr, "setoption name Threads value 1"), "");
  cf_uci_free(u);
}

CF_TEST_MAIN(test_handshake, test_default_precision, test_go_and_position, test_infinite_ponder_stop_quit, test_bad_input,
             test_weights, test_weights_notes_warned, test_weights_retry_and_hostile_files,
             test_options_table,
             test_score_and_time, test_search_go, test_search_time_and_stop, test_search_options,
             test_score_types, test_one_ply_multipv_and_stats, test_net_failure_mid_search,
             test_text_clean, test_clean_output, test_nul_line, test_held_info_early,
             test_isready_replies, test_clocks_every_agent, test_threads_warning)
