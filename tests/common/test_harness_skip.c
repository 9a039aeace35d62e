/* test_harness_skip.c: cf_test.h's skips are real skips. A test that calls
 * CF_SKIP is listed with its reason, does not count as passed or as "made no
 * checks", and an executable whose every test skipped exits 77 (meson's
 * SKIP); one skip beside a pass exits 0, and a failure still fails. */
#include <stdio.h>

#include "cf_test.h"

static void skips(cf_test *t) {
  CF_SKIP("needs a device this machine lacks");
}

static void passes(cf_test *t) {
  CHECK(1 + 1 == 2);
}

static void fails(cf_test *t) {
  cf_test_report(t, 0, __FILE__, __LINE__, "a planted failure (expected)");
}

static void checks_then_skips(cf_test *t) {
  CHECK(2 > 1);
  CF_SKIP("found out after a check");
}

static void fails_then_skips(cf_test *t) {
  fails(t);
  CF_SKIP("a skip does not hide a failure");
}

static int run(const cf_test_fn *fns, const char *const *names, int n) {
  char *argv[] = {"harness", NULL};
  return cf_test_run(names, fns, n, 1, argv);
}

static void test_all_skipped_exits_77(cf_test *t) {
  const cf_test_fn fns[] = {skips, checks_then_skips};
  const char *names[] = {"skips", "checks_then_skips"};
  CHECK_INT_EQ(run(fns, names, 2), 77);
}

static void test_skip_beside_pass_exits_0(cf_test *t) {
  const cf_test_fn fns[] = {skips, passes};
  const char *names[] = {"skips", "passes"};
  CHECK_INT_EQ(run(fns, names, 2), 0);
}

static void test_failure_wins_over_skip(cf_test *t) {
  const cf_test_fn a[] = {skips, fails};
  const char *an[] = {"skips", "fails"};
  CHECK_INT_EQ(run(a, an, 2), 1);
  const cf_test_fn b[] = {fails_then_skips};
  const char *bn[] = {"fails_then_skips"};
  CHECK_INT_EQ(run(b, bn, 1), 1);
}

static void no_checks(cf_test *t) {
  (void)t;
}

static void test_no_checks_still_fails(cf_test *t) {
  const cf_test_fn fns[] = {no_checks};
  const char *names[] = {"no_checks"};
  CHECK_INT_EQ(run(fns, names, 1), 1);
}

CF_TEST_MAIN(test_all_skipped_exits_77, test_skip_beside_pass_exits_0, test_failure_wins_over_skip,
             test_no_checks_still_fails)
