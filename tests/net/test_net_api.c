/* test_net_api.c: cf_net's contract beyond the numbers: option and request
 * errors name what is wrong, batches larger than max_batch run in passes,
 * and a position's outputs do not depend on its batch or neighbours. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "net/cf_net.h"
#include "tests/cf_test.h"
#include "tests/net/cf_parity.h"
#include "tests/net/cf_parity_check.h"
#include "tests/net/cf_parity_game.h"

static cf_weights *load(cf_test *t, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.pb.gz", cf_parity_dir(), name);
  cf_weights *w = NULL;
  cf_error err = {0};
  if (!CHECK(cf_weights_load_file(path, NULL, &w, &err) == CF_OK)) fprintf(stderr, "%s\n", err.msg);
  return w;
}

static void test_create_errors(cf_test *t) {
  cf_weights *w = load(t, "lc0-map-classic");
  if (!w) return;
  cf_net *net = (cf_net *)1;
  cf_error err = {0};
  cf_net_options o = {.backend = "no-such-backend"};
  CHECK_INT_EQ(cf_net_create(w, &o, &net, &err), CF_ERR_ARG);
  CHECK(net == NULL);
  CHECK_STR_CONTAINS(err.msg, "no-such-backend");
  o = (cf_net_options){.policy_heads = 1u << CF_POLICY_SOFT};
  CHECK_INT_EQ(cf_net_create(w, &o, &net, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "soft");
  o = (cf_net_options){.value_heads = 1u << CF_VALUE_ST};
  CHECK_INT_EQ(cf_net_create(w, &o, &net, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "st");
  o = (cf_net_options){.backend_options = "fast=1"};
  CHECK(cf_net_create(w, &o, &net, &err) != CF_OK);
  CHECK_STR_CONTAINS(err.msg, "fast=1");
  /* Refused once, when every reader (the net, cf_backend_create, the fault
   * hook, the backend) has run, naming the backend and the keys they read. */
  o = (cf_net_options){.backend = "ref", .backend_options = "threads=1,fast=1"};
  CHECK_INT_EQ(cf_net_create(w, &o, &net, &err), CF_ERR_ARG);
  CHECK_STR_EQ(err.msg, "backend 'ref': unknown option 'fast=1' (it reads: batch_size, lanes, "
                        "policy_head, value_head, precision, f32_roles, fault_alloc, fault_op, "
                        "threads, fail_after, create_delay_ms)");
  /* A list parsed by the caller reads the same and is left as it was. */
  cf_kv *kv = NULL;
  if (CHECK_INT_EQ(cf_kv_parse("fast=1,lanes=2", &kv, &err), CF_OK)) {
    o = (cf_net_options){.backend = "ref", .backend_kv = kv, .backend_options = "ignored=1"};
    CHECK_INT_EQ(cf_net_create(w, &o, &net, &err), CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "backend 'ref': unknown option 'fast=1' (it reads: ");
    CHECK_INT_EQ(cf_kv_check_all_read(kv, &err), CF_ERR_ARG); /* nothing read on the caller's */
    cf_kv_free(kv);
  }
  o = (cf_net_options){.policy_heads = 1u << 7};
  CHECK_INT_EQ(cf_net_create(w, &o, &net, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "policy head mask");
  o = (cf_net_options){.history_fill = (cf_history_fill)9};
  CHECK_INT_EQ(cf_net_create(w, &o, &net, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "history fill");
  const char *bad_lanes[] = {"lanes=0", "lanes=65", "lanes=x", "lanes="};
  for (int i = 0; i < 4; i++) {
    o = (cf_net_options){.backend_options = bad_lanes[i]};
    CHECK_INT_EQ(cf_net_create(w, &o, &net, &err), CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "lanes");
  }
  /* A lane whose backend fails reports its error (the reference backend's
   * fault injection: every sync fails). */
  o = (cf_net_options){.backend = "ref", .max_batch = 8, .backend_options = "lanes=2,fail_after=0"};
  CHECK(cf_net_create(w, &o, &net, &err) == CF_OK);
  if (net) {
    CHECK_INT_EQ(cf_net_get_info(net)->lanes, 2);
    cf_net_board start;
    cf_net_board_startpos(&start);
    cf_net_position pos;
    cf_net_position_init(&pos, w->arch.input_format, &start);
    cf_net_request req[8];
    cf_net_output outs[8];
    memset(outs, 0, sizeof outs);
    for (int i = 0; i < 8; i++) req[i] = (cf_net_request){.position = &pos};
    CHECK(cf_net_eval(net, 8, req, outs, &err) != CF_OK);
    CHECK(err.msg[0] != 0);
    cf_net_free(net);
  }
  w->arch.input_format = 6;
  CHECK_INT_EQ(cf_net_create(w, NULL, &net, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "input format 6");
  w->arch.input_format = 1;
  CHECK(cf_net_create(w, NULL, &net, &err) == CF_OK); /* defaults */
  const cf_net_info *info = cf_net_get_info(net);
  CHECK_STR_EQ(info->backend, cf_backend_default()->name);
  CHECK_INT_EQ(info->max_batch, 1);
  CHECK_INT_EQ(info->policy_heads, 1u << CF_POLICY_VANILLA);
  CHECK_INT_EQ(info->value_heads, 1u << CF_VALUE_WINNER);
  CHECK(!info->has_moves_left);
  cf_net_free(net);
  cf_net_free(NULL);
  cf_weights_free(w);
}

static void test_request_errors(cf_test *t) {
  cf_weights *w = load(t, "cf-rpe-rms");
  if (!w) return;
  cf_net *net = NULL;
  cf_error err = {0};
  if (!CHECK(cf_net_create(w, NULL, &net, &err) == CF_OK)) {
    cf_weights_free(w);
    return;
  }
  cf_weights_free(w);
  cf_net_board b;
  cf_net_board_startpos(&b);
  cf_net_position pos;
  cf_net_position_init(&pos, 4, &b); /* built for another input format */
  float logits[4];
  cf_net_request req = {.position = &pos};
  cf_net_output out = {0};
  CHECK_INT_EQ(cf_net_eval(net, 1, &req, &out, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "input format 4");
  cf_net_position_init(&pos, 1, &b);
  out.policy[CF_POLICY_SOFT] = logits; /* the net has it, but it is not computed */
  CHECK_INT_EQ(cf_net_eval(net, 1, &req, &out, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "soft");
  out.policy[CF_POLICY_SOFT] = NULL;
  req.position = NULL;
  CHECK_INT_EQ(cf_net_eval(net, 1, &req, &out, &err), CF_ERR_ARG);
  req.position = &pos;
  req.n_moves = 2; /* moves missing */
  CHECK_INT_EQ(cf_net_eval(net, 1, &req, &out, &err), CF_ERR_ARG);
  req.n_moves = 0;
  CHECK_INT_EQ(cf_net_eval(net, 1, &req, &out, &err), CF_OK);
  CHECK(out.wdl[0] > 0 && out.wdl[1] > 0 && out.wdl[2] > 0);
  CHECK_NEAR(out.wdl[0] + out.wdl[1] + out.wdl[2], 1.0, 1e-6);
  CHECK_INT_EQ(cf_net_eval(net, 0, NULL, NULL, &err), CF_OK);
  cf_net_free(net);
}

/* Outputs of 12 parity positions, evaluated one by one, in passes of 5
 * (max_batch 5, 12 positions in one call) and in one batch, are identical:
 * nothing leaks between positions of a batch. */
static void test_batch_independence(cf_test *t) {
  const char *name = "lc0-smolgen-relu2";
  char msg[512];
  cf_parity_case *cases;
  int n;
  if (!CHECK(cf_parity_load(cf_parity_dir(), name, &cases, &n, msg, sizeof msg))) return;
  if (n > 12) n = 12;
  cf_parity_game *games = calloc((size_t)n, sizeof *games);
  cf_net_request *req = calloc((size_t)n, sizeof *req);
  cf_net_output *out[7] = {NULL};
  float(*logits)[3][CF_PARITY_MAX_MOVES] = calloc((size_t)n, sizeof *logits);
  float(*lane_logits)[4][CF_PARITY_MAX_MOVES] = calloc((size_t)n, sizeof *lane_logits);
  for (int k = 0; k < 3; k++) out[k] = calloc((size_t)n, sizeof *out[k]);
  for (int i = 0; i < n; i++) {
    CHECK(cf_parity_game_build(&cases[i], 4, &games[i], msg, sizeof msg));
    req[i] = (cf_net_request){
        .position = &games[i].position, .moves = games[i].moves, .n_moves = games[i].n_moves};
    for (int k = 0; k < 3; k++) out[k][i].policy[CF_POLICY_VANILLA] = logits[i][k];
  }
  /* The same through evaluation lanes (net/cf_net_lanes.h): 12 positions
   * split 6 + 6, 4 + 4 + 4 (five lanes, but at least 4 positions each), and
   * passes of 8 (4 + 4) and 4 (one lane). */
  enum { CONFIGS = 7 };
  const int batches[CONFIGS] = {1, 5, 64, 64, 12, 12, 8};
  const char *lanes[CONFIGS] = {NULL, NULL, NULL, "lanes=2", "lanes=3", "lanes=5", "lanes=2"};
  for (int k = 3; k < CONFIGS; k++) {
    out[k] = calloc((size_t)n, sizeof *out[k]);
    for (int i = 0; i < n; i++) out[k][i].policy[CF_POLICY_VANILLA] = lane_logits[i][k - 3];
  }
  for (int k = 0; k < CONFIGS; k++) {
    cf_weights *w = load(t, name);
    if (!w) break;
    /* Bitwise equality across batch sizes is a property of the reference
     * backend (BLAS kernels may block sums differently per matrix size). */
    cf_net_options o = {.backend = "ref", .max_batch = batches[k], .backend_options = lanes[k]};
    cf_net *net = NULL;
    cf_error err = {0};
    CHECK(cf_net_create(w, &o, &net, &err) == CF_OK);
    cf_weights_free(w);
    if (!net) break;
    if (k == 0)
      for (int i = 0; i < n; i++) CHECK(cf_net_eval(net, 1, &req[i], &out[k][i], &err) == CF_OK);
    else
      CHECK(cf_net_eval(net, n, req, out[k], &err) == CF_OK);
    cf_net_free(net);
  }
  int identical = 0;
  for (int i = 0; i < n; i++)
    for (int k = 1; k < CONFIGS; k++) {
      const float *pk = out[k][i].policy[CF_POLICY_VANILLA];
      bool same = memcmp(out[0][i].wdl, out[k][i].wdl, sizeof out[0][i].wdl) == 0 &&
                  out[0][i].moves_left == out[k][i].moves_left &&
                  memcmp(logits[i][0], pk, sizeof(float) * (size_t)games[i].n_moves) == 0;
      identical += same;
    }
  CHECK_INT_EQ(identical, (CONFIGS - 1) * n);
  for (int k = 0; k < CONFIGS; k++) free(out[k]);
  free(logits);
  free(lane_logits);
  free(req);
  free(games);
  free(cases);
}

CF_TEST_MAIN(test_create_errors, test_request_errors, test_batch_independence)
