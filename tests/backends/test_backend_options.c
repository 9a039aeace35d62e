/* test_backend_options.c: option strings. The shared "key=value" parser;
 * every registered backend taking threads=N and rejecting unknown keys with
 * a message naming the key and itself; the network keys (batch_size,
 * policy_head, value_head) split off before the backend sees the rest. */
#include <string.h>

#include "backends/cf_backend.h"
#include "backends/cf_backend_options.h"
#include "net/cf_net_options.h"
#include "tests/cf_test.h"

static void test_parser(cf_test *t) {
  int threads = 1, batch = 7;
  const cf_backend_int_option known[] = {{"threads", 1, 64, &threads},
                                         {"batch", 1, 1024, &batch}};
  cf_error err = {0};
  CHECK_INT_EQ(cf_backend_options_parse(NULL, known, 2, &err), CF_OK);
  CHECK_INT_EQ(cf_backend_options_parse("", known, 2, &err), CF_OK);
  CHECK_INT_EQ(threads, 1);
  CHECK_INT_EQ(cf_backend_options_parse(",threads=3,,batch=9,", known, 2, &err), CF_OK);
  CHECK_INT_EQ(threads, 3);
  CHECK_INT_EQ(batch, 9);
  const char *bad[] = {"threads=0", "threads=65", "threads=x", "threads=", "threads=2x",
                       "threads=99999999999999999999"};
  for (int i = 0; i < 6; i++) {
    CHECK_INT_EQ(cf_backend_options_parse(bad[i], known, 2, &err), CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "threads");
  }
  CHECK_INT_EQ(threads, 3); /* untouched by the failures */
  CHECK_INT_EQ(cf_backend_options_parse("threads=2,speed=11", known, 2, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "unknown option 'speed=11'");
  CHECK_STR_CONTAINS(err.msg, "threads, batch"); /* lists what is known */
  CHECK_INT_EQ(cf_backend_options_parse("threads", known, 2, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "key=value");
  CHECK_INT_EQ(cf_backend_options_parse("x=1", known, 0, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "none");
}

static void test_every_backend_checks_options(cf_test *t) {
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    if (d->probe && !d->probe()) continue;
    cf_backend_config cfg = {.max_batch = 4, .options = "threads=1,frobnicate=1"};
    cf_backend *be = NULL;
    cf_error err = {0};
    CHECK_INT_EQ(cf_backend_create(d->name, &cfg, &be, &err), CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "frobnicate=1");
    CHECK_STR_CONTAINS(err.msg, d->name);
    cfg.options = "threads=1";
    if (CHECK_INT_EQ(cf_backend_create(d->name, &cfg, &be, &err), CF_OK)) cf_backend_free(be);
    if (strcmp(d->name, "ref") == 0) continue; /* single-threaded */
    cfg.options = "threads=2";
    if (CHECK_INT_EQ(cf_backend_create(d->name, &cfg, &be, &err), CF_OK)) cf_backend_free(be);
    cfg.options = "threads=0";
    CHECK_INT_EQ(cf_backend_create(d->name, &cfg, &be, &err), CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "threads=0");
  }
}

static void test_net_keys_split_off(cf_test *t) {
  cf_net_options in = {.backend = "ref",
                       .max_batch = 4,
                       .backend_options =
                           "threads=2,batch_size=32,policy_head=vanilla+soft,value_head=q+st"},
                 out;
  char rest[64];
  cf_error err = {0};
  CHECK_INT_EQ(cf_net_options_resolve(&in, &out, rest, sizeof rest, &err), CF_OK);
  CHECK_STR_EQ(out.backend, "ref");
  CHECK_INT_EQ(out.max_batch, 32);
  CHECK_INT_EQ(out.policy_heads, (1u << CF_POLICY_VANILLA) | (1u << CF_POLICY_SOFT));
  CHECK_INT_EQ(out.value_heads, (1u << CF_VALUE_Q) | (1u << CF_VALUE_ST));
  CHECK_STR_EQ(out.backend_options, "threads=2");
  in.backend_options = "batch_size=8";
  CHECK_INT_EQ(cf_net_options_resolve(&in, &out, rest, sizeof rest, &err), CF_OK);
  CHECK(out.backend_options == NULL);
  CHECK_INT_EQ(out.max_batch, 8);
  in.backend_options = "a=1,b=2,c=3";
  CHECK_INT_EQ(cf_net_options_resolve(&in, &out, rest, sizeof rest, &err), CF_OK);
  CHECK_STR_EQ(out.backend_options, "a=1,b=2,c=3"); /* for the backend to reject */
  CHECK_INT_EQ(cf_net_options_resolve(&in, &out, rest, 6, &err), CF_ERR_ARG);
  const char *bad[] = {"batch_size=0", "batch_size=", "batch_size=1e3", "policy_head=vanila",
                       "value_head=q+", "policy_head="};
  const char *why[] = {"batch_size=0", "batch_size", "batch_size=1e3", "'vanila'", "''", "''"};
  for (int i = 0; i < 6; i++) {
    in.backend_options = bad[i];
    CHECK_INT_EQ(cf_net_options_resolve(&in, &out, rest, sizeof rest, &err), CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, why[i]);
  }
  in.backend_options = "policy_head=nope";
  cf_net_options_resolve(&in, &out, rest, sizeof rest, &err);
  CHECK_STR_CONTAINS(err.msg, "vanilla, optimistic_st, soft, opponent");
}

CF_TEST_MAIN(test_parser, test_every_backend_checks_options, test_net_keys_split_off)
