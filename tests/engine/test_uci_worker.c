/* test_uci_worker.c: a responder runs every search on one worker thread,
 * kept between searches: each bestmove of a run of go's (timed, held then
 * stopped, after cf_uci_reset) is written by the same thread, which is not
 * the feeding one, and cf_uci_free ends it. With inline_search every
 * search runs in the feeding call instead: its bestmove is out when go
 * returns, a held one's when stop, ponderhit, the next command or the
 * reset releases it, and the moves are those of the worker; with a poll
 * (the browser's single-threaded build) the poll's interrupt ends a go
 * infinite, solved or not. Threads are told apart by their
 * Linux thread id (a pthread_t may be reused once a thread is joined; a tid
 * is not reused so soon), so the test runs on Linux only. The network is
 * the fuzz target's tiny random net on the ref backend. */
#if defined(__linux__)
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* syscall */
#endif
#include <sys/syscall.h>
#include <unistd.h>
#endif
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "engine/uci/cf_uci.h"
#include "tests/cf_test.h"
#include "tests/engine/uci_transcript.h"

#ifndef CF_TEST_TINY_NET
#error "CF_TEST_TINY_NET: the path of tests/engine/fuzz/tiny.pb.gz (meson passes it)"
#endif

#define MAX_ANSWERS 16

static transcript tr;
static long answer_tid[MAX_ANSWERS]; /* the thread that wrote each bestmove */
static int n_answers;

static long this_tid(void) {
#if defined(__linux__)
  return (long)syscall(SYS_gettid);
#else
  return 0;
#endif
}

/* The transcript's collector, noting which thread wrote each bestmove. */
static void collect(void *user, const char *line) {
  if (strncmp(line, "bestmove ", 9) == 0) {
    pthread_mutex_lock(&tr.mu);
    if (n_answers < MAX_ANSWERS) answer_tid[n_answers++] = this_tid();
    pthread_mutex_unlock(&tr.mu);
  }
  uci_transcript_collect(user, line);
}

static const char *const net_setup = "setoption name WeightsFile value " CF_TEST_TINY_NET "\n"
                                     "setoption name Backend value ref\n"
                                     "isready\n";

static void test_one_worker(cf_test *t) {
#if !defined(__linux__)
  CF_SKIP("thread ids are read from Linux's gettid");
  return;
#endif
  uci_transcript_init(&tr);
  cf_uci_config cfg = {.search_dirs = NULL, .max_batch = 4};
  cf_uci *u = NULL;
  if (!CHECK(cf_uci_create(&cfg, collect, &tr, &u, NULL) == CF_OK)) return;
  const char *o = uci_transcript_run(u, &tr, net_setup);
  CHECK_STR_CONTAINS(o, "info string loaded network " CF_TEST_TINY_NET);
  for (int i = 0; i < 3; i++) uci_transcript_run(u, &tr, "go nodes 3");
  cf_uci_feed(u, "go infinite");
  o = uci_transcript_run(u, &tr, "stop");
  CHECK_STR_CONTAINS(o, "bestmove ");
  /* A held search that the reset stops; then the worker runs on. */
  cf_uci_feed(u, "go infinite");
  CHECK(cf_uci_reset(u, NULL) == CF_OK);
  uci_transcript_run(u, &tr, net_setup);
  o = uci_transcript_run(u, &tr, "go nodes 3");
  char move[8];
  CHECK(uci_bestmove_legal(o, NULL, "", move));
  CHECK_INT_EQ(n_answers, 6);
  const long feeder = this_tid();
  for (int i = 0; i < n_answers; i++) {
    if (answer_tid[i] != answer_tid[0])
      fprintf(stderr, "bestmove %d came from thread %ld, the first from %ld\n", i, answer_tid[i],
              answer_tid[0]);
    CHECK(answer_tid[i] == answer_tid[0]);
    CHECK(answer_tid[i] != feeder);
  }
  /* The worker exists until the responder is freed, and not after. */
  char task[64];
  snprintf(task, sizeof task, "/proc/self/task/%ld", answer_tid[0]);
  struct stat st;
  CHECK(stat(task, &st) == 0);
  cf_uci_free(u);
  /* The kernel wakes the joiner as the thread exits, a moment before it
   * takes the thread's entry away: a bounded wait for that. */
  bool gone = false;
  const struct timespec tick = {.tv_nsec = 10000000};
  for (int i = 0; i < 500 && !(gone = stat(task, &st) != 0); i++) nanosleep(&tick, NULL);
  CHECK(gone);
}

/* Feeds one line and returns what it wrote, without waiting for anything
 * (an inline search has ended when the feeding call returns). */
static const char *feed_now(cf_uci *u, const char *line) {
  static char out[1 << 16];
  size_t from = tr.at;
  cf_uci_feed(u, line);
  pthread_mutex_lock(&tr.mu);
  snprintf(out, sizeof out, "%s", tr.text + from);
  pthread_mutex_unlock(&tr.mu);
  return out;
}

static void test_inline_search(cf_test *t) {
  /* The worker's answers to compare with. */
  static const char *const gos[] = {"position startpos\ngo nodes 5",
                                    "position startpos moves e2e4 e7e5\ngo nodes 7"};
  static const char *const played[] = {"", "e2e4 e7e5"};
  char threaded[2][8];
  uci_transcript_init(&tr);
  cf_uci_config cfg = {.search_dirs = NULL, .max_batch = 4};
  cf_uci *u = NULL;
  if (!CHECK(cf_uci_create(&cfg, collect, &tr, &u, NULL) == CF_OK)) return;
  uci_transcript_run(u, &tr, net_setup);
  for (int i = 0; i < 2; i++) CHECK(uci_bestmove_legal(uci_transcript_run(u, &tr, gos[i]), NULL, played[i], threaded[i]));
  cf_uci_free(u);

  uci_transcript_init(&tr);
  n_answers = 0;
  cfg.inline_search = true;
  if (!CHECK(cf_uci_create(&cfg, collect, &tr, &u, NULL) == CF_OK)) return;
  uci_transcript_run(u, &tr, net_setup);
  const long feeder = this_tid();
  for (int i = 0; i < 2; i++) {
    char line[128], move[8] = "";
    const char *nl = strchr(gos[i], '\n');
    snprintf(line, sizeof line, "%.*s", (int)(nl - gos[i]), gos[i]);
    feed_now(u, line);
    /* Out before the go returned, and the worker's move. */
    CHECK(uci_bestmove_legal(feed_now(u, nl + 1), NULL, played[i], move));
    CHECK_STR_EQ(move, threaded[i]);
  }
  /* Held: info at once, bestmove at stop; isready answers in between. */
  feed_now(u, "position startpos");
  const char *o = feed_now(u, "go infinite nodes 3");
  CHECK_STR_CONTAINS(o, "info ");
  CHECK(strstr(o, "bestmove") == NULL);
  o = feed_now(u, "isready");
  CHECK_STR_CONTAINS(o, "readyok");
  CHECK(strstr(o, "bestmove") == NULL);
  CHECK_STR_CONTAINS(feed_now(u, "stop"), "bestmove ");
  CHECK(strstr(feed_now(u, "stop"), "bestmove") == NULL); /* answered once */
  /* ponderhit releases a go ponder; the next command a go infinite. */
  feed_now(u, "position startpos moves e2e4");
  CHECK(strstr(feed_now(u, "go ponder nodes 3 wtime 1000 btime 1000"), "bestmove") == NULL);
  CHECK_STR_CONTAINS(feed_now(u, "ponderhit"), "bestmove ");
  CHECK(strstr(feed_now(u, "go infinite nodes 3"), "bestmove") == NULL);
  o = feed_now(u, "position startpos");
  CHECK_STR_CONTAINS(o, "bestmove ");
  /* A held search whose root is solved (mate in one) ends without a stop
   * flag to wait for; the reset answers it. */
  feed_now(u, "position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
  o = feed_now(u, "go infinite nodes 400");
  CHECK_STR_CONTAINS(o, "score mate 1");
  CHECK(strstr(o, "bestmove") == NULL);
  const size_t before = tr.at;
  CHECK(cf_uci_reset(u, NULL) == CF_OK);
  CHECK_STR_CONTAINS(tr.text + before, "bestmove a1a8");
  CHECK_INT_EQ(n_answers, 6);
  for (int i = 0; i < n_answers; i++) CHECK(answer_tid[i] == feeder);
  cf_uci_free(u);
}

/* The poll of an inline search (cf_uci_config.poll), as the browser's
 * single-threaded worker has one: counts its calls and interrupts the
 * search at the interrupt_at-th (0: never). */
typedef struct poller {
  cf_uci *u;
  int calls, interrupt_at;
} poller;

static void poll_input(void *user) {
  poller *p = user;
  if (++p->calls == p->interrupt_at) cf_uci_interrupt(p->u);
}

static void test_inline_poll(cf_test *t) {
  uci_transcript_init(&tr);
  poller p = {0};
  cf_uci_config cfg = {.max_batch = 4, .inline_search = true, .poll = poll_input, .poll_user = &p};
  if (!CHECK(cf_uci_create(&cfg, collect, &tr, &p.u, NULL) == CF_OK)) return;
  cf_uci *u = p.u;
  uci_transcript_run(u, &tr, net_setup);
  /* go infinite without a limit searches, polling, until interrupted;
   * its bestmove then waits for the stop. */
  feed_now(u, "position startpos");
  p.interrupt_at = 5;
  const char *o = feed_now(u, "go infinite");
  CHECK_INT_EQ(p.calls, 5);
  CHECK_STR_CONTAINS(o, "info ");
  CHECK(strstr(o, "bestmove") == NULL);
  char move[8];
  CHECK(uci_bestmove_legal(feed_now(u, "stop"), NULL, "", move));
  /* A limit still ends a search that is never interrupted (a new tree:
   * the kept one has its nodes already). */
  feed_now(u, "ucinewgame");
  p.calls = 0;
  p.interrupt_at = 0;
  CHECK(uci_bestmove_legal(feed_now(u, "go nodes 9"), NULL, "", move));
  CHECK(p.calls > 0);
  /* A held search whose root is solved waits for the interrupt, polling,
   * instead of ending; the next command releases its answer. */
  feed_now(u, "position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
  p.calls = 0;
  p.interrupt_at = 50;
  o = feed_now(u, "go infinite");
  CHECK_INT_EQ(p.calls, 50);
  CHECK_STR_CONTAINS(o, "score mate 1");
  CHECK(strstr(o, "bestmove") == NULL);
  CHECK_STR_CONTAINS(feed_now(u, "position startpos"), "bestmove a1a8");
  cf_uci_free(u);
}

CF_TEST_MAIN(test_one_worker, test_inline_search, test_inline_poll)
