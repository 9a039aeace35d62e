/* test_fuzz_backend.c: the fuzz target's backend (fuzz_backend.h) joins
 * the registry only when registered, by name and never as the default;
 * the tiny net loads on it through the UCI Backend option, and a search on
 * it repeats itself exactly and depends on the position. */
#include <stdio.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "engine/uci/cf_uci.h"
#include "fuzz_backend.h"
#include "tests/cf_test.h"
#include "tests/engine/uci_transcript.h"

#ifndef CF_TEST_TINY_NET
#error "CF_TEST_TINY_NET: the path of tests/engine/fuzz/tiny.pb.gz (meson passes it)"
#endif

static transcript tr;

/* The search's result in out without its timing: the last info line's
 * score and pv, and the bestmove line. */
static void result_of(const char *out, char *buf, size_t size) {
  const char *last = NULL;
  for (const char *p = strstr(out, "info depth"); p; p = strstr(p + 1, "info depth")) last = p;
  const char *s = last ? strstr(last, " score ") : NULL, *e = s ? strstr(s, " nps ") : NULL;
  const char *pv = e ? strstr(e, " pv ") : NULL, *pve = pv ? strchr(pv, '\n') : NULL;
  const char *b = strstr(out, "bestmove ");
  const char *be = b ? strchr(b, '\n') : NULL;
  snprintf(buf, size, "%.*s%.*s | %.*s", s && e ? (int)(e - s) : 0, s ? s : "",
           pv && pve ? (int)(pve - pv) : 0, pv ? pv : "", b && be ? (int)(be - b) : 0,
           b ? b : "");
}

static void test_registry(cf_test *t) {
  CHECK(cf_backend_find(CF_FUZZ_BACKEND) == NULL);
  const int before = cf_backend_count();
  const cf_backend_desc *d = cf_fuzz_backend_register();
  CHECK(d->priority < 0);
  CHECK(cf_backend_count() == before + 1);
  CHECK(cf_backend_find(CF_FUZZ_BACKEND) == d);
  CHECK(cf_backend_default() != d);
  /* A backend that is not a test double is not taken. */
  cf_backend_set_test_double(cf_backend_at(0));
  CHECK(cf_backend_count() == before);
  cf_fuzz_backend_register();
}

static void test_search_on_it(cf_test *t) {
  uci_transcript_init(&tr);
  cf_uci_config cfg = {.search_dirs = NULL, .max_batch = 4};
  cf_uci *u = NULL;
  CHECK(cf_uci_create(&cfg, uci_transcript_collect, &tr, &u, NULL) == CF_OK);
  if (!u) return;
  const char *o = uci_transcript_run(u, &tr, "uci");
  CHECK_STR_CONTAINS(o, " var " CF_FUZZ_BACKEND);
  o = uci_transcript_run(u, &tr,
                         "setoption name WeightsFile value " CF_TEST_TINY_NET "\n"
                         "setoption name Backend value " CF_FUZZ_BACKEND "\nisready");
  CHECK_STR_CONTAINS(o, "on " CF_FUZZ_BACKEND "\n");
  CHECK(strstr(o, "error") == NULL);
  char first[256], again[256], other[256];
  result_of(uci_transcript_run(u, &tr, "go nodes 16"), first, sizeof first);
  result_of(uci_transcript_run(u, &tr, "ucinewgame\ngo nodes 16"), again, sizeof again);
  result_of(uci_transcript_run(u, &tr, "ucinewgame\nposition startpos moves g1f3 b8c6\ngo nodes 16"),
            other, sizeof other);
  fprintf(stderr, "start: %s\nagain: %s\nafter Nf3 Nc6: %s\n", first, again, other);
  CHECK(strstr(first, " score ") != NULL && strstr(first, "bestmove ") != NULL);
  CHECK_STR_EQ(first, again);
  CHECK(strcmp(first, other) != 0);
  cf_uci_free(u);
}

CF_TEST_MAIN(test_registry, test_search_on_it)
