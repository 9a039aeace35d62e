/* test_parity.c: the whole path against the parity truth. Each case is
 * replayed with chess/, turned into the net's position by the engine glue,
 * encoded into planes (which must equal the expected planes exactly), and
 * evaluated at batch 1 and with all cases in one batch; the legal moves must
 * be the expected policy's keys, their policy indices the expected ones, and
 * every output within 1e-4 of the truth.
 *
 * Backends: env CF_PARITY_BACKEND names one (tests/net/meson.build
 * registers one test per compiled-in backend, so `meson test` lists which
 * ran); it exits 77 (skip) with the reason when that backend is not
 * available here (cuda without a GPU). Unset, every available backend runs.
 * So a new backend is covered without a new test.
 *
 * The same checks run on data/twin's network (the lc0-map twin of the
 * default network, a trained net Lc0 runs) against Lc0's outputs for it. */
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "net/cf_net.h"
#include "tests/cf_test.h"
#include "tests/net/cf_parity.h"
#include "tests/net/cf_parity_check.h"
#include "tests/net/cf_parity_game.h"

typedef struct prepared {
  cf_parity_game game;
  cf_parity_out buf;
} prepared;

/* Planes, transform, legal moves and policy indices of one case. */
static void check_input(cf_test *t, const char *net, const cf_parity_case *c,
                        const cf_parity_game *g) {
  cf_planes planes;
  int transform = cf_net_encode_planes(&g->position, CF_HISTORY_FILL_FEN_ONLY, &planes);
  CHECK_INT_EQ(transform, c->transform);
  for (int j = 0; j < CF_PLANE_COUNT; j++) {
    bool ok = planes.mask[j] == c->planes.mask[j] &&
              (planes.mask[j] == 0 || planes.value[j] == c->planes.value[j]);
    if (!ok) {
      char m[256];
      snprintf(m, sizeof m, "%s %s plane %d: mask 0x%016llx value %.9g, expected 0x%016llx %.9g",
               net, c->id, j, (unsigned long long)planes.mask[j], planes.value[j],
               (unsigned long long)c->planes.mask[j], c->planes.value[j]);
      cf_test_report(t, 0, __FILE__, __LINE__, m);
    } else {
      cf_test_report(t, 1, __FILE__, __LINE__, "plane");
    }
  }
  /* The legal moves are exactly the expected policy's keys. */
  CHECK_INT_EQ(g->n_moves, c->n_legal);
  for (int i = 0; i < g->n_moves; i++) {
    if (!CHECK(g->move_case[i] >= 0)) {
      fprintf(stderr, "%s %s: unexpected legal move %s\n", net, c->id, g->uci[i]);
      continue;
    }
    int idx = cf_policy_move_index(g->moves[i], g->black_to_move, transform);
    CHECK_INT_EQ(idx, c->legal[g->move_case[i]].index);
  }
}

/* The backends this run covers (set in main). */
static const cf_backend_desc *backends[16];
static int n_backends;

static void run_net_on(cf_test *t, const char *dir, const char *name, int batch,
                       const char *backend) {
  char msg[512];
  cf_parity_case *cases;
  int n;
  cf_weights *w = NULL;
  if (!CHECK(cf_parity_load_net_in(dir, name, &cases, &n, &w, msg, sizeof msg))) {
    fprintf(stderr, "%s\n", msg);
    return;
  }
  cf_error err = {0};
  int step = batch > 0 ? batch : n;
  /* The full batch also runs multi-threaded (every backend but the
   * single-threaded oracle takes threads=N, cf_backend.h), on a net
   * configured for a larger batch than it gets. */
  bool threaded = batch != 1 && strcmp(backend, "ref") != 0;
  cf_net_options opts = {.backend = backend,
                         .max_batch = batch == 1 ? 1 : step + 5,
                         .backend_options = threaded ? "threads=2" : NULL};
  cf_parity_all_heads(w, &opts);
  cf_net *net = NULL;
  cf_status st = cf_net_create(w, &opts, &net, &err);
  cf_weights_free(w);
  if (!CHECK(st == CF_OK)) {
    fprintf(stderr, "%s: %s\n", name, err.msg);
    free(cases);
    return;
  }
  const int format = cf_net_get_info(net)->input_format;
  prepared *prep = calloc((size_t)n, sizeof *prep);
  cf_net_request *req = calloc((size_t)n, sizeof *req);
  cf_net_output *out = calloc((size_t)n, sizeof *out);
  bool built = true;
  for (int i = 0; i < n; i++) {
    CHECK_INT_EQ(cases[i].input_format, format);
    if (!CHECK(cf_parity_game_build(&cases[i], format, &prep[i].game, msg, sizeof msg))) {
      fprintf(stderr, "%s\n", msg);
      built = false;
      break;
    }
    if (batch == 1) check_input(t, name, &cases[i], &prep[i].game); /* once per net is enough */
    req[i] = (cf_net_request){.position = &prep[i].game.position,
                              .moves = prep[i].game.moves,
                              .n_moves = prep[i].game.n_moves};
    cf_parity_bind_output(net, &out[i], &prep[i].buf);
  }
  for (int i = 0; built && i < n; i += step) {
    int m = n - i < step ? n - i : step;
    if (!CHECK(cf_net_eval(net, m, req + i, out + i, &err) == CF_OK)) {
      fprintf(stderr, "%s: %s\n", name, err.msg);
      built = false;
    }
  }
  char tag[96];
  snprintf(tag, sizeof tag, "%s on %s (batch %d%s)", name, backend, step,
           threaded ? ", 2 threads" : "");
  for (int i = 0; built && i < n; i++) {
    const cf_parity_game *g = &prep[i].game;
    bool all_expected = true;
    for (int k = 0; k < g->n_moves; k++) all_expected &= g->move_case[k] >= 0;
    if (CHECK(all_expected))
      cf_parity_check_output(t, tag, &cases[i], net, &out[i], g->move_case, g->n_moves);
  }
  cf_net_free(net);
  free(prep);
  free(req);
  free(out);
  free(cases);
}

static void run_net(cf_test *t, const char *name, int batch) {
  for (int i = 0; i < n_backends; i++)
    run_net_on(t, cf_parity_dir(), name, batch, backends[i]->name);
}

/* data/twin: the nets Lc0 runs, with their Lc0 truth: the twin network,
 * and the layout of the random nets the benchmarks against Lc0 time. */
static void run_twin(cf_test *t, int batch) {
  static const char *const nets[] = {"cformer-twin", "bench-layout"};
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/twin", cf_test_data_dir());
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < n_backends; i++) {
      cf_parity_max_err = 0.0;
      run_net_on(t, dir, nets[k], batch, backends[i]->name);
      printf("%s on %s (batch %s): largest difference from Lc0 %.3g\n", nets[k],
             backends[i]->name, batch == 1 ? "1" : "all", cf_parity_max_err);
    }
}

static void test_twin_batch1(cf_test *t) { run_twin(t, 1); }
static void test_twin_full_batch(cf_test *t) { run_twin(t, 0); }

#define NET_TESTS(fn, index)                                                    \
  static void fn##_batch1(cf_test *t) { run_net(t, cf_parity_nets[index], 1); } \
  static void fn##_full_batch(cf_test *t) { run_net(t, cf_parity_nets[index], 0); }

NET_TESTS(test_cf_rpe_rms, 0)
NET_TESTS(test_lc0_smolgen_relu2, 1)
NET_TESTS(test_lc0_smolgen_relu2_bf16, 2)
NET_TESTS(test_lc0_smolgen_relu2_f32, 3)
NET_TESTS(test_lc0_map_classic, 4)
NET_TESTS(test_cf_rpe_ln_canonical, 5)

static void test_every_parity_net_is_covered(cf_test *t) { CHECK_INT_EQ(cf_parity_net_count, 6); }

/* Picks the backends (see the top of the file); returns 0, or 77 to skip. */
static int choose_backends(void) {
  const char *only = getenv("CF_PARITY_BACKEND");
  if (only && *only) {
    const cf_backend_desc *d = cf_backend_find(only);
    if (!d) {
      fprintf(stderr, "backend '%s' is not compiled in\n", only);
      return 77;
    }
    if (d->probe && !d->probe()) {
      fprintf(stderr, "SKIP: backend '%s' is not available here: %s\n", only,
              d->unavailable ? d->unavailable : "its probe failed");
      return 77;
    }
    backends[n_backends++] = d;
  } else {
    for (int i = 0; i < cf_backend_count() && n_backends < 16; i++) {
      const cf_backend_desc *d = cf_backend_at(i);
      if (d->priority >= 0 && (!d->probe || d->probe())) backends[n_backends++] = d;
    }
  }
  printf("backends:");
  for (int i = 0; i < n_backends; i++) printf(" %s", backends[i]->name);
  printf("\n");
  return 0;
}

int main(int argc, char **argv) {
  static const cf_test_fn fns[] = {
      test_cf_rpe_rms_batch1,           test_cf_rpe_rms_full_batch,
      test_lc0_smolgen_relu2_batch1,    test_lc0_smolgen_relu2_full_batch,
      test_lc0_smolgen_relu2_bf16_batch1, test_lc0_smolgen_relu2_bf16_full_batch,
      test_lc0_smolgen_relu2_f32_batch1, test_lc0_smolgen_relu2_f32_full_batch,
      test_lc0_map_classic_batch1,      test_lc0_map_classic_full_batch,
      test_cf_rpe_ln_canonical_batch1,  test_cf_rpe_ln_canonical_full_batch,
      test_twin_batch1,                 test_twin_full_batch,
      test_every_parity_net_is_covered};
  static const char *const names[] = {
      "test_cf_rpe_rms_batch1",           "test_cf_rpe_rms_full_batch",
      "test_lc0_smolgen_relu2_batch1",    "test_lc0_smolgen_relu2_full_batch",
      "test_lc0_smolgen_relu2_bf16_batch1", "test_lc0_smolgen_relu2_bf16_full_batch",
      "test_lc0_smolgen_relu2_f32_batch1", "test_lc0_smolgen_relu2_f32_full_batch",
      "test_lc0_map_classic_batch1",      "test_lc0_map_classic_full_batch",
      "test_cf_rpe_ln_canonical_batch1",  "test_cf_rpe_ln_canonical_full_batch",
      "test_twin_batch1",                 "test_twin_full_batch",
      "test_every_parity_net_is_covered"};
  int skip = choose_backends();
  if (skip) return skip;
  return cf_test_run(names, fns, (int)(sizeof fns / sizeof fns[0]), argc, argv);
}
