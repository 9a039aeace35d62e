/* test_uci_reset.c: cf_uci_reset brings a responder back to the state
 * cf_uci_create left (options, position, greeting), stops a held search,
 * and keeps the loaded network for the same options (no reload) while
 * other options load anew. The network is the fuzz target's tiny random
 * net (tests/engine/fuzz/tiny.pb.gz) on the ref backend. */
#include <stdio.h>
#include <string.h>

#include "engine/uci/cf_uci.h"
#include "tests/cf_test.h"
#include "tests/engine/uci_transcript.h"

#ifndef CF_TEST_TINY_NET
#error "CF_TEST_TINY_NET: the path of tests/engine/fuzz/tiny.pb.gz (meson passes it)"
#endif

static transcript tr_a, tr_b;

static cf_uci *engine(cf_test *t, transcript *tr) {
  uci_transcript_init(tr);
  cf_uci_config cfg = {.search_dirs = NULL, .max_batch = 4};
  cf_uci *u = NULL;
  CHECK(cf_uci_create(&cfg, uci_transcript_collect, tr, &u, NULL) == CF_OK);
  return u;
}

static const char *const net_setup = "setoption name WeightsFile value " CF_TEST_TINY_NET "\n"
                                     "setoption name Backend value ref\n";

/* Every option reads as on a fresh responder. */
static void check_defaults(cf_test *t, const cf_uci *u) {
  cf_uci *fresh = engine(t, &tr_b);
  if (!fresh) return;
  for (int i = 0; i < CF_OPT_COUNT; i++) {
    const char *got = cf_uci_get_option(u, (cf_uci_option_id)i);
    const char *want = cf_uci_get_option(fresh, (cf_uci_option_id)i);
    if (strcmp(got, want) != 0) fprintf(stderr, "option %d: '%s', want '%s'\n", i, got, want);
    CHECK(strcmp(got, want) == 0);
  }
  cf_uci_free(fresh);
}

static void test_reset(cf_test *t) {
  cf_uci *u = engine(t, &tr_a);
  if (!u) return;
  const char *o = uci_transcript_run(u, &tr_a, net_setup);
  o = uci_transcript_run(u, &tr_a, "isready");
  CHECK_STR_CONTAINS(o, "info string loaded network " CF_TEST_TINY_NET);
  /* A changed game and options, and a held search. */
  uci_transcript_run(u, &tr_a,
                     "setoption name CPuct value 3.5\n"
                     "setoption name MoveOverheadMs value 7\n"
                     "position fen 7k/8/8/8/8/8/8/KQ6 w - - 0 1\n");
  cf_uci_feed(u, "go infinite");
  size_t from = tr_a.at;
  CHECK(cf_uci_reset(u, NULL) == CF_OK);
  /* The held search was stopped: its bestmove came out. */
  CHECK_STR_CONTAINS(tr_a.text + from, "bestmove ");
  check_defaults(t, u);
  /* The same network options: the net stays, isready answers at once. */
  uci_transcript_run(u, &tr_a, net_setup);
  o = uci_transcript_run(u, &tr_a, "isready");
  CHECK_STR_EQ(o, "readyok\n");
  /* The start position (a move legal there, not in the endgame above). */
  o = uci_transcript_run(u, &tr_a, "go nodes 4");
  char move[8];
  CHECK(uci_bestmove_legal(o, NULL, "", move));
  /* Other network options load anew. */
  CHECK(cf_uci_reset(u, NULL) == CF_OK);
  uci_transcript_run(u, &tr_a, net_setup);
  o = uci_transcript_run(u, &tr_a, "setoption name MinibatchSize value 2\nisready");
  CHECK_STR_CONTAINS(o, "info string loaded network " CF_TEST_TINY_NET);
  cf_uci_free(u);
}

/* A note the options had before the first command is held for it, as on
 * a fresh responder; after a reset the greeting starts over. */
static void test_reset_greets_again(cf_test *t) {
  cf_uci *u = engine(t, &tr_a);
  if (!u) return;
  const char *o = uci_transcript_run(u, &tr_a, "ucinewgame\nsetoption name LogFile value /nonexistent/dir/log");
  CHECK_STR_CONTAINS(o, "info string error: ");
  CHECK(cf_uci_reset(u, NULL) == CF_OK);
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_LOG_FILE), "");
  CHECK(cf_uci_set_option(u, CF_OPT_LOG_FILE, "/nonexistent/dir/log", NULL) == CF_OK);
  o = uci_transcript_run(u, &tr_a, "uci");
  /* Held until after uciok, as for the first command of a new responder. */
  const char *uciok = strstr(o, "uciok\n");
  CHECK(uciok != NULL);
  if (uciok) CHECK_STR_CONTAINS(uciok, "info string error: ");
  cf_uci_free(u);
}

CF_TEST_MAIN(test_reset, test_reset_greets_again)
