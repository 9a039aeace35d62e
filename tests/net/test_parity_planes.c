/* test_parity_planes.c: the network math alone. Every parity case is fed
 * its expected input planes (so the input encoder is not involved) and the
 * expected legal moves, all cases of a net in one batch; every output must
 * match the truth within 1e-4 on the reference backend. (test_parity.c runs
 * the whole path, batch 1 and full batch; this one tells a wrong encoder
 * from wrong math when that fails.) */
#include <stdlib.h>
#include <string.h>

#include "net/cf_net.h"
#include "tests/cf_test.h"
#include "tests/net/cf_parity.h"
#include "tests/net/cf_parity_check.h"

static void run_net(cf_test *t, const char *name, int batch) {
  char msg[512];
  cf_parity_planes_run r;
  cf_net_options opts = {.backend = "ref"};
  if (!CHECK(cf_parity_planes_run_net(name, opts, batch, &r, msg, sizeof msg))) {
    fprintf(stderr, "%s\n", msg);
    cf_parity_planes_run_free(&r);
    return;
  }
  char tag[96];
  snprintf(tag, sizeof tag, "%s (planes input, batch %d)", name, r.step);
  for (int i = 0; i < r.n; i++)
    cf_parity_check_output(t, tag, &r.cases[i], r.net, &r.out[i], r.prep[i].move_case,
                           r.cases[i].n_legal);
  cf_parity_planes_run_free(&r);
}

static void test_planes_input_full_batch(cf_test *t) {
  for (int i = 0; i < cf_parity_net_count; i++) run_net(t, cf_parity_nets[i], 0);
  printf("largest deviation from the truth: %.3g\n", cf_parity_max_err);
}

/* The case files hold what the README says. */
static void test_case_files(cf_test *t) {
  const int expected[] = {29, 29, 29, 29, 29, 24}; /* cf-rpe-ln-canonical lacks the no-v2 cases */
  char msg[512];
  for (int i = 0; i < cf_parity_net_count; i++) {
    cf_parity_case *cases;
    int n;
    if (!CHECK(cf_parity_load(cf_parity_dir(), cf_parity_nets[i], &cases, &n, msg, sizeof msg))) {
      fprintf(stderr, "%s\n", msg);
      continue;
    }
    CHECK_INT_EQ(n, expected[i]);
    free(cases);
  }
}

CF_TEST_MAIN(test_case_files, test_planes_input_full_batch)
