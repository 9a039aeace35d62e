/* test_backend_options.c: option lists (common/cf_kv.h, whose own test is
 * tests/common/test_kv.c). Every registered backend taking threads=N and
 * rejecting unknown keys with a message naming the key and itself; the
 * network keys (batch_size, lanes, policy_head, value_head) read from the
 * same list; a thread count as lanes=N. */
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "net/cf_net_options.h"
#include "tests/cf_test.h"

static void test_every_backend_checks_options(cf_test *t) {
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    if (d->probe && !d->probe()) continue;
    cf_backend_config cfg = {.max_batch = 4, .options = "threads=1,frobnicate=1"};
    cf_backend *be = NULL;
    cf_error err = {0};
    CHECK_INT_EQ(cf_backend_create(d->name, &cfg, &be, &err), CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "unknown option 'frobnicate=1' (it reads: precision, f32_roles, "
                                "fault_alloc, fault_op, ");
    CHECK_STR_CONTAINS(err.msg, d->name);
    CHECK_STR_CONTAINS(err.msg, "threads");
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

/* The network's keys read from the list, the others left for the backend. */
static void test_net_keys(cf_test *t) {
  cf_net_options o = {.backend = "ref", .max_batch = 4};
  cf_kv *kv = NULL;
  cf_error err = {0};
  if (!CHECK_INT_EQ(cf_kv_parse("threads=2,batch_size=32,policy_head=vanilla+soft,"
                                "value_head=q+st,lanes=3",
                                &kv, &err),
                    CF_OK))
    return;
  CHECK_INT_EQ(cf_net_options_read(kv, &o, &err), CF_OK);
  CHECK_STR_EQ(o.backend, "ref");
  CHECK_INT_EQ(o.max_batch, 32);
  CHECK_INT_EQ(o.lanes, 3);
  CHECK_INT_EQ(o.policy_heads, (1u << CF_POLICY_VANILLA) | (1u << CF_POLICY_SOFT));
  CHECK_INT_EQ(o.value_heads, (1u << CF_VALUE_Q) | (1u << CF_VALUE_ST));
  CHECK_INT_EQ(cf_kv_check_all_read(kv, &err), CF_ERR_ARG); /* threads is the backend's */
  CHECK_STR_CONTAINS(err.msg, "'threads=2' (it reads: batch_size, lanes, policy_head, value_head)");
  cf_kv_free(kv);
  const char *bad[] = {"batch_size=0", "batch_size=", "batch_size=1e3", "policy_head=vanila",
                       "value_head=q+", "policy_head=", "lanes=65"};
  const char *why[] = {"batch_size=0", "batch_size", "batch_size=1e3", "'vanila'", "''", "''",
                       "lanes=65"};
  for (int i = 0; i < 7; i++) {
    if (!CHECK_INT_EQ(cf_kv_parse(bad[i], &kv, &err), CF_OK)) continue;
    CHECK_INT_EQ(cf_net_options_read(kv, &o, &err), CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, why[i]);
    cf_kv_free(kv);
  }
  if (CHECK_INT_EQ(cf_kv_parse("policy_head=nope", &kv, &err), CF_OK)) {
    cf_net_options_read(kv, &o, &err);
    CHECK_STR_CONTAINS(err.msg, "vanilla, optimistic_st, soft, opponent");
    cf_kv_free(kv);
  }
}

/* A thread count is lanes=N on the list unless it names lanes or threads. */
static void test_default_lanes(cf_test *t) {
  const char *given[] = {NULL, "a=1", "a=1", "threads=2", "a=1,lanes=3", "xlanes=3"};
  const int threads[] = {4, 1, 4, 4, 4, 4};
  const char *want[] = {"lanes=4", "a=1", "lanes=4,a=1", "threads=2", "a=1,lanes=3",
                        "lanes=4,xlanes=3"};
  for (int i = 0; i < 6; i++) {
    cf_kv *kv = NULL;
    cf_error err = {0};
    if (!CHECK_INT_EQ(cf_kv_parse(given[i], &kv, &err), CF_OK)) continue;
    CHECK_INT_EQ(cf_net_options_default_lanes(kv, threads[i], &err), CF_OK);
    char *text = cf_kv_render(kv);
    if (CHECK(text)) CHECK_STR_EQ(text, want[i]);
    free(text);
    cf_kv_free(kv);
  }
}

CF_TEST_MAIN(test_every_backend_checks_options, test_net_keys, test_default_lanes)
