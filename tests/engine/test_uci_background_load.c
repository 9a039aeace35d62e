/* test_uci_background_load.c: the responder with background_load (as the
 * binary runs it) while a network loads slowly: the ref backend's
 * create_delay_ms testing option makes every load take that much longer.
 * Checks that feeding returns at once, isready's readyok comes after the
 * load's lines, commands keep their order, stop answers a waiting go at
 * once, ponderhit turns a waiting go ponder into a timed one, the wait
 * counts against go's clock, quit answers every isready read before it
 * (it waits for the load under way) but lets a hung load go after
 * quit_wait_ms, and cf_uci_free does not wait for a load. Every wait has a
 * deadline, so a hang fails the test. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chess/cf_game.h"
#include "chess/cf_move_uci.h"
#include "common/cf_clock.h"
#include "engine/cf_agent.h"
#include "engine/uci/cf_uci.h"
#include "tests/cf_test.h"
#include "tests/engine/uci_transcript.h"

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static double ms_since(double t0) { return (cf_clock_now() - t0) * 1000.0; }

/* An engine whose loads take delay_ms more (the built-in net on ref);
 * quit waits quit_wait_ms for a load (0: the default). */
static cf_uci *slow_engine_quit_wait(cf_test *t, transcript *tr, int delay_ms, long quit_wait_ms) {
  uci_transcript_init(tr);
  cf_uci_config cfg = {.max_batch = 8, .background_load = true, .quit_wait_ms = quit_wait_ms};
  cf_uci *u = NULL;
  cf_error err = {0};
  CHECK(cf_uci_create(&cfg, uci_transcript_collect, tr, &u, &err) == CF_OK);
  if (!u) return NULL;
  char opts[64];
  snprintf(opts, sizeof opts, "create_delay_ms=%d", delay_ms);
  CHECK(cf_uci_set_option(u, CF_OPT_WEIGHTS_FILE, "<built in>", &err) == CF_OK);
  CHECK(cf_uci_set_option(u, CF_OPT_BACKEND, "ref", &err) == CF_OK);
  CHECK(cf_uci_set_option(u, CF_OPT_BACKEND_OPTIONS, opts, &err) == CF_OK);
  return u;
}

static cf_uci *slow_engine(cf_test *t, transcript *tr, int delay_ms) {
  return slow_engine_quit_wait(t, tr, delay_ms, 0);
}

/* Feeds one line; it must return at once (well before any load ends). */
static bool feed(cf_test *t, cf_uci *u, const char *line) {
  double t0 = cf_clock_now();
  bool go_on = cf_uci_feed(u, line);
  char what[160];
  snprintf(what, sizeof what, "feeding '%s' during a load", line);
  CHECK_LATENCY(ms_since(t0), 150 * CF_TEST_SLACK, what);
  return go_on;
}

/* Waits until the output holds needle (at or after from); returns the
 * offset of it, or -1 after timeout_ms (the test fails). */
static long wait_for(cf_test *t, transcript *tr, size_t from, const char *needle, double timeout_ms) {
  double t0 = cf_clock_now();
  for (;;) {
    pthread_mutex_lock(&tr->mu);
    const char *p = strstr(tr->text + from, needle);
    long at = p ? (long)(p - tr->text) : -1;
    pthread_mutex_unlock(&tr->mu);
    if (at >= 0) return at;
    if (ms_since(t0) > timeout_ms) {
      fprintf(stderr, "  no '%s' within %.0f ms; output:\n%s\n", needle, timeout_ms, tr->text + from);
      CHECK(at >= 0);
      return -1;
    }
    sleep_ms(2);
  }
}

static bool has(transcript *tr, size_t from, const char *needle) {
  pthread_mutex_lock(&tr->mu);
  bool found = strstr(tr->text + from, needle) != NULL;
  pthread_mutex_unlock(&tr->mu);
  return found;
}

/* The move after "bestmove " at offset at is legal in the position. */
static bool legal_bestmove(transcript *tr, long at, const char *moves) {
  char line[64] = "", move[8];
  pthread_mutex_lock(&tr->mu);
  snprintf(line, sizeof line, "%s", tr->text + at);
  pthread_mutex_unlock(&tr->mu);
  return uci_bestmove_legal(line, NULL, moves, move);
}

/* Bound on a load of the built-in net on ref beyond its delay. */
static double load_margin_ms(void) { return 5000.0 * CF_TEST_SLACK; }

/* isready returns at once; other commands are read meanwhile (uci answers
 * during the load); readyok comes after the load's lines and not before
 * the delay; commands read behind the waiting isready keep their order. */
static void test_isready_waits(cf_test *t) {
  transcript tr;
  const int delay = 800;
  cf_uci *u = slow_engine(t, &tr, delay);
  if (!u) return;
  double t0 = cf_clock_now();
  feed(t, u, "isready");
  feed(t, u, "uci");
  CHECK(has(&tr, 0, "uciok"));
  CHECK(!has(&tr, 0, "readyok"));
  CHECK(cf_uci_loading(u));
  /* Queued behind isready, applied in order after the load. */
  feed(t, u, "setoption name UCI_ShowWDL value true");
  feed(t, u, "position startpos moves e2e4");
  feed(t, u, "go nodes 1");
  long ready = wait_for(t, &tr, 0, "readyok", delay + load_margin_ms());
  double took = ms_since(t0);
  long loaded = wait_for(t, &tr, 0, "info string loaded network <built in>", 1);
  CHECK(loaded >= 0 && loaded < ready);
  CHECK(took >= delay - 5);
  long best = wait_for(t, &tr, 0, "bestmove ", load_margin_ms());
  CHECK(best > ready);
  if (best > 0) CHECK(legal_bestmove(&tr, best, "e2e4"));
  CHECK(has(&tr, (size_t)(ready > 0 ? ready : 0), " wdl "));
  cf_uci_wait(u);
  CHECK(!cf_uci_loading(u));
  /* Loaded now: isready answers at once. */
  size_t from = tr.at;
  feed(t, u, "isready");
  CHECK(has(&tr, from, "readyok"));
  cf_uci_free(u);
}

/* An option that changes the network, set while it loads (nothing waits
 * yet: it applies at once); the isready after it waits for the second
 * load, of the new setting. */
static void test_option_during_load(cf_test *t) {
  transcript tr;
  cf_uci *u = slow_engine(t, &tr, 600);
  if (!u) return;
  feed(t, u, "go nodes 1"); /* starts a load and waits for it */
  feed(t, u, "stop");       /* answers the go without the network */
  double t0 = cf_clock_now();
  long best = wait_for(t, &tr, 0, "bestmove ", load_margin_ms());
  CHECK_LATENCY(ms_since(t0), 1000 * CF_TEST_SLACK, "bestmove after stop during a load");
  CHECK(best >= 0);
  CHECK(has(&tr, 0, "info string stop came during the network load: "));
  CHECK(cf_uci_loading(u));
  feed(t, u, "setoption name BackendOptions value create_delay_ms=300");
  CHECK(!strcmp(cf_uci_get_option(u, CF_OPT_BACKEND_OPTIONS), "create_delay_ms=300"));
  feed(t, u, "isready");
  long ready = wait_for(t, &tr, 0, "readyok", 900 + 2 * load_margin_ms());
  /* Two loads: the first (600 ms) and the one for the new option. */
  pthread_mutex_lock(&tr.mu);
  int loads = 0;
  for (const char *p = tr.text; (p = strstr(p, "info string loaded network")) && p < tr.text + ready; p++)
    loads++;
  pthread_mutex_unlock(&tr.mu);
  CHECK_INT_EQ(loads, 2);
  cf_uci_free(u);
}

/* stop while a go waits for the load: a legal bestmove at once, without
 * the network, and the load goes on (isready waits for it). */
static void test_stop_during_load(cf_test *t) {
  transcript tr;
  const int delay = 3000;
  cf_uci *u = slow_engine(t, &tr, delay);
  if (!u) return;
  feed(t, u, "position startpos moves d2d4 g8f6");
  feed(t, u, "go infinite");
  sleep_ms(100);
  CHECK(!has(&tr, 0, "bestmove"));
  double t0 = cf_clock_now();
  feed(t, u, "stop");
  long best = wait_for(t, &tr, 0, "bestmove ", load_margin_ms());
  CHECK_LATENCY(ms_since(t0), 500 * CF_TEST_SLACK, "bestmove after stop during a 3 s load");
  CHECK(best >= 0);
  if (best >= 0) CHECK(legal_bestmove(&tr, best, "d2d4 g8f6"));
  CHECK(has(&tr, 0, "info string stop came during the network load: "));
  CHECK(!has(&tr, 0, "loaded network"));
  size_t from = tr.at;
  feed(t, u, "isready");
  long ready = wait_for(t, &tr, from, "readyok", delay + load_margin_ms());
  long loaded = wait_for(t, &tr, from, "info string loaded network", 1);
  CHECK(loaded >= 0 && loaded < ready);
  cf_uci_free(u);
}

/* A stop queued behind a go that waits behind an isready (the load under
 * way): once the load ends the go runs with the network, so it searches the
 * root before the stop ends it, and says nothing about a load. */
static void test_stop_queued_behind_isready(cf_test *t) {
  transcript tr;
  cf_uci *u = slow_engine(t, &tr, 300);
  if (!u) return;
  feed(t, u, "isready");
  feed(t, u, "position startpos");
  feed(t, u, "go infinite");
  feed(t, u, "stop");
  long best = wait_for(t, &tr, 0, "bestmove ", 300 + load_margin_ms());
  CHECK(best >= 0);
  if (best >= 0) CHECK(legal_bestmove(&tr, best, ""));
  long ready = wait_for(t, &tr, 0, "readyok", 1);
  CHECK(ready >= 0 && ready < best);
  CHECK(!has(&tr, 0, "stop came during the network load"));
  /* the root was evaluated: an info line with nodes before bestmove */
  long nodes = wait_for(t, &tr, (size_t)(ready > 0 ? ready : 0), " nodes ", 1);
  CHECK(nodes >= 0 && nodes < best);
  cf_uci_free(u);
}

/* The wait for a load counts against go's clock: a movetime longer than
 * the load ends the move at go + movetime, not at load + movetime; a
 * clock the load used up is time trouble (a move without the network). */
static void test_go_clock_counts_wait(cf_test *t) {
  transcript tr;
  const int delay = 2000, movetime = 3000;
  cf_uci *u = slow_engine(t, &tr, delay);
  if (!u) return;
  CHECK(cf_uci_set_option(u, CF_OPT_MOVE_OVERHEAD, "0", NULL) == CF_OK);
  /* The whole movetime, not a search cut short by smart pruning. */
  CHECK(cf_uci_set_option(u, CF_OPT_SEARCH(smart_pruning_factor), "0", NULL) == CF_OK);
  char go[64];
  snprintf(go, sizeof go, "go movetime %d", movetime);
  double t0 = cf_clock_now();
  feed(t, u, go);
  long best = wait_for(t, &tr, 0, "bestmove ", movetime + delay + load_margin_ms());
  double took = ms_since(t0);
  fprintf(stderr, "  go movetime %d during a %d ms load: bestmove after %.0f ms\n", movetime,
          delay, took);
  CHECK(best >= 0);
  CHECK(took >= movetime - 50);
  /* Not counted, it would be delay + movetime = 5000 ms. */
  CHECK_LATENCY(took, movetime + 900, "go movetime 3000 during a 2 s load");
  cf_uci_wait(u);

  /* A clock of 1 s against a 1.5 s load: no time to ask the network. */
  CHECK(cf_uci_set_option(u, CF_OPT_BACKEND_OPTIONS, "create_delay_ms=1500", NULL) == CF_OK);
  size_t from = tr.at;
  t0 = cf_clock_now();
  feed(t, u, "go wtime 1000 btime 1000");
  best = wait_for(t, &tr, from, "bestmove ", 1500 + load_margin_ms());
  long loaded = wait_for(t, &tr, from, "info string loaded network", 1);
  CHECK(loaded >= 0 && loaded < best);
  CHECK(has(&tr, from, "info string time trouble: "));
  fprintf(stderr, "  go wtime 1000 during a 1500 ms load: bestmove after %.0f ms\n", ms_since(t0));
  cf_uci_free(u);
}

/* ponderhit while a go ponder waits for the load: after the load it plays
 * as a timed go (no stop needed). */
static void test_ponderhit_during_load(cf_test *t) {
  transcript tr;
  cf_uci *u = slow_engine(t, &tr, 500);
  if (!u) return;
  feed(t, u, "position startpos moves e2e4 e7e5");
  feed(t, u, "go ponder wtime 2000 btime 2000");
  feed(t, u, "ponderhit");
  long best = wait_for(t, &tr, 0, "bestmove ", 500 + 2000 + load_margin_ms());
  if (best >= 0) CHECK(legal_bestmove(&tr, best, "e2e4 e7e5"));
  cf_uci_free(u);
}

/* Counts the lines of the transcript that are exactly line. */
static int count_lines(transcript *tr, const char *line) {
  pthread_mutex_lock(&tr->mu);
  int n = 0;
  size_t len = strlen(line);
  for (const char *p = tr->text; (p = strstr(p, line)) != NULL; p += len)
    if ((p == tr->text || p[-1] == '\n') && (p[len] == '\n' || p[len] == 0)) n++;
  pthread_mutex_unlock(&tr->mu);
  return n;
}

/* isready / setoption (a second net) / isready / go / quit while the first
 * load is under way: quit waits for both loads, so both isready get their
 * readyok, in order after each load's line, and the go its bestmove (quit
 * stops it); nothing is left loading. No clock is read: a busy machine
 * only makes it slower. */
static void test_quit_answers_isready(cf_test *t) {
  transcript tr;
  cf_uci *u = slow_engine(t, &tr, 600);
  if (!u) return;
  CHECK(cf_uci_feed(u, "isready"));
  CHECK(cf_uci_feed(u, "setoption name BackendOptions value create_delay_ms=300"));
  CHECK(cf_uci_feed(u, "isready"));
  CHECK(cf_uci_feed(u, "go wtime 100000 btime 100000"));
  CHECK(cf_uci_loading(u));
  CHECK(!cf_uci_feed(u, "quit"));
  CHECK(!cf_uci_loading(u));
  CHECK_INT_EQ(count_lines(&tr, "readyok"), 2);
  long first = wait_for(t, &tr, 0, "info string loaded network", 0);
  long ready1 = wait_for(t, &tr, 0, "readyok", 0);
  long second = first >= 0 ? wait_for(t, &tr, (size_t)first + 1, "info string loaded network", 0) : -1;
  long ready2 = ready1 >= 0 ? wait_for(t, &tr, (size_t)ready1 + 1, "readyok", 0) : -1;
  CHECK(first >= 0 && first < ready1 && ready1 < second && second < ready2);
  CHECK(has(&tr, 0, "bestmove "));
  cf_uci_free(u);
}

/* A load that outlasts quit_wait_ms (hung, as far as quit can tell) is let
 * go: quit returns with the load still under way and its isready
 * unanswered, and cf_uci_free leaves it to finish on its own. */
static void test_quit_lets_a_hung_load_go(cf_test *t) {
  transcript tr;
  cf_uci *u = slow_engine_quit_wait(t, &tr, 20000, 100);
  if (!u) return;
  CHECK(cf_uci_feed(u, "isready"));
  CHECK(!cf_uci_feed(u, "quit"));
  CHECK(cf_uci_loading(u));
  CHECK(!has(&tr, 0, "readyok"));
  cf_uci_free(u);
}

/* Without background_load (tests, transcripts), a line that starts a
 * load returns when it has ended, with the same output. */
static void test_foreground(cf_test *t) {
  transcript tr;
  uci_transcript_init(&tr);
  cf_uci_config cfg = {.max_batch = 8};
  cf_uci *u = NULL;
  CHECK(cf_uci_create(&cfg, uci_transcript_collect, &tr, &u, NULL) == CF_OK);
  if (!u) return;
  CHECK(cf_uci_set_option(u, CF_OPT_WEIGHTS_FILE, "<built in>", NULL) == CF_OK);
  CHECK(cf_uci_set_option(u, CF_OPT_BACKEND, "ref", NULL) == CF_OK);
  CHECK(cf_uci_set_option(u, CF_OPT_BACKEND_OPTIONS, "create_delay_ms=300", NULL) == CF_OK);
  double t0 = cf_clock_now();
  CHECK(cf_uci_feed(u, "isready"));
  CHECK(ms_since(t0) >= 295);
  CHECK(has(&tr, 0, "info string loaded network <built in>"));
  CHECK(has(&tr, 0, "readyok"));
  CHECK(!cf_uci_loading(u));
  cf_uci_free(u);
}

CF_TEST_MAIN(test_isready_waits, test_option_during_load, test_stop_during_load,
             test_stop_queued_behind_isready,
             test_go_clock_counts_wait, test_ponderhit_during_load, test_quit_answers_isready,
             test_quit_lets_a_hung_load_go,
             test_foreground)
