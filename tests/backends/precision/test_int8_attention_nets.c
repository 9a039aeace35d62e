/* test_int8_attention_nets.c: whole random nets on the oneDNN backend with
 * precision=int8 and its int8 attention, against precision=f32, within the
 * int8 tolerances of backends/precision-parity (docs/PRECISION.md
 * "Tolerances"): W/D/L 0.025, Q 0.035, each legal move's policy
 * probability 0.015. Every call in int8, the RPE terms these nets have
 * included (tables quantized at upload). Two nets: a tiny one (2 layers, 4 heads of depth 12,
 * RPE q/k/v) and one of CF-6M's shape (8 layers, 8 heads of depth 32, RPE
 * q/k/v), each on 24 parity positions in one batch of 24 on 2 threads and
 * one position at a time. The same runs with int8_attention=0 (float32
 * attention) are printed beside them, and must differ from the int8
 * attention's (it ran). Skips (77) where oneDNN does not run int8 or no
 * kernel set here has an int8 attention core. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "net/cf_net.h"
#include "tests/cf_test.h"
#include "tests/net/cf_parity.h"
#include "tests/net/cf_parity_game.h"
#include "tools/random_net/cf_weights_random.h"

enum { N = 24 };

static const double WDL_TOL = 0.025, Q_TOL = 0.035, POLICY_TOL = 0.015;

typedef struct run {
  cf_net_output out[N];
  float logits[N][CF_PARITY_MAX_MOVES];
  char variant[256];
} run;

static cf_parity_game games[N];

/* Evaluates the N games on `w` with `options`, in one batch (batch 0) or
 * one at a time (1). false (reported) on failure. */
static bool eval(cf_test *t, const cf_weights *w, const char *options, int batch, run *r) {
  cf_net_options o = {.backend = "onednn", .backend_options = options, .max_batch = N};
  cf_net *net = NULL;
  cf_error err = {0};
  if (!CHECK(cf_net_create(w, &o, &net, &err) == CF_OK)) {
    fprintf(stderr, "  %s: %s\n", options, err.msg);
    return false;
  }
  const char *v = cf_net_get_info(net)->backend_variant;
  snprintf(r->variant, sizeof r->variant, "%s", v ? v : "");
  cf_net_request req[N];
  for (int i = 0; i < N; i++) {
    req[i] = (cf_net_request){
        .position = &games[i].position, .moves = games[i].moves, .n_moves = games[i].n_moves};
    memset(&r->out[i], 0, sizeof r->out[i]);
    r->out[i].policy[CF_POLICY_VANILLA] = r->logits[i];
  }
  bool ok = true;
  if (batch == 1)
    for (int i = 0; i < N && ok; i++) ok = cf_net_eval(net, 1, &req[i], &r->out[i], &err) == CF_OK;
  else
    ok = cf_net_eval(net, N, req, r->out, &err) == CF_OK;
  if (!CHECK(ok)) fprintf(stderr, "  %s: %s\n", options, err.msg);
  cf_net_free(net);
  return ok;
}

/* Largest |p(got) - p(want)| over a position's legal moves. */
static double policy_diff(int n, const float *got, const float *want) {
  double mg = -INFINITY, mw = -INFINITY, sg = 0, sw = 0, worst = 0;
  for (int i = 0; i < n; i++) mg = fmax(mg, got[i]), mw = fmax(mw, want[i]);
  for (int i = 0; i < n; i++) sg += exp(got[i] - mg), sw += exp(want[i] - mw);
  for (int i = 0; i < n; i++)
    worst = fmax(worst, fabs(exp(got[i] - mg) / sg - exp(want[i] - mw) / sw));
  return worst;
}

typedef struct worst {
  double wdl, q, policy;
} worst;

static worst deviation(const run *got, const run *want) {
  worst w = {0, 0, 0};
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < 3; j++) w.wdl = fmax(w.wdl, fabs(got->out[i].wdl[j] - want->out[i].wdl[j]));
    w.q = fmax(w.q, fabs(got->out[i].q - want->out[i].q));
    w.policy = fmax(w.policy, policy_diff(games[i].n_moves, got->logits[i], want->logits[i]));
  }
  return w;
}

static void check_net(cf_test *t, const char *name, const cf_random_spec *spec) {
  cf_weights *w = NULL;
  cf_error err = {0};
  if (!CHECK(cf_weights_random(spec, &w, &err) == CF_OK)) {
    fprintf(stderr, "  %s: %s\n", name, err.msg);
    return;
  }
  run *f32 = malloc(sizeof *f32), *i8 = malloc(sizeof *i8), *off = malloc(sizeof *off);
  for (int batch = 0; batch <= 1; batch++) {
    const char *threads = batch ? "" : ",threads=2";
    char o_f32[64], o_i8[64], o_off[64];
    snprintf(o_f32, sizeof o_f32, "precision=f32%s", threads);
    snprintf(o_i8, sizeof o_i8, "precision=int8%s", threads);
    snprintf(o_off, sizeof o_off, "precision=int8,int8_attention=0%s", threads);
    if (!eval(t, w, o_f32, batch, f32) || !eval(t, w, o_i8, batch, i8) ||
        !eval(t, w, o_off, batch, off))
      break;
    CHECK(strstr(i8->variant, ", int8 attention (") != NULL);
    CHECK(strstr(off->variant, ", f32 attention") != NULL);
    const worst a = deviation(i8, f32), b = deviation(off, f32), d = deviation(i8, off);
    printf("  %s, %s: int8 attention W/D/L %.3g Q %.3g policy %.3g; float32 attention W/D/L "
           "%.3g Q %.3g policy %.3g\n",
           name, batch ? "one at a time" : "batch 24, 2 threads", a.wdl, a.q, a.policy, b.wdl,
           b.q, b.policy);
    CHECK(a.wdl <= WDL_TOL);
    CHECK(a.q <= Q_TOL);
    CHECK(a.policy <= POLICY_TOL);
    CHECK(d.q > 0 || d.policy > 0); /* the int8 attention ran */
  }
  free(f32), free(i8), free(off);
  cf_weights_free(w);
}

static void test_tiny(cf_test *t) {
  cf_random_spec s = cf_random_spec_cf6m();
  s.layers = 2, s.d = 48, s.heads = 4, s.dff = 64, s.seed = 7;
  check_net(t, "tiny (2 x 48, 4 heads)", &s);
}

static void test_cf6m(cf_test *t) {
  const cf_random_spec s = cf_random_spec_cf6m();
  check_net(t, "CF-6M shape", &s);
}

int main(int argc, char **argv) {
  (void)argc;
  cf_backend_config cfg = {.max_batch = 1, .options = "precision=int8"};
  cf_backend *be = NULL;
  cf_error err = {0};
  if (cf_backend_create("onednn", &cfg, &be, &err) != CF_OK) {
    printf("skip: oneDNN does not run int8 here (%s)\n", err.msg);
    return 77;
  }
  const bool core = strstr(cf_backend_variant(be), ", int8 attention (") != NULL;
  cf_backend_free(be);
  if (!core) {
    printf("skip: no int8 attention core on this CPU's kernel set (no AVX512_VNNI)\n");
    return 77;
  }
  cf_parity_case *cases = NULL;
  int n = 0;
  char msg[512];
  if (!cf_parity_load(cf_parity_dir(), "lc0-smolgen-relu2", &cases, &n, msg, sizeof msg) ||
      n < N) {
    fprintf(stderr, "cannot load the parity positions: %s\n", n < N ? "too few" : msg);
    return 1;
  }
  for (int i = 0; i < N; i++)
    if (!cf_parity_game_build(&cases[i], 1, &games[i], msg, sizeof msg)) {
      fprintf(stderr, "parity case %d: %s\n", i, msg);
      return 1;
    }
  free(cases);
  const char *names[] = {"test_tiny", "test_cf6m"};
  const cf_test_fn fns[] = {test_tiny, test_cf6m};
  return cf_test_run(names, fns, 2, 1, argv);
}
