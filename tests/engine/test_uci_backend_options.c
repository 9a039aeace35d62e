/* test_uci_backend_options.c: BackendOptions at the UCI boundary. The
 * value is parsed once into the option list the network and the backend
 * read their keys from (common/cf_kv.h); at isready an unknown key is one
 * error line naming the backend and the keys it reads, a malformed item or
 * a refused value one line naming the item (and the valid values), and the
 * engine keeps running. */
#include "common/cf_kv.h"
#include "engine/uci/cf_uci.h"
#include "engine/uci/cf_uci_state.h"
#include "tests/cf_test.h"
#include "tests/engine/uci_transcript.h"

static transcript tr; /* large: not on the stack */

/* The reference backend's keys, after the network's and every backend's. */
#define REF_READS                                                                                \
  "(it reads: batch_size, lanes, policy_head, value_head, precision, f32_roles, fault_alloc, " \
  "fault_op, threads, fail_after, create_delay_ms)"

static void test_backend_options(cf_test *t) {
  uci_transcript_init(&tr);
  cf_uci_config cfg = {.max_batch = 8};
  cf_uci *u = NULL;
  cf_error err = {0};
  if (!CHECK_INT_EQ(cf_uci_create(&cfg, uci_transcript_collect, &tr, &u, &err), CF_OK)) return;
  const char *o = uci_transcript_run(u, &tr, "setoption name Backend value ref\nisready");
  CHECK_STR_CONTAINS(o, "loaded network");
  /* An unknown key: one line, naming the backend and what it reads. */
  o = uci_transcript_run(u, &tr, "setoption name BackendOptions value foo=1\nisready");
  CHECK_INT_EQ(uci_count(o, "info string error"), 1);
  CHECK_STR_CONTAINS(o, "info string error: <built in>: backend 'ref': unknown option 'foo=1' "
                        REF_READS "\n");
  CHECK_STR_CONTAINS(o, "readyok");
  o = uci_transcript_run(u, &tr, "isready"); /* said once per setting */
  CHECK_STR_EQ(o, "readyok\n");
  /* Two unknown keys, with Threads' lanes: still one line, both named. */
  o = uci_transcript_run(u, &tr,
                         "setoption name Threads value 2\n"
                         "setoption name BackendOptions value foo=1,threads=1,bar=x\nisready");
  CHECK_INT_EQ(uci_count(o, "info string error"), 1);
  CHECK_STR_CONTAINS(o, "backend 'ref': unknown options 'foo=1', 'bar=x' " REF_READS "\n");
  uci_transcript_run(u, &tr, "setoption name Threads value 1");
  /* A malformed item is refused naming it and the option. */
  o = uci_transcript_run(u, &tr, "setoption name BackendOptions value threads=1,foo\nisready");
  CHECK_INT_EQ(uci_count(o, "info string error"), 1);
  CHECK_STR_CONTAINS(o, "info string error: BackendOptions: option 'foo' is not key=value\n");
  o = uci_transcript_run(u, &tr, "setoption name BackendOptions value =1\nisready");
  CHECK_STR_CONTAINS(o, "info string error: BackendOptions: option '=1' has no key\n");
  /* Values out of range or unknown: refused by name with the valid ones. */
  o = uci_transcript_run(u, &tr, "setoption name BackendOptions value precision=half\nisready");
  CHECK_INT_EQ(uci_count(o, "info string error"), 1);
  CHECK_STR_CONTAINS(o, "info string error: <built in>: backend 'ref': option 'precision=half': "
                        "unknown value (known: f32, bf16, int8, auto)\n");
  o = uci_transcript_run(u, &tr, "setoption name BackendOptions value threads=2\nisready");
  CHECK_STR_CONTAINS(o, "backend 'ref': option 'threads=2' is not an integer in [1, 1]\n");
  o = uci_transcript_run(u, &tr, "setoption name BackendOptions value lanes=65\nisready");
  CHECK_STR_CONTAINS(o, "info string error: <built in>: option 'lanes=65' is not an integer in "
                        "[1, 64]\n");
  o = uci_transcript_run(u, &tr, "setoption name BackendOptions value f32_roles=body\nisready");
  CHECK_STR_CONTAINS(o, "option 'f32_roles=body': unknown name 'body' (valid: embedding, heads, "
                        "joined with '+', or none)");
  /* Valid again: loaded, no error; the network keys and a repeated key
   * (the last wins) are every layer's to read. */
  o = uci_transcript_run(u, &tr,
                         "setoption name BackendOptions value "
                         "threads=1,precision=int8,batch_size=4,precision=f32,lanes=1\nisready");
  CHECK_STR_CONTAINS(o, "loaded network");
  CHECK_INT_EQ(uci_count(o, "info string error"), 0);
  o = uci_transcript_run(u, &tr, "position startpos\ngo nodes 5");
  CHECK_STR_CONTAINS(o, "bestmove ");
  CHECK(!cf_uci_feed(u, "quit"));
  cf_uci_free(u);
}

/* The text is parsed when the option is set (and by create and reset, to
 * the default), not at every net key: the engine holds the list, or why
 * the text does not parse. */
static void test_parsed_when_set(cf_test *t) {
  cf_uci *u = NULL;
  if (!CHECK_INT_EQ(cf_uci_create(NULL, uci_transcript_collect, &tr, &u, NULL), CF_OK)) return;
  CHECK(u->backend_kv != NULL && !cf_kv_has(u->backend_kv, "threads")); /* "": empty */
  CHECK_INT_EQ(cf_uci_set_option(u, CF_OPT_BACKEND_OPTIONS, "threads=1,lanes=2", NULL), CF_OK);
  CHECK(cf_kv_has(u->backend_kv, "threads") && cf_kv_has(u->backend_kv, "lanes"));
  /* Refused at the load, not by setoption: the value is kept. */
  CHECK_INT_EQ(cf_uci_set_option(u, CF_OPT_BACKEND_OPTIONS, "threads=1,foo", NULL), CF_OK);
  CHECK(u->backend_kv == NULL);
  CHECK_STR_CONTAINS(u->backend_kv_err.msg, "option 'foo' is not key=value");
  CHECK_INT_EQ(cf_uci_reset(u, NULL), CF_OK);
  CHECK(u->backend_kv != NULL && !cf_kv_has(u->backend_kv, "threads"));
  cf_uci_free(u);
}

CF_TEST_MAIN(test_backend_options, test_parsed_when_set)
