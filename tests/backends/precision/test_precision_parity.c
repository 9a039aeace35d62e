/* test_precision_parity.c: every parity net (data/parity) on the oneDNN
 * backend at each precision against the parity truth, each at its own
 * tolerance (docs/BACKENDS.md "Precision"):
 *   f32:  every field within 1e-4, the parity tests' own check;
 *   bf16, int8: W/D/L, Q, the extra value heads' q and each legal move's
 *         policy probability (softmax over the legal moves) within the
 *         table below, moves-left within its relative bound, and the
 *         truth's best move still the best for at least 90% of the cases
 *         (the policies of these random nets are nearly flat, so a near
 *         tie can flip).
 * Each case file runs at batch 1 and as one batch on 2 threads. A
 * precision this CPU cannot run is skipped with the reason (exit 77 when
 * none can). Prints the largest deviations seen, which the tolerances are
 * set from (about 2.5x headroom over this machine's). An argument
 * "attention=..." is added to every run's options: the same nets and
 * bounds for the oneDNN attention path (attention=onednn). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "net/cf_net.h"
#include "tests/cf_test.h"
#include "tests/net/cf_parity.h"
#include "tests/net/cf_parity_check.h"

typedef struct tolerance {
  double wdl, q, policy, moves_left_rel;
} tolerance;

/* Indexed by cf_precision; F32 uses cf_parity_check_output (1e-4). */
static const tolerance tol[CF_PRECISION_COUNT] = {
    [CF_PRECISION_BF16] = {.wdl = 0.005, .q = 0.01, .policy = 0.003, .moves_left_rel = 0.012},
    [CF_PRECISION_INT8] = {.wdl = 0.025, .q = 0.035, .policy = 0.015, .moves_left_rel = 0.05},
};

typedef struct seen {
  double wdl, q, policy, moves_left_rel;
  int agree, cases;
} seen;

static seen worst[CF_PRECISION_COUNT];

/* ",attention=..." from the command line, or "". */
static char extra[64];

static void softmax(int n, const float *logits, double *p) {
  double m = -INFINITY, s = 0;
  for (int i = 0; i < n; i++) m = fmax(m, logits[i]);
  for (int i = 0; i < n; i++) s += p[i] = exp(logits[i] - m);
  for (int i = 0; i < n; i++) p[i] /= s;
}

static int argmax(int n, const double *p) {
  int best = 0;
  for (int i = 1; i < n; i++)
    if (p[i] > p[best]) best = i;
  return best;
}

/* One number within bound; tracks the worst. */
static void within(cf_test *t, const char *tag, const char *id, const char *field, double got,
                   double want, double bound, double *worst_seen) {
  const double e = fabs(got - want);
  if (e > *worst_seen) *worst_seen = e;
  if (!(e <= bound)) {
    char m[512];
    snprintf(m, sizeof m, "%s %s %s: got %.7g, truth %.7g (bound %.3g)", tag, id, field, got, want,
             bound);
    cf_test_report(t, 0, __FILE__, __LINE__, m);
  } else {
    cf_test_report(t, 1, __FILE__, __LINE__, field);
  }
}

static void check_reduced(cf_test *t, const char *tag, cf_precision p, const cf_parity_case *c,
                          const cf_net_output *o) {
  const tolerance *b = &tol[p];
  seen *w = &worst[p];
  for (int i = 0; i < 3; i++) within(t, tag, c->id, "wdl", o->wdl[i], c->wdl[i], b->wdl, &w->wdl);
  within(t, tag, c->id, "q", o->q, c->q, b->q, &w->q);
  for (int h = CF_VALUE_Q; h < CF_VALUE_HEAD_COUNT; h++)
    if (c->value[h].present)
      within(t, tag, c->id, "value head q", o->value[h].q, c->value[h].q, b->q, &w->q);
  if (c->has_moves_left) {
    const double rel = fabs(o->moves_left - c->moves_left) / fmax(fabs(c->moves_left), 1.0);
    within(t, tag, c->id, "moves_left (relative)", rel, 0, b->moves_left_rel, &w->moves_left_rel);
  }
  for (int head = 0; head < CF_POLICY_HEAD_COUNT; head++) {
    if (!(c->policy_heads >> head & 1) || !CHECK(o->policy[head] != NULL) || c->n_legal == 0)
      continue;
    float truth[CF_PARITY_MAX_MOVES];
    double pt[CF_PARITY_MAX_MOVES], pg[CF_PARITY_MAX_MOVES];
    for (int i = 0; i < c->n_legal; i++) truth[i] = c->legal[i].logit[head];
    softmax(c->n_legal, truth, pt);
    softmax(c->n_legal, o->policy[head], pg);
    double e = 0;
    for (int i = 0; i < c->n_legal; i++) e = fmax(e, fabs(pg[i] - pt[i]));
    within(t, tag, c->id, "policy probability", e, 0, b->policy, &w->policy);
    w->agree += argmax(c->n_legal, pg) == argmax(c->n_legal, pt);
    w->cases++;
  }
}

static void run_net(cf_test *t, const char *name, cf_precision p, int batch) {
  char msg[512], opts_text[128];
  /* A batch of all cases (batch 0) also runs on two threads. */
  snprintf(opts_text, sizeof opts_text, "precision=%s%s%s", cf_precision_name(p),
           batch != 1 ? ",threads=2" : "", extra);
  cf_net_options opts = {.backend = "onednn", .backend_options = opts_text};
  cf_parity_planes_run r;
  if (!CHECK(cf_parity_planes_run_net(name, opts, batch, &r, msg, sizeof msg))) {
    fprintf(stderr, "%s\n", msg);
    cf_parity_planes_run_free(&r);
    return;
  }
  char tag[192];
  snprintf(tag, sizeof tag, "%s on onednn precision=%s%s (batch %d)", name, cf_precision_name(p),
           extra, r.step);
  for (int i = 0; i < r.n; i++) {
    if (p == CF_PRECISION_F32)
      cf_parity_check_output(t, tag, &r.cases[i], r.net, &r.out[i], r.prep[i].move_case,
                             r.cases[i].n_legal);
    else
      check_reduced(t, tag, p, &r.cases[i], &r.out[i]);
  }
  cf_parity_planes_run_free(&r);
}

/* Whether the oneDNN backend runs p on this CPU; prints the reason if not. */
static bool runs(cf_precision p) {
  char opts[32];
  snprintf(opts, sizeof opts, "precision=%s", cf_precision_name(p));
  cf_backend_config cfg = {.max_batch = 1, .options = opts};
  cf_backend *be = NULL;
  cf_error err = {0};
  if (cf_backend_create("onednn", &cfg, &be, &err) != CF_OK) {
    printf("skip %s: %s\n", cf_precision_name(p), err.msg);
    return false;
  }
  cf_backend_free(be);
  return true;
}

static void run_precision(cf_test *t, cf_precision p) {
  for (int i = 0; i < cf_parity_net_count; i++) {
    run_net(t, cf_parity_nets[i], p, 1);
    run_net(t, cf_parity_nets[i], p, 0);
  }
  if (p == CF_PRECISION_F32) {
    printf("f32: largest deviation %.3g (bound 1e-4)\n", cf_parity_max_err);
    return;
  }
  const seen *w = &worst[p];
  printf("%s: largest |W/D/L| %.3g, |Q| %.3g, |policy probability| %.3g, moves-left relative "
         "%.3g; top-1 agreement with the truth %d/%d\n",
         cf_precision_name(p), w->wdl, w->q, w->policy, w->moves_left_rel, w->agree, w->cases);
  CHECK(w->agree >= 0.9 * w->cases);
}

static void test_f32(cf_test *t) { run_precision(t, CF_PRECISION_F32); }
static void test_bf16(cf_test *t) { run_precision(t, CF_PRECISION_BF16); }
static void test_int8(cf_test *t) { run_precision(t, CF_PRECISION_INT8); }

int main(int argc, char **argv) {
  if (argc > 1 && strncmp(argv[1], "attention=", 10) == 0)
    snprintf(extra, sizeof extra, ",%s", argv[1]);
  const char *names[3];
  cf_test_fn fns[3];
  int n = 0;
  names[n] = "test_f32";
  fns[n++] = test_f32;
  if (runs(CF_PRECISION_BF16)) {
    names[n] = "test_bf16";
    fns[n++] = test_bf16;
  }
  if (runs(CF_PRECISION_INT8)) {
    names[n] = "test_int8";
    fns[n++] = test_int8;
  }
  if (n == 1) {
    printf("skip: this CPU runs neither bf16 nor int8 on oneDNN\n");
    return 77;
  }
  return cf_test_run(names, fns, n, 1, argv);
}
