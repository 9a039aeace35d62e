/* test_api_search.c: cformer_search through the public header: every root
 * move with its visits, prior, Q and PV, a mate found, a search without a
 * visit limit ended from another thread, and bad input. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cformer.h"
#include "tests/cf_test.h"
#include "tests/lib/api_test.h"

static cformer_net *open_net(cf_test *t) {
  cformer_net *net = NULL;
  cformer_error err;
  if (!CHECK(cformer_open_builtin(NULL, &net, &err) == CFORMER_OK)) fprintf(stderr, "%s\n", err.message);
  return net;
}

static void test_root_moves(cf_test *t) {
  cformer_net *net = open_net(t);
  cformer_search_result *r = malloc(sizeof *r);
  if (!net || !CHECK(r != NULL)) goto done;
  const char *moves[] = {"e2e4", "e7e5"};
  cformer_position pos = {.fen = NULL, .moves = moves, .n_moves = 2};
  cformer_search_options o = {.nodes = 200};
  cformer_error err;
  if (!CHECK(cformer_search(net, &pos, &o, r, &err) == CFORMER_OK)) {
    fprintf(stderr, "%s\n", err.message);
    goto done;
  }
  CHECK_INT_EQ(r->n_moves, 29);
  CHECK_STR_EQ(r->moves[0].move, r->move);
  /* About 200: smart pruning may end the search sooner once the best move
   * cannot change (at ref's minibatch of 8 it stops at 186 here), and the
   * last batch may overshoot (by less than a minibatch, at most 256). */
  if (!CHECK(r->visits >= 100 && r->visits < 200 + 256))
    fprintf(stderr, "visits %ld\n", (long)r->visits);
  long sum = 0;
  double priors = 0;
  for (int i = 0; i < r->n_moves; i++) {
    const cformer_root_move *m = &r->moves[i];
    sum += m->visits;
    priors += m->prior;
    if (i) CHECK(m->visits <= r->moves[i - 1].visits || r->moves[i - 1].mate > 0);
    if (m->visits > 0) {
      CHECK(m->q >= -1 && m->q <= 1);
      CHECK_NEAR(m->wdl[0] + m->wdl[1] + m->wdl[2], 1.0, 1e-4);
      CHECK_NEAR(m->q, m->wdl[0] - m->wdl[2], 1e-4);
      CHECK(m->pv_len >= 1);
    } else {
      CHECK(isnan(m->q));
    }
    if (m->pv_len > 0) CHECK_STR_EQ(m->pv[0], m->move);
  }
  CHECK(sum == r->visits || sum == r->visits - 1); /* the root's own first visit */
  CHECK_NEAR(priors, 1.0, 1e-3);
  CHECK(r->moves[0].pv_len >= 2);
  CHECK_STR_EQ(r->moves[0].pv[1], r->ponder);
  CHECK(!r->stopped);
done:
  free(r);
  cformer_close(net);
}

static void test_mate(cf_test *t) {
  cformer_net *net = open_net(t);
  cformer_search_result *r = malloc(sizeof *r);
  if (net && CHECK(r != NULL)) {
    cformer_position pos = {.fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"};
    cformer_search_options o = {.nodes = 100};
    CHECK(cformer_search(net, &pos, &o, r, NULL) == CFORMER_OK);
    CHECK_STR_EQ(r->move, "a1a8");
    CHECK_INT_EQ(r->mate, 1);
    CHECK_INT_EQ(r->moves[0].mate, 1);
    cformer_position mated = {.fen = "7k/5QQ1/8/8/8/8/8/K7 b - - 0 1"};
    CHECK(cformer_search(net, &mated, &o, r, NULL) == CFORMER_OK);
    CHECK_STR_EQ(r->move, "0000");
    CHECK_INT_EQ(r->n_moves, 0);
    /* The game's result as the score: mated (mate 0: no mate to give). */
    CHECK_INT_EQ(r->mate, 0);
    CHECK_NEAR(r->q, -1, 0);
    CHECK(r->wdl[0] == 0 && r->wdl[1] == 0 && r->wdl[2] == 1);
    CHECK_INT_EQ(r->visits, 0);
    CHECK_INT_EQ(r->evaluations, 0);
    cformer_position stalemated = {.fen = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"};
    CHECK(cformer_search(net, &stalemated, &o, r, NULL) == CFORMER_OK);
    CHECK_STR_EQ(r->move, "0000");
    CHECK_INT_EQ(r->n_moves, 0);
    CHECK_INT_EQ(r->mate, 0);
    CHECK_NEAR(r->q, 0, 0); /* the draw score, 0 by default */
    CHECK(r->wdl[0] == 0 && r->wdl[1] == 1 && r->wdl[2] == 0);
  }
  free(r);
  cformer_close(net);
}

typedef struct stopper {
  cformer_stop *stop;
  int waited_ms;
} stopper;

static void *stop_later(void *arg) {
  stopper *s = arg;
  struct timespec ts = {.tv_sec = 0, .tv_nsec = 1000000L * s->waited_ms};
  nanosleep(&ts, NULL);
  cformer_stop_request(s->stop);
  return NULL;
}

/* An infinite search has no end of its own: it returns only because another
 * thread asked it to. */
static void test_stop_from_another_thread(cf_test *t) {
  cformer_net *net = open_net(t);
  cformer_search_result *r = malloc(sizeof *r);
  cformer_stop *stop = NULL;
  if (!net || !CHECK(r != NULL) || !CHECK(cformer_stop_create(&stop, NULL) == CFORMER_OK)) goto done;
  CHECK(!cformer_stop_requested(stop));
  stopper s = {.stop = stop, .waited_ms = 200};
  pthread_t th;
  if (!CHECK(pthread_create(&th, NULL, stop_later, &s) == 0)) goto done;
  cformer_position pos = {.fen = NULL};
  cformer_search_options o = {.infinite = 1, .stop = stop};
  CHECK(cformer_search(net, &pos, &o, r, NULL) == CFORMER_OK);
  pthread_join(th, NULL);
  CHECK(cformer_stop_requested(stop));
  CHECK(r->stopped);
  CHECK(r->visits >= 1);
  CHECK_INT_EQ(r->n_moves, 20);
  /* A flag already set ends the next search at once; cleared, it is a
   * plain search again. */
  o = (cformer_search_options){.nodes = 1000, .stop = stop};
  CHECK(cformer_search(net, &pos, &o, r, NULL) == CFORMER_OK);
  CHECK(r->stopped);
  CHECK(r->visits < 1000);
  cformer_stop_clear(stop);
  CHECK(!cformer_stop_requested(stop));
  CHECK(cformer_search(net, &pos, &o, r, NULL) == CFORMER_OK);
  CHECK(!r->stopped);
  CHECK(r->visits > 1); /* it ran (smart pruning may end it before 1000) */
done:
  cformer_stop_free(stop);
  free(r);
  cformer_close(net);
}

static void test_bad_input(cf_test *t) {
  cformer_net *net = open_net(t);
  cformer_search_result *r = malloc(sizeof *r);
  if (net && CHECK(r != NULL)) {
    cformer_position pos = {.fen = NULL}, bad = {.fen = "8/8/8 w - - 0 1"};
    cformer_search_options o = {.infinite = 1};
    EXPECT_ERR(cformer_search(net, &pos, &o, r, err), CFORMER_ERR_ARG, "stop flag");
    o = (cformer_search_options){.nodes = -1};
    EXPECT_ERR(cformer_search(net, &pos, &o, r, err), CFORMER_ERR_ARG, ">= 0");
    o = (cformer_search_options){.movetime = NAN};
    EXPECT_ERR(cformer_search(net, &pos, &o, r, err), CFORMER_ERR_ARG, ">= 0");
    o = (cformer_search_options){.nodes = 10};
    EXPECT_ERR(cformer_search(net, &bad, &o, r, err), CFORMER_ERR_ARG, "position 0");
    EXPECT_ERR(cformer_search(net, &pos, &o, NULL, err), CFORMER_ERR_ARG, "NULL");
    EXPECT_ERR(cformer_stop_create(NULL, err), CFORMER_ERR_ARG, "NULL");
    cformer_stop_request(NULL); /* NULL is harmless */
    cformer_stop_free(NULL);
    CHECK(!cformer_stop_requested(NULL));
    CHECK(cformer_search(net, &pos, &o, r, NULL) == CFORMER_OK);
  }
  free(r);
  cformer_close(net);
}

CF_TEST_MAIN(test_root_moves, test_mate, test_stop_from_another_thread, test_bad_input)
