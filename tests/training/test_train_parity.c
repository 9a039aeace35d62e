/* test_train_parity.c: a net exported by training/export.py, imported with
 * `netconv import`, computes in cformer what training/model.py computes.
 *
 * The fixtures (training/parity/, written by make_parity.py) are small random
 * model.py nets as safetensors, one per position encoding (cf-tiny-2x32 with
 * RPE, cf-tiny-map-2x32 in the lc0-map layout: 176-wide embedding with Lc0's
 * positional table, LayerNorm 1e-6, q/k/v biases), plus their float64
 * PyTorch outputs on the parity positions. This test imports it with the real netconv binary (env
 * CF_NETCONV), replays every position with chess/ and the engine glue, and
 * checks every legal move's logit and W/D/L within the parity tolerance. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/cf_net.h"
#include "tests/cf_test.h"
#include "tests/net/cf_parity.h"
#include "tests/net/cf_parity_check.h"
#include "tests/net/cf_parity_game.h"

typedef struct prepared {
  cf_parity_game game;
  cf_parity_out buf;
} prepared;

/* Imports fixture `net` into tmp/<net>.pb.gz; returns false on failure. */
static bool import_fixture(cf_test *t, const char *dir, const char *net, const char *tmp,
                           char *out, size_t size) {
  const char *netconv = getenv("CF_NETCONV");
  if (!CHECK(netconv && *netconv)) return false;
  snprintf(out, size, "%s/%s.pb.gz", tmp, net);
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' import '%s/%s.safetensors' --config '%s/%s.json' -o '%s' >'%s/log' 2>&1",
           netconv, dir, net, dir, net, out, tmp);
  int st = system(cmd);
  if (!CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
    snprintf(cmd, sizeof cmd, "cat '%s/log' >&2", tmp);
    if (system(cmd) != 0) fprintf(stderr, "netconv import failed\n");
    return false;
  }
  return true;
}

static void run(cf_test *t, const char *name, int batch) {
  const char *dir = getenv("CF_TRAINING_PARITY");
  if (!CHECK(dir && *dir)) return;
  char tmp[] = "/tmp/cf_train_parity_XXXXXX";
  if (!CHECK(mkdtemp(tmp) != NULL)) return;
  char path[512], msg[512];
  cf_parity_case *cases = NULL;
  int n = 0;
  cf_weights *w = NULL;
  cf_net *net = NULL;
  cf_error err = {0};
  if (!import_fixture(t, dir, name, tmp, path, sizeof path)) goto done;
  if (!CHECK(cf_parity_load(dir, name, &cases, &n, msg, sizeof msg))) {
    fprintf(stderr, "%s\n", msg);
    goto done;
  }
  CHECK(n >= 20);
  if (!CHECK(cf_weights_load_file(path, NULL, &w, &err) == CF_OK)) {
    fprintf(stderr, "%s\n", err.msg);
    goto done;
  }
  int step = batch > 0 ? batch : n;
  cf_net_options opts = {.backend = "ref", .max_batch = step};
  cf_status st = cf_net_create(w, &opts, &net, &err);
  if (!CHECK(st == CF_OK)) {
    fprintf(stderr, "%s\n", err.msg);
    goto done;
  }
  CHECK_INT_EQ(cf_net_get_info(net)->input_format, 4);
  prepared *prep = calloc((size_t)n, sizeof *prep);
  cf_net_request *req = calloc((size_t)n, sizeof *req);
  cf_net_output *out = calloc((size_t)n, sizeof *out);
  bool ok = prep && req && out;
  for (int i = 0; ok && i < n; i++) {
    ok = CHECK(cf_parity_game_build(&cases[i], 4, &prep[i].game, msg, sizeof msg));
    if (!ok) fprintf(stderr, "%s\n", msg);
    req[i] = (cf_net_request){.position = &prep[i].game.position,
                              .moves = prep[i].game.moves,
                              .n_moves = prep[i].game.n_moves};
    cf_parity_bind_output(net, &out[i], &prep[i].buf);
  }
  for (int i = 0; ok && i < n; i += step) {
    int m = n - i < step ? n - i : step;
    ok = CHECK(cf_net_eval(net, m, req + i, out + i, &err) == CF_OK);
    if (!ok) fprintf(stderr, "%s\n", err.msg);
  }
  char tag[64];
  snprintf(tag, sizeof tag, "%s (batch %d)", name, step);
  for (int i = 0; ok && i < n; i++) {
    const cf_parity_game *g = &prep[i].game;
    bool all_expected = true;
    for (int k = 0; k < g->n_moves; k++) all_expected &= g->move_case[k] >= 0;
    if (CHECK(all_expected))
      cf_parity_check_output(t, tag, &cases[i], net, &out[i], g->move_case, g->n_moves);
  }
  printf("%s: largest difference from model.py %.3g\n", tag, cf_parity_max_err);
  free(prep);
  free(req);
  free(out);
done:
  cf_net_free(net);
  cf_weights_free(w);
  free(cases);
  snprintf(msg, sizeof msg, "rm -rf '%s'", tmp);
  CHECK_INT_EQ(system(msg), 0);
}

static void test_exported_net_matches_model_batch1(cf_test *t) { run(t, "cf-tiny-2x32", 1); }
static void test_exported_net_matches_model_full_batch(cf_test *t) {
  run(t, "cf-tiny-2x32", 0);
}
static void test_exported_map_net_matches_model_batch1(cf_test *t) {
  run(t, "cf-tiny-map-2x32", 1);
}
static void test_exported_map_net_matches_model_full_batch(cf_test *t) {
  run(t, "cf-tiny-map-2x32", 0);
}

CF_TEST_MAIN(test_exported_net_matches_model_batch1, test_exported_net_matches_model_full_batch,
             test_exported_map_net_matches_model_batch1,
             test_exported_map_net_matches_model_full_batch)
