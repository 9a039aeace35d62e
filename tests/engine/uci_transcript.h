/* uci_transcript.h: the output of an in-memory UCI responder (cf_uci), as
 * the engine tests read it. cf_uci_create(cfg, uci_transcript_collect, tr,
 * ...) appends every line the engine writes to tr->text; uci_transcript_run
 * feeds lines and returns what they caused. Header-only: each test is its
 * own executable. */
#ifndef TESTS_ENGINE_UCI_TRANSCRIPT_H
#define TESTS_ENGINE_UCI_TRANSCRIPT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/cf_game.h"
#include "chess/cf_move_uci.h"
#include "common/cf_clock.h"
#include "engine/cf_agent.h"
#include "engine/uci/cf_uci.h"

/* Collected output. watch: when set, the first line containing it has its
 * time (cf_clock_now) recorded in watch_at. */
typedef struct transcript {
  pthread_mutex_t mu;
  char text[1 << 20];
  size_t at;
  const char *watch;
  double watch_at;
} transcript;

/* Empties tr for a new engine. */
static inline void uci_transcript_init(transcript *tr) {
  memset(tr, 0, sizeof *tr);
  pthread_mutex_init(&tr->mu, NULL);
}

/* The engine's write callback: one line, kept with its newline. */
static inline void uci_transcript_collect(void *user, const char *line) {
  transcript *tr = user;
  pthread_mutex_lock(&tr->mu);
  if (tr->watch && tr->watch_at == 0 && strstr(line, tr->watch)) tr->watch_at = cf_clock_now();
  int n = snprintf(tr->text + tr->at, sizeof tr->text - tr->at, "%s\n", line);
  if (n > 0 && tr->at + (size_t)n < sizeof tr->text) tr->at += (size_t)n;
  pthread_mutex_unlock(&tr->mu);
}

/* Feeds lines separated by '\n', waits for the search, returns the output
 * since the call (valid until the next call). */
static inline const char *uci_transcript_run(cf_uci *u, transcript *tr, const char *lines) {
  static char out[1 << 20];
  size_t from = tr->at;
  char *copy = strdup(lines);
  for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
    cf_uci_feed(u, l);
  free(copy);
  cf_uci_wait(u);
  pthread_mutex_lock(&tr->mu);
  snprintf(out, sizeof out, "%s", tr->text + from);
  pthread_mutex_unlock(&tr->mu);
  return out;
}

/* How many times needle occurs in hay. */
static inline int uci_count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

/* The nodes of the last info line with nodes in out; -1 if none. */
static inline long uci_last_nodes(const char *out) {
  const char *last = NULL;
  for (const char *p = strstr(out, " nodes "); p; p = strstr(p + 1, " nodes ")) last = p;
  return last ? atol(last + 7) : -1;
}

/* Whether the first "bestmove M" in out is legal after fen (NULL: the
 * start position) and moves; move (8 bytes) gets M. */
static inline bool uci_bestmove_legal(const char *out, const char *fen, const char *moves,
                                      char *move) {
  move[0] = 0;
  const char *b = strstr(out, "bestmove ");
  if (!b) return false;
  sscanf(b + 9, "%7s", move);
  cf_game g;
  if ((fen ? cf_game_init_fen(&g, fen, NULL) : cf_game_init(&g, NULL, NULL)) != CF_OK) return false;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", moves);
  for (char *s = NULL, *m = strtok_r(buf, " ", &s); m; m = strtok_r(NULL, " ", &s))
    cf_game_push_uci(&g, m, NULL);
  cf_move mv;
  bool ok = cf_move_parse_uci(cf_game_position(&g), move, &mv, NULL) == CF_OK;
  cf_game_free(&g);
  return ok;
}

#ifdef CF_TEST_H
/* An engine writing to tr: batches of up to 8, the options' defaults
 * (the failure checked and said, NULL then). */
static inline cf_uci *uci_transcript_engine(cf_test *t, transcript *tr) {
  uci_transcript_init(tr);
  cf_uci *u = NULL;
  cf_error err = {0};
  if (!CHECK(cf_uci_create(&(cf_uci_config){.max_batch = 8}, uci_transcript_collect, tr, &u,
                           &err) == CF_OK))
    fprintf(stderr, "  %s\n", err.msg);
  return u;
}
#endif

#endif /* TESTS_ENGINE_UCI_TRANSCRIPT_H */
