/* test_uci_search_options.c: Lc0's further search options through the UCI
 * engine (built-in network):
 *   - out-of-range and malformed values are refused with an info string
 *     naming the option and its range, the value stays, the engine plays on;
 *     values in range are taken silently;
 *   - a MovesLeft option set on a network without a moves-left head: said
 *     once at go, not before it is set;
 *   - a root in the tablebases reports their result: a draw as cp 0, a loss
 *     with one legal move as Lc0's tablebase mate (-101 and beyond), a win
 *     as its positive, a mate the tree proves as that mate (skipped in a
 *     build without the prober). */
#include <stdlib.h>
#include <string.h>

#include "engine/syzygy/cf_syzygy.h"
#include "engine/uci/cf_uci.h"
#include "engine/uci/cf_uci_options.h"
#include "tests/cf_test.h"
#include "tests/engine/uci_transcript.h"

static cf_uci *engine(cf_test *t, transcript *tr) { return uci_transcript_engine(t, tr); }

typedef struct bad_value {
  const char *name, *value, *expected;
} bad_value;

static const bad_value bad_values[] = {
    {"MovesLeftSlope", "2", "(expected 0 to 1)"},
    {"MovesLeftScaledFactor", "-2.5", "(expected -2 to 2)"},
    {"MovesLeftThreshold", "x", "(expected 0 to 1)"},
    {"MaxCollisionEvents", "0", "(expected 1 to 65536)"},
    {"MaxCollisionVisits", "100000001", "(expected 1 to 1e+08)"},
    {"MaxCollisionVisitsScalingPower", "0.001", "(expected 0.01 to 100)"},
    {"CacheHistoryLength", "8", "(expected 0 to 7)"},
    {"MaxPrefetch", "-1", "(expected 0 to 1024)"},
    {"SmartPruningMinimumBatches", "10001", "(expected 0 to 10000)"},
    {"NodesPerSecondLimit", "nan", "(expected 0 to 1e+06)"},
    {"CPuctAtRoot", "101", "(expected 0 to 100)"},
    {"FpuValueAtRoot", "-100.5", "(expected -100 to 100)"},
    {"FpuStrategyAtRoot", "sideways", "(expected one of: reduction, absolute, same)"},
    {"StickyEndgames", "maybe", "(expected true or false)"},
    {"SyzygyFastPlay", "1", "(expected true or false)"},
};

static void test_bad_values_refused(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
    const bad_value *b = &bad_values[i];
    cf_uci_option_id id;
    if (!CHECK(cf_uci_option_by_name(b->name, &id) != NULL)) continue;
    char before[CF_UCI_VALUE_MAX], cmd[256], want[256];
    snprintf(before, sizeof before, "%s", cf_uci_get_option(u, id));
    snprintf(cmd, sizeof cmd, "setoption name %s value %s", b->name, b->value);
    const char *o = uci_transcript_run(u, &tr, cmd);
    snprintf(want, sizeof want, "info string error: option %s: bad value '%s' %s", b->name,
             b->value, b->expected);
    if (!CHECK(strstr(o, want) != NULL)) fprintf(stderr, "  wanted: %s\n  got: %s", want, o);
    CHECK_STR_EQ(cf_uci_get_option(u, id), before); /* nothing changed */
  }
  /* In range: taken without a word. */
  CHECK_STR_EQ(uci_transcript_run(u, &tr, "setoption name MaxPrefetch value 0"), "");
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_SEARCH(max_prefetch)), "0");
  CHECK_STR_EQ(uci_transcript_run(u, &tr, "setoption name FpuStrategyAtRoot value absolute"), "");
  CHECK_STR_EQ(uci_transcript_run(u, &tr, "setoption name OutOfOrderEval value false"), "");
  /* and the engine plays on */
  const char *o = uci_transcript_run(
      u, &tr, "setoption name WeightsFile value <built in>\nisready\nposition startpos\ngo nodes 20");
  CHECK_INT_EQ(uci_count(o, "bestmove "), 1);
  CHECK(!strstr(o, "error"));
  cf_uci_free(u);
}

static void test_moves_left_note_once(cf_test *t) {
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  const char *note = "have no effect: the network has no moves-left head";
  const char *o = uci_transcript_run(
      u, &tr, "setoption name WeightsFile value <built in>\nisready\nposition startpos\ngo nodes 5");
  CHECK_INT_EQ(uci_count(o, note), 0); /* defaults: nothing to say */
  o = uci_transcript_run(u, &tr, "setoption name MovesLeftSlope value 0.01\ngo nodes 5\ngo nodes 5");
  CHECK_INT_EQ(uci_count(o, "info string MovesLeftSlope and the other MovesLeft options " ), 1);
  CHECK_INT_EQ(uci_count(o, note), 1);
  CHECK_INT_EQ(uci_count(o, "bestmove "), 2);
  cf_uci_free(u);
}

/* The score of the last info line of a go nodes search of fen. */
static void tb_score(cf_test *t, cf_uci *u, transcript *tr, const char *fen, char *score,
                     size_t size) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "ucinewgame\nposition fen %s\ngo nodes 30", fen);
  const char *o = uci_transcript_run(u, tr, cmd);
  const char *last = NULL;
  for (const char *p = strstr(o, " score "); p; p = strstr(p + 1, " score ")) last = p;
  score[0] = 0;
  if (!CHECK(last != NULL)) return;
  const char *end = strstr(last + 7, " ");
  end = end ? strstr(end + 1, " ") : NULL; /* "cp 0" or "mate -105" */
  const size_t n = end ? (size_t)(end - (last + 7)) : strlen(last + 7);
  snprintf(score, size, "%.*s", (int)(n < size ? n : size - 1), last + 7);
}

static void test_tablebase_root_score(cf_test *t) {
  if (!cf_syzygy_available()) {
    printf("skip: built without the Syzygy prober\n");
    return;
  }
  transcript tr;
  cf_uci *u = engine(t, &tr);
  if (!u) return;
  char cmd[512], score[64];
  snprintf(cmd, sizeof cmd,
           "setoption name WeightsFile value <built in>\nsetoption name SyzygyPath value "
           "%s/syzygy\nisready",
           cf_test_data_dir());
  uci_transcript_run(u, &tr, cmd);
  /* KRvK, Black to move: Kxd2 draws (the tables say so), whatever the
   * network thinks of the bare kings. */
  tb_score(t, u, &tr, "8/8/8/8/8/2k5/3R4/K7 b - - 0 1", score, sizeof score);
  CHECK_STR_EQ(score, "cp 0");
  /* KQvKR, Black in check with one legal move, lost: a tablebase loss. */
  tb_score(t, u, &tr, "8/8/8/7r/k7/1Q6/1K6/8 b - - 0 1", score, sizeof score);
  if (CHECK(strncmp(score, "mate -", 6) == 0)) CHECK(atoi(score + 5) <= -101);
  /* KRvK, White to move: a tablebase win. */
  tb_score(t, u, &tr, "8/8/8/8/8/2k5/8/K2R4 w - - 0 1", score, sizeof score);
  if (CHECK(strncmp(score, "mate ", 5) == 0)) CHECK(atoi(score + 5) >= 101);
  /* SyzygyFastPlay is taken and the win is still one. */
  uci_transcript_run(u, &tr, "setoption name SyzygyFastPlay value true");
  tb_score(t, u, &tr, "8/8/8/8/8/2k5/8/K2R4 w - - 0 1", score, sizeof score);
  if (CHECK(strncmp(score, "mate ", 5) == 0)) CHECK(atoi(score + 5) >= 101);
  /* A mate the tree proves (Qa8#, the only fastest win) stays exact. */
  tb_score(t, u, &tr, "7k/8/6K1/8/8/8/Q7/8 w - - 0 1", score, sizeof score);
  CHECK_STR_EQ(score, "mate 1");
  cf_uci_free(u);
}

CF_TEST_MAIN(test_bad_values_refused, test_moves_left_note_once, test_tablebase_root_score)
