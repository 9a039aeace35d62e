#include "common/cf_status.h"
#include "tests/cf_test.h"

static void test_error_set_and_prefix(cf_test *t) {
  cf_error err;
  cf_error_clear(&err);
  CHECK_INT_EQ(err.status, CF_OK);
  CHECK_INT_EQ(cf_error_set(&err, CF_ERR_FORMAT, "tensor %s has %d values", "q_w", 7), CF_ERR_FORMAT);
  CHECK_STR_EQ(err.msg, "tensor q_w has 7 values");
  cf_error_prefix(&err, "net.pb.gz");
  CHECK_INT_EQ(err.status, CF_ERR_FORMAT);
  CHECK_STR_EQ(err.msg, "net.pb.gz: tensor q_w has 7 values");
  cf_error_prefix(NULL, "ignored"); /* must not crash */
  /* NULL error records are allowed: the caller wants only the code. */
  CHECK_INT_EQ(cf_error_set(NULL, CF_ERR_IO, "x"), CF_ERR_IO);
}

static void test_status_names(cf_test *t) {
  for (int s = 0; s < CF_STATUS_COUNT; s++) CHECK(cf_status_name((cf_status)s) != NULL);
  CHECK_STR_EQ(cf_status_name(CF_OK), "ok");
  CHECK_STR_EQ(cf_status_name((cf_status)999), "unknown status");
}

CF_TEST_MAIN(test_error_set_and_prefix, test_status_names)
