/* test_search_params.c: the search's parameter table
 * (engine/search/cf_search_params.h) is the one place a search option is
 * declared: every row's default is the search's default, its range is the
 * search's check, and every option row appears in `uci` (with its type and
 * default), in `cformer uci --help` (its flag) and reaches the search when
 * set; the minibatch rule; knobs have no UCI option.
 *
 *     CF_CFORMER_EXE=build/tools/cformer test_engine_search_params */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/search/cf_search.h"
#include "engine/uci/cf_uci.h"
#include "engine/uci/cf_uci_state.h" /* the engine's search, to read its parameters */
#include "tests/cf_test.h"

#define TEXT_MAX (1 << 16)

typedef struct transcript {
  char text[TEXT_MAX];
  size_t used;
} transcript;

static void collect(void *user, const char *line) {
  transcript *tr = user;
  int n = snprintf(tr->text + tr->used, sizeof tr->text - tr->used, "%s\n", line);
  if (n > 0 && tr->used + (size_t)n < sizeof tr->text) tr->used += (size_t)n;
}

/* A UCI engine whose lines go to tr (emptied), searching in the feeding
 * call; NULL (a failed check) when it cannot be made. */
static cf_uci *new_engine(cf_test *t, transcript *tr) {
  tr->used = 0;
  cf_uci *u = NULL;
  cf_uci_config cfg = {.inline_search = true};
  CHECK(cf_uci_create(&cfg, collect, tr, &u, NULL) == CF_OK);
  return u;
}

/* The default as the UCI option shows it. */
static void default_text(const cf_search_param *r, char *out, size_t size) {
  switch (r->kind) {
  case CF_SEARCH_PARAM_FLOAT: snprintf(out, size, "%g", r->def); break;
  case CF_SEARCH_PARAM_INT: snprintf(out, size, "%.0f", r->def); break;
  case CF_SEARCH_PARAM_BOOL: snprintf(out, size, "%s", r->def ? "true" : "false"); break;
  case CF_SEARCH_PARAM_CHOICE: snprintf(out, size, "%s", r->choices[(int)r->def]); break;
  }
}

static const char *uci_type(const cf_search_param *r) {
  static const char *const types[] = {"string", "spin", "check", "combo"};
  return types[r->kind];
}

/* Every row's default is what cf_search_params_default gives, and the
 * defaults pass the check. */
static void test_defaults_from_rows(cf_test *t) {
  cf_search_params p;
  cf_search_params_default(&p);
  CHECK(cf_search_params_check(&p, NULL) == CF_OK);
  for (int i = 0; i < CF_SEARCH_PARAM_COUNT; i++) {
    const cf_search_param *r = cf_search_param_at(i);
    CHECK(r != NULL && r->field && r->help && r->help[0]);
    CHECK(r->def >= r->min && r->def <= r->max);
    /* floats are stored as float: compare at float precision */
    CHECK_NEAR(r->get(&p), r->kind == CF_SEARCH_PARAM_FLOAT ? (double)(float)r->def : r->def, 0);
  }
  CHECK(cf_search_param_at(CF_SEARCH_PARAM_COUNT) == NULL);
  CHECK(cf_search_param_at(-1) == NULL);
  /* Lc0's defaults, read through the fields the search uses */
  CHECK_NEAR(p.cpuct, 1.745f, 0);
  CHECK_NEAR(p.policy_temperature, 1.359f, 0);
  CHECK(!p.fpu_absolute && p.two_fold_draws && !p.fill_batches);
  CHECK_INT_EQ(p.nn_cache_size, 2000000);
}

/* Each row's range is the check: min and max pass, just outside fails
 * naming the option (or the knob's field). */
static void test_ranges_are_the_check(cf_test *t) {
  for (int i = 0; i < CF_SEARCH_PARAM_COUNT; i++) {
    const cf_search_param *r = cf_search_param_at(i);
    cf_search_params p;
    cf_search_params_default(&p);
    r->set(&p, r->min);
    CHECK(cf_search_params_check(&p, NULL) == CF_OK);
    r->set(&p, r->max);
    CHECK(cf_search_params_check(&p, NULL) == CF_OK);
    if (r->kind == CF_SEARCH_PARAM_BOOL || r->kind == CF_SEARCH_PARAM_CHOICE) continue;
    const double below = r->kind == CF_SEARCH_PARAM_INT ? r->min - 1 : r->min - 0.5;
    r->set(&p, below);
    cf_error err = {0};
    CHECK(cf_search_params_check(&p, &err) == CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, r->name ? r->name : r->field);
    cf_search *s = NULL;
    CHECK(cf_search_create(&p, &s, NULL) == CF_ERR_ARG && s == NULL);
  }
}

/* Every option row is in `uci` with its type and default, and setting it
 * to its max reaches the search's parameters; knobs are not options. */
static void test_rows_in_uci(cf_test *t) {
  static transcript tr;
  cf_uci *u = new_engine(t, &tr);
  if (!u) return;
  cf_uci_feed(u, "uci");
  for (int i = 0; i < CF_SEARCH_PARAM_COUNT; i++) {
    const cf_search_param *r = cf_search_param_at(i);
    if (i >= CF_SEARCH_OPTION_COUNT) {
      CHECK(r->name == NULL && r->flag == NULL);
      continue;
    }
    char def[64], line[256], value[64];
    default_text(r, def, sizeof def);
    snprintf(line, sizeof line, "option name %s type %s default %s", r->name, uci_type(r), def);
    CHECK_STR_CONTAINS(tr.text, line);
    cf_uci_option_id id;
    CHECK(cf_uci_option_by_name(r->name, &id) && id == (cf_uci_option_id)(CF_OPT_SEARCH_FIRST + i));
    CHECK(cf_uci_option_by_flag(r->flag, &id) && id == (cf_uci_option_id)(CF_OPT_SEARCH_FIRST + i));
    /* set to its max (the last choice, true) through setoption */
    if (r->kind == CF_SEARCH_PARAM_CHOICE) snprintf(value, sizeof value, "%s", r->choices[(int)r->max]);
    else if (r->kind == CF_SEARCH_PARAM_BOOL) snprintf(value, sizeof value, "%s", r->def ? "false" : "true");
    else snprintf(value, sizeof value, "%.17g", r->max);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "setoption name %s value %s", r->name, value);
    const size_t before = tr.used;
    cf_uci_feed(u, cmd);
    CHECK_INT_EQ((long)tr.used, (long)before); /* no error line */
    /* the engine's search now runs with it, and the option reads it back */
    const double want = r->kind == CF_SEARCH_PARAM_BOOL ? !r->def : r->max;
    const double got = r->get(cf_search_get_params(u->search));
    CHECK_NEAR(got, r->kind == CF_SEARCH_PARAM_FLOAT ? (double)(float)want : want, 0);
    char text[64];
    if (r->kind == CF_SEARCH_PARAM_FLOAT) snprintf(text, sizeof text, "%g", r->max);
    else if (r->kind == CF_SEARCH_PARAM_INT) snprintf(text, sizeof text, "%.0f", r->max);
    else snprintf(text, sizeof text, "%s", value);
    CHECK_STR_EQ(cf_uci_get_option(u, id), text);
    /* out of range through setoption: an error line, the value kept */
    if (r->kind == CF_SEARCH_PARAM_FLOAT || r->kind == CF_SEARCH_PARAM_INT) {
      char kept[1024];
      snprintf(kept, sizeof kept, "%s", cf_uci_get_option(u, id));
      snprintf(cmd, sizeof cmd, "setoption name %s value %.17g", r->name, r->max + 1);
      cf_uci_feed(u, cmd);
      CHECK_STR_CONTAINS(tr.text + before, "info string error: option");
      CHECK_STR_EQ(cf_uci_get_option(u, id), kept);
    }
  }
  /* the count of option lines is the engine's plus the search's */
  int options = 0;
  for (const char *p = tr.text; (p = strstr(p, "option name ")) != NULL; p++) options++;
  CHECK(options >= CF_OPT_COUNT);
  cf_uci_free(u);
}

/* Every option row's flag is in `cformer uci --help`, with its name and
 * default. */
static void test_rows_in_help(cf_test *t) {
  const char *exe = getenv("CF_CFORMER_EXE");
  if (!exe || !*exe) {
    CF_SKIP("CF_CFORMER_EXE not set (meson sets it)");
    return;
  }
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' uci --help", exe);
  FILE *f = popen(cmd, "r");
  CHECK(f != NULL);
  if (!f) return;
  static char help[TEXT_MAX];
  size_t n = fread(help, 1, sizeof help - 1, f);
  help[n] = 0;
  CHECK_INT_EQ(pclose(f), 0);
  for (int i = 0; i < CF_SEARCH_OPTION_COUNT; i++) {
    const cf_search_param *r = cf_search_param_at(i);
    char flag[128], def[64], named[256];
    snprintf(flag, sizeof flag, "  --%s ", r->flag);
    CHECK_STR_CONTAINS(help, flag);
    default_text(r, def, sizeof def);
    snprintf(named, sizeof named, "%s: ", r->name);
    CHECK_STR_CONTAINS(help, named);
    snprintf(named, sizeof named, "(default %s)", def);
    CHECK_STR_CONTAINS(strstr(help, flag) ? strstr(help, flag) : help, named);
  }
}

/* MinibatchSize 0 is the backend's; anything else is itself. */
static void test_minibatch_rule(cf_test *t) {
  cf_search_params p;
  cf_search_params_default(&p);
  CHECK_INT_EQ(cf_search_minibatch(&p, "ref"), cf_search_default_minibatch("ref"));
  CHECK_INT_EQ(cf_search_minibatch(&p, "no-such-backend"), 32);
  p.minibatch_size = 7;
  CHECK_INT_EQ(cf_search_minibatch(&p, "ref"), 7);
  CHECK_INT_EQ(cf_search_minibatch(&p, NULL), 7);
}

/* Threads: batches in flight on a device backend (0 = 2, Lc0's automatic),
 * lanes on the CPU (the search keeps one batch in flight). */
static void test_threads_meaning(cf_test *t) {
  static transcript tr;
  cf_uci *u = new_engine(t, &tr);
  if (!u) return;
  static const struct {
    const char *backend, *threads;
    int in_flight;
  } cases[] = {{"sim", "3", 3}, {"sim", "0", 2}, {"sim", "1", 1}, {"sim", "128", 16},
               {"ref", "2", 1}, {"ref", "0", 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    CHECK(cf_uci_set_option(u, CF_OPT_BACKEND, cases[i].backend, NULL) == CF_OK);
    CHECK(cf_uci_set_option(u, CF_OPT_THREADS, cases[i].threads, NULL) == CF_OK);
    CHECK_INT_EQ(cf_search_get_params(u->search)->batches_in_flight, cases[i].in_flight);
  }
  /* the order of the two settings does not matter */
  CHECK(cf_uci_set_option(u, CF_OPT_THREADS, "4", NULL) == CF_OK);
  CHECK(cf_uci_set_option(u, CF_OPT_BACKEND, "sim", NULL) == CF_OK);
  CHECK_INT_EQ(cf_search_get_params(u->search)->batches_in_flight, 4);
  /* and a search on the simulated device answers with a legal move */
  tr.used = 0;
  cf_uci_feed(u, "position startpos");
  cf_uci_feed(u, "go nodes 200");
  CHECK_STR_CONTAINS(tr.text, "bestmove ");
  CHECK(strstr(tr.text, "error") == NULL);
  cf_uci_free(u);
}

CF_TEST_MAIN(test_threads_meaning, test_defaults_from_rows, test_ranges_are_the_check, test_rows_in_uci,
             test_rows_in_help, test_minibatch_rule)
