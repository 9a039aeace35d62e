/* test_uci_contempt.c: the WDL family through the UCI loop: the Contempt
 * list (its check, and its value against UCI_Opponent, from UCI_RatingAdv),
 * bad input refused with the option and the form or range named and
 * nothing changed, Lc0's thread-tuning options taken and said to be
 * ignored, and PerPVCounters and UCI_ShowEPS in the info lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/search/cf_search.h"
#include "engine/uci/cf_uci.h"
#include "engine/uci/cf_uci_contempt.h"
#include "engine/uci/cf_uci_state.h" /* the engine's search, to read its parameters */
#include "tests/cf_test.h"

#define TEXT_MAX (1 << 17)

typedef struct transcript {
  char text[TEXT_MAX];
  size_t used;
} transcript;

static void collect(void *user, const char *line) {
  transcript *tr = user;
  int n = snprintf(tr->text + tr->used, sizeof tr->text - tr->used, "%s\n", line);
  if (n > 0 && tr->used + (size_t)n < sizeof tr->text) tr->used += (size_t)n;
}

static cf_uci *new_engine(cf_test *t, transcript *tr) {
  tr->used = 0;
  cf_uci *u = NULL;
  cf_uci_config cfg = {.inline_search = true};
  CHECK(cf_uci_create(&cfg, collect, tr, &u, NULL) == CF_OK);
  return u;
}

static void test_list_check(cf_test *t) {
  static const char *const good[] = {"", "50", " -20.5 ", "stockfish=-20", "50,stockfish=-20",
                                     "x=1,,5", "a=1,", "Leela Chess=1e2"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    cf_error err = {0};
    if (!CHECK(cf_uci_contempt_check(good[i], &err) == CF_OK)) printf("  refused: '%s': %s\n", good[i], err.msg);
  }
  static const struct {
    const char *list, *says;
  } bad[] = {
      {"a=", "'a=': '' is not a number"},
      {"=5", "'=5': no name before '='"},
      {"x=1,,y", "'y': 'y' is not a number"},
      {"a=b=1", "more than one '='"},
      {"5abc", "'5abc' is not a number"},
      {"x=inf", "'inf' is not a number"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cf_error err = {0};
    CHECK(cf_uci_contempt_check(bad[i].list, &err) == CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "option Contempt: bad entry");
    CHECK_STR_CONTAINS(err.msg, bad[i].says);
    CHECK_STR_CONTAINS(err.msg, "value or name=value");
  }
}

static void test_list_value(cf_test *t) {
  static const struct {
    const char *list, *opponent;
    double rating_adv, want;
  } cases[] = {
      {"", "GM 3500 computer Stockfish 17", 75, 75},      /* UCI_RatingAdv by default */
      {"50", "anyone", 75, 50},                            /* a bare value replaces it */
      {"50,stockfish=-20", "GM 3500 computer Stockfish 17", 0, -20}, /* name, any case */
      {"50,stockfish=-20", "human Bob", 0, 50},
      {"leela=10,30", "computer Leela", 0, 10},           /* the match ends the list */
      {"30,leela=10", "computer Leela", 0, 10},
      {"fish=1,stock=2", "Stockfish", 0, 1},              /* the first match wins */
      {"fish=1", "", 5, 5},                                /* no opponent: no match */
      {"x=1,,40", "y", 0, 40},                             /* empty entries skipped */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    CHECK_NEAR(cf_uci_contempt_value(cases[i].list, cases[i].opponent, cases[i].rating_adv),
               cases[i].want, 0);
}

/* setoption through the loop: values reach the search's contempt. */
static void test_contempt_reaches_search(cf_test *t) {
  static transcript tr;
  cf_uci *u = new_engine(t, &tr);
  if (!u) return;
  cf_uci_feed(u, "setoption name UCI_Opponent value GM 3500 computer Stockfish 17");
  cf_uci_feed(u, "setoption name Contempt value 50,stockfish=-20");
  CHECK_NEAR(cf_search_get_params(u->search)->contempt, -20, 0);
  cf_uci_feed(u, "setoption name UCI_Opponent value human Bob");
  CHECK_NEAR(cf_search_get_params(u->search)->contempt, 50, 0);
  cf_uci_feed(u, "setoption name Contempt value");
  cf_uci_feed(u, "setoption name UCI_RatingAdv value 75");
  CHECK_NEAR(cf_search_get_params(u->search)->contempt, 75, 0);
  cf_uci_feed(u, "setoption name Contempt value 1e9"); /* Lc0 takes it; cut to the knob's range */
  CHECK_NEAR(cf_search_get_params(u->search)->contempt, 10000, 0);
  cf_uci_feed(u, "setoption name WDLCalibrationElo value 3300");
  cf_uci_feed(u, "setoption name ContemptMode value white_side_analysis");
  CHECK_NEAR(cf_search_get_params(u->search)->wdl_calibration_elo, 3300, 0);
  CHECK_INT_EQ(cf_search_get_params(u->search)->contempt_mode, 1);
  CHECK(strstr(tr.text, "error") == NULL);
  cf_uci_free(u);
}

/* Each bad value: one error line naming the option and what it takes; the
 * option and the search keep their values; the engine answers after. */
static void test_bad_input(cf_test *t) {
  static transcript tr;
  cf_uci *u = new_engine(t, &tr);
  if (!u) return;
  cf_uci_feed(u, "setoption name Contempt value stockfish=30");
  cf_uci_feed(u, "setoption name UCI_Opponent value Stockfish");
  CHECK(strstr(tr.text, "error") == NULL);
  cf_search_params before = *cf_search_get_params(u->search);
  static const struct {
    const char *cmd, *says, *option, *kept;
  } cases[] = {
      {"setoption name WDLDrawRateReference value 1.5",
       "info string error: option WDLDrawRateReference: bad value '1.5' (expected 0.001 to 0.999)",
       "WDLDrawRateReference", "0.5"},
      {"setoption name WDLMaxS value -1", "option WDLMaxS: bad value '-1' (expected 0 to 10)",
       "WDLMaxS", "1.4"},
      {"setoption name WDLEvalObjectivity value lots",
       "option WDLEvalObjectivity: bad value 'lots' (expected 0 to 1)", "WDLEvalObjectivity", "1"},
      {"setoption name ContemptMaxValue value 10001",
       "option ContemptMaxValue: bad value '10001' (expected 0 to 10000)", "ContemptMaxValue", "420"},
      {"setoption name UCI_RatingAdv value nan", "option UCI_RatingAdv: bad value 'nan'",
       "UCI_RatingAdv", "0"},
      {"setoption name ContemptMode value sideways",
       "option ContemptMode: bad value 'sideways' (expected one of: play, white_side_analysis, "
       "black_side_analysis, disable)",
       "ContemptMode", "play"},
      {"setoption name Contempt value a=", "option Contempt: bad entry 'a='", "Contempt", "stockfish=30"},
      {"setoption name Contempt value =5", "option Contempt: bad entry '=5'", "Contempt", "stockfish=30"},
      {"setoption name Contempt value x=1,,y", "option Contempt: bad entry 'y'", "Contempt",
       "stockfish=30"},
      {"setoption name UCI_Opponent value GM\x01 2800", "option UCI_Opponent: bad value", "UCI_Opponent",
       "Stockfish"},
      {"setoption name UCI_Opponent value bad\xff utf8", "option UCI_Opponent: bad value",
       "UCI_Opponent", "Stockfish"},
      {"setoption name TaskWorkers value 500", "option TaskWorkers: bad value '500' (expected -1 to 128)",
       NULL, NULL},
      {"setoption name SearchSpinBackoff value maybe",
       "option SearchSpinBackoff: bad value 'maybe' (expected true or false)", NULL, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tr.used = 0;
    tr.text[0] = 0;
    cf_uci_feed(u, cases[i].cmd);
    CHECK_STR_CONTAINS(tr.text, "info string error: ");
    CHECK_STR_CONTAINS(tr.text, cases[i].says);
    CHECK(strchr(tr.text, '\n') == tr.text + tr.used - 1); /* one line */
    if (cases[i].option) {
      cf_uci_option_id id;
      if (CHECK(cf_uci_option_by_name(cases[i].option, &id) != NULL))
        CHECK_STR_EQ(cf_uci_get_option(u, id), cases[i].kept);
    }
  }
  /* the search's parameters are as they were, contempt (30) included */
  for (int i = 0; i < CF_SEARCH_PARAM_COUNT; i++) {
    const cf_search_param *r = cf_search_param_at(i);
    CHECK_NEAR(r->get(cf_search_get_params(u->search)), r->get(&before), 0);
  }
  CHECK_NEAR(cf_search_get_params(u->search)->contempt, 30, 0);
  tr.used = 0;
  cf_uci_feed(u, "isready");
  CHECK_STR_CONTAINS(tr.text, "readyok\n"); /* after the network's load line */
  CHECK(strstr(tr.text, "error") == NULL);
  cf_uci_free(u);
}

/* Lc0's thread-tuning options: taken (in any case), said to be ignored. */
static void test_ignored_options(cf_test *t) {
  static transcript tr;
  cf_uci *u = new_engine(t, &tr);
  if (!u) return;
  cf_uci_feed(u, "uci"); /* greeted: notes are written at once */
  static const char *const names[] = {"TaskWorkers", "MinimumProcessingWork", "MinimumPickingWork",
                                      "MinimumRemainingPickingWork", "MinimumPerTaskProcessing",
                                      "IdlingMinimumWork", "ThreadIdlingThreshold",
                                      "MaxConcurrentSearchers", "SolidTreeThreshold"};
  /* not offered to GUIs */
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char opt[128];
    snprintf(opt, sizeof opt, "option name %s ", names[i]);
    CHECK(strstr(tr.text, opt) == NULL);
  }
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char cmd[128], says[128];
    snprintf(cmd, sizeof cmd, "setoption name %s value 4", names[i]);
    snprintf(says, sizeof says, "info string %s is ignored (", names[i]);
    tr.used = 0;
    tr.text[0] = 0;
    cf_uci_feed(u, cmd);
    CHECK_STR_CONTAINS(tr.text, says);
    CHECK(strstr(tr.text, "error") == NULL);
  }
  tr.used = 0;
  cf_uci_feed(u, "setoption name searchspinbackoff value true");
  cf_uci_feed(u, "setoption name GarbageCollectionDelay value 12.5");
  CHECK_STR_CONTAINS(tr.text, "info string SearchSpinBackoff is ignored");
  CHECK_STR_CONTAINS(tr.text, "info string GarbageCollectionDelay is ignored");
  CHECK(strstr(tr.text, "error") == NULL);
  cf_uci_free(u);
}

/* The value of `key N` in the line of text that contains `in_line`. */
static long field_in_line(const char *text, const char *in_line, const char *key) {
  const char *at = strstr(text, in_line);
  if (!at) return -1;
  while (at > text && at[-1] != '\n') at--;
  const char *end = strchr(at, '\n');
  const char *k = strstr(at, key);
  if (!k || (end && k > end)) return -1;
  return strtol(k + strlen(key), NULL, 10);
}

/* The last info line with "multipv K" in text, copied to out. */
static void last_line(const char *text, const char *needle, char *out, size_t size) {
  const char *at = NULL, *p = text;
  while ((p = strstr(p, needle)) != NULL) at = p++;
  out[0] = 0;
  if (!at) return;
  while (at > text && at[-1] != '\n') at--;
  const char *end = strchr(at, '\n');
  snprintf(out, size, "%.*s", (int)(end ? end - at : (long)strlen(at)), at);
}

static void test_output_options(cf_test *t) {
  static transcript tr;
  cf_uci *u = new_engine(t, &tr);
  if (!u) return;
  cf_uci_feed(u, "setoption name MultiPV value 2");
  /* smart pruning off: past 0.2 s (a slow machine under ASan) it may stop
   * the node limit early, as Lc0's does */
  cf_uci_feed(u, "setoption name SmartPruningFactor value 0");
  cf_uci_feed(u, "position startpos");
  cf_uci_feed(u, "go nodes 40");
  char one[1024], two[1024];
  last_line(tr.text, " multipv 1 ", one, sizeof one);
  last_line(tr.text, " multipv 2 ", two, sizeof two);
  if (!CHECK(one[0] && two[0])) goto done;
  /* by default: the whole search's nodes on every line, no eps */
  const long total = field_in_line(one, "multipv", " nodes ");
  CHECK(total >= 40);
  CHECK_INT_EQ(field_in_line(two, "multipv", " nodes "), total);
  CHECK(strstr(tr.text, " eps ") == NULL);
  tr.used = 0;
  tr.text[0] = 0;
  cf_uci_feed(u, "setoption name PerPVCounters value true");
  cf_uci_feed(u, "setoption name UCI_ShowEPS value true");
  cf_uci_feed(u, "ucinewgame");
  cf_uci_feed(u, "position startpos");
  cf_uci_feed(u, "go nodes 40");
  last_line(tr.text, " multipv 1 ", one, sizeof one);
  last_line(tr.text, " multipv 2 ", two, sizeof two);
  if (!CHECK(one[0] && two[0])) goto done;
  /* each line its own move's visits: together fewer than the root's */
  const long n1 = field_in_line(one, "multipv", " nodes "), n2 = field_in_line(two, "multipv", " nodes ");
  CHECK(n1 > 0 && n2 >= 0 && n1 >= n2);
  CHECK(n1 + n2 < total);
  /* eps after nps, as Lc0 writes it */
  CHECK(strstr(one, " nps ") && strstr(one, " eps ") > strstr(one, " nps "));
  CHECK(field_in_line(one, "multipv", " eps ") >= 0);
done:
  cf_uci_free(u);
}

/* go infinite has no side to favour under ContemptMode play: it is said,
 * once contempt would have acted, and not otherwise. */
static void test_infinite_warning(cf_test *t) {
  static transcript tr;
  /* a search thread of its own, so that stop reaches go infinite */
  cf_uci *u = NULL;
  cf_uci_config cfg = {0};
  if (!CHECK(cf_uci_create(&cfg, collect, &tr, &u, NULL) == CF_OK)) return;
  cf_uci_feed(u, "position startpos");
  cf_uci_feed(u, "go infinite");
  cf_uci_feed(u, "stop");
  cf_uci_wait(u);
  CHECK(strstr(tr.text, "WARNING") == NULL);
  cf_uci_feed(u, "setoption name Contempt value 100");
  tr.used = 0;
  tr.text[0] = 0;
  cf_uci_feed(u, "go infinite");
  cf_uci_feed(u, "stop");
  cf_uci_wait(u);
  CHECK_STR_CONTAINS(tr.text, "info string WARNING: ContemptMode play is off under go infinite");
  CHECK_STR_CONTAINS(tr.text, "bestmove ");
  tr.used = 0;
  tr.text[0] = 0;
  cf_uci_feed(u, "setoption name ContemptMode value white_side_analysis");
  cf_uci_feed(u, "go infinite");
  cf_uci_feed(u, "stop");
  cf_uci_wait(u);
  CHECK(strstr(tr.text, "WARNING") == NULL);
  cf_uci_free(u);
}

CF_TEST_MAIN(test_infinite_warning, test_list_check, test_list_value, test_contempt_reaches_search, test_bad_input,
             test_ignored_options, test_output_options)
