/* api_test.h: what the libcformer tests share (after tests/cf_test.h). */
#ifndef API_TEST_H
#define API_TEST_H

#include "cformer.h"
#include "tests/cf_test.h"

/* The call fails with status want and a message containing needle; the
 * call sees `err`, a cformer_error * set up here. */
#define EXPECT_ERR(call, want, needle)                            \
  do {                                                            \
    cformer_error e_ = {.status = CFORMER_OK, .message = "unset"}; \
    cformer_error *err = &e_;                                     \
    CHECK_INT_EQ((call), (want));                                 \
    CHECK_INT_EQ(e_.status, (want));                              \
    CHECK_STR_CONTAINS(e_.message, (needle));                     \
  } while (0)

#endif /* API_TEST_H */
