/* test_net_faults.c: a failure anywhere in a network's allocations or ops
 * reaches the caller. On every backend this machine runs, with the
 * backend options fault_alloc=N and fault_op=N (cf_backend_fault.h) for N
 * from 1 up to one past the last allocation or op:
 *   - creating the network fails, naming the failed allocation, or the
 *     first evaluation does (an allocation inside an op: oneDNN makes its
 *     primitives on first use), or it computes what a network without the
 *     hook computes;
 *   - an evaluation fails, naming the failed op, or it succeeds with the
 *     same outputs: never CF_OK with output it did not compute;
 *   - after a failed evaluation the same network evaluates correctly.
 * Two nets cover every op (RPE q/k/v, smolgen, gating, RMS and layer
 * norms). Run under ASan as well (CI's sanitizer build). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "net/cf_net.h"
#include "tests/cf_test.h"
#include "tests/net/cf_parity.h"

enum { POSITIONS = 3, BATCH = 2, MOVES = 3 };

/* What one evaluation of the test batch gives: values and policy logits. */
typedef struct outputs {
  float q[POSITIONS], wdl[POSITIONS][3], policy[POSITIONS][MOVES];
} outputs;

/* The parity net's weights (its cases are not needed here). */
static cf_weights *load(cf_test *t, const char *name) {
  cf_parity_case *cases = NULL;
  int count = 0;
  cf_weights *w = NULL;
  char msg[512];
  if (!CHECK(cf_parity_load_net(name, &cases, &count, &w, msg, sizeof msg))) {
    fprintf(stderr, "%s\n", msg);
    return NULL;
  }
  free(cases);
  return w;
}

/* POSITIONS start positions in two passes of BATCH; 1. e4, d4, Nf3. */
static cf_status eval(cf_net *net, int input_format, outputs *o, cf_error *err) {
  cf_net_board start;
  cf_net_board_startpos(&start);
  cf_net_position pos;
  cf_net_position_init(&pos, input_format, &start);
  static const cf_policy_move moves[MOVES] = {{12, 28, 0}, {11, 27, 0}, {6, 21, 0}};
  cf_net_request req[POSITIONS];
  cf_net_output out[POSITIONS];
  memset(o, 0, sizeof *o);
  for (int i = 0; i < POSITIONS; i++) {
    req[i] = (cf_net_request){.position = &pos, .moves = moves, .n_moves = MOVES};
    out[i] = (cf_net_output){.policy = {[CF_POLICY_VANILLA] = o->policy[i]}};
  }
  cf_status st = cf_net_eval(net, POSITIONS, req, out, err);
  for (int i = 0; i < POSITIONS; i++) {
    o->q[i] = out[i].q;
    memcpy(o->wdl[i], out[i].wdl, sizeof o->wdl[i]);
  }
  return st;
}

/* Backend options every network of a run gets besides the hook's
 * ("precision=int8"), or "". */
static const char *base_opts = "";

static cf_status create(const cf_weights *w, const char *backend, const char *options,
                        cf_net **net, cf_error *err) {
  cf_net_options o = {.backend = backend, .backend_options = options, .max_batch = BATCH};
  return cf_net_create(w, &o, net, err);
}

/* Bit-identical: the hook changes which ops run, never how. */
static bool same(const outputs *a, const outputs *b) {
  return memcmp(a, b, sizeof *a) == 0 && isfinite(a->q[0]);
}

/* fault_alloc=N for every N: returns the allocations a network makes
 * (*in_ops of them inside ops: oneDNN's primitives, made on first use). */
static int alloc_loop(cf_test *t, const cf_weights *w, const char *backend, const outputs *want,
                      int *in_ops) {
  *in_ops = 0;
  for (int n = 1; n < 100000; n++) {
    char opts[64], expect[64];
    snprintf(opts, sizeof opts, "%s%sfault_alloc=%d", base_opts, *base_opts ? "," : "", n);
    snprintf(expect, sizeof expect, "injected failure (allocation %d,", n);
    cf_net *net = NULL;
    cf_error err = {0};
    cf_status st = create(w, backend, opts, &net, &err);
    if (st != CF_OK) {
      if (!CHECK(st == CF_ERR_NOMEM && strstr(err.msg, expect) && net == NULL))
        fprintf(stderr, "%s fault_alloc=%d: status %d, '%s'\n", backend, n, (int)st, err.msg);
      continue;
    }
    outputs got;
    st = eval(net, w->arch.input_format, &got, &err);
    if (st != CF_OK) {
      (*in_ops)++;
      if (!CHECK(st == CF_ERR_NOMEM && strstr(err.msg, expect) && strstr(err.msg, backend)))
        fprintf(stderr, "%s fault_alloc=%d in an op: status %d, '%s'\n", backend, n, (int)st,
                err.msg);
      if (!CHECK(eval(net, w->arch.input_format, &got, &err) == CF_OK && same(&got, want)))
        fprintf(stderr, "%s fault_alloc=%d: no recovery: %s\n", backend, n, err.msg);
      cf_net_free(net);
      continue;
    }
    if (!CHECK(same(&got, want)))
      fprintf(stderr, "%s fault_alloc=%d: network made but wrong\n", backend, n);
    cf_net_free(net);
    return n - 1;
  }
  CHECK(false);
  return 0;
}

/* fault_op=N for every N: returns the ops one evaluation makes. */
static int op_loop(cf_test *t, const cf_weights *w, const char *backend, const outputs *want) {
  for (int n = 1; n < 100000; n++) {
    char opts[64];
    snprintf(opts, sizeof opts, "%s%sfault_op=%d", base_opts, *base_opts ? "," : "", n);
    cf_net *net = NULL;
    cf_error err = {0};
    if (!CHECK(create(w, backend, opts, &net, &err) == CF_OK)) {
      fprintf(stderr, "%s %s: %s\n", backend, opts, err.msg);
      return 0;
    }
    outputs got;
    cf_status st = eval(net, w->arch.input_format, &got, &err);
    if (st == CF_OK) {
      if (!CHECK(same(&got, want))) fprintf(stderr, "%s fault_op=%d: wrong outputs\n", backend, n);
      cf_net_free(net);
      return n - 1;
    }
    char expect[64];
    snprintf(expect, sizeof expect, "injected failure (op %d,", n);
    if (!CHECK(st == CF_ERR_BACKEND && strstr(err.msg, expect) && strstr(err.msg, backend)))
      fprintf(stderr, "%s fault_op=%d: status %d, '%s'\n", backend, n, (int)st, err.msg);
    /* The fault fires once: the same network then computes correctly. */
    if (!CHECK(eval(net, w->arch.input_format, &got, &err) == CF_OK && same(&got, want)))
      fprintf(stderr, "%s fault_op=%d: no recovery: %s\n", backend, n, err.msg);
    cf_net_free(net);
  }
  CHECK(false);
  return 0;
}

/* Both loops on backend d with base_opts. */
static void both_loops(cf_test *t, const cf_weights *w, const char *net_name,
                       const cf_backend_desc *d) {
  cf_net *net = NULL;
  cf_error err = {0};
  outputs want;
  if (!CHECK(create(w, d->name, base_opts, &net, &err) == CF_OK) ||
      !CHECK(eval(net, w->arch.input_format, &want, &err) == CF_OK)) {
    fprintf(stderr, "%s on %s %s: %s\n", net_name, d->name, base_opts, err.msg);
    cf_net_free(net);
    return;
  }
  cf_net_free(net);
  int in_ops = 0;
  const int allocs = alloc_loop(t, w, d->name, &want, &in_ops);
  const int ops = op_loop(t, w, d->name, &want);
  /* Both loops reached failures: the counts are real. */
  CHECK(allocs > 10);
  CHECK(ops > 10);
  printf("%s on %s%s%s: each of %d allocations (%d inside ops) and of the %d ops of an "
         "evaluation fails cleanly\n",
         net_name, d->name, *base_opts ? " " : "", base_opts, allocs, in_ops, ops);
}

static void every_backend(cf_test *t, const char *net_name) {
  cf_weights *w = load(t, net_name);
  if (!w) return;
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    if (d->priority < 0 || (d->probe && !d->probe())) continue;
    base_opts = "";
    both_loops(t, w, net_name, d);
    /* The reduced-precision projections allocate converted inputs too. */
    static const char *const lowp[] = {"precision=bf16", "precision=int8"};
    for (int p = 0; p < 2; p++) {
      if (!(d->precisions & (1u << (p + 1)))) continue;
      cf_backend_config cfg = {.max_batch = 1, .options = lowp[p]};
      cf_backend *be = NULL;
      if (cf_backend_create(d->name, &cfg, &be, NULL) != CF_OK) {
        printf("%s on %s %s: not run, this CPU lacks it\n", net_name, d->name, lowp[p]);
        continue;
      }
      cf_backend_free(be);
      base_opts = lowp[p];
      both_loops(t, w, net_name, d);
    }
  }
  base_opts = "";
  cf_weights_free(w);
}

static void test_rpe_net(cf_test *t) { every_backend(t, "cf-rpe-ln-canonical"); }
static void test_smolgen_net(cf_test *t) { every_backend(t, "lc0-smolgen-relu2"); }

/* The keys are every backend's, and checked like any option. */
static void test_fault_options(cf_test *t) {
  cf_backend_config cfg = {.max_batch = 1, .options = "fault_op=0"};
  cf_backend *be = NULL;
  cf_error err = {0};
  CHECK_INT_EQ(cf_backend_create("ref", &cfg, &be, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "fault_op");
  cfg.options = "fault_alloc=x";
  CHECK_INT_EQ(cf_backend_create("ref", &cfg, &be, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "fault_alloc");
  cfg.options = "threads=1,fault_alloc=1";
  if (CHECK(cf_backend_create("ref", &cfg, &be, &err) == CF_OK)) {
    CHECK(cf_op_alloc(be, 4) == NULL);
    float *p = cf_op_alloc(be, 4);
    CHECK(p != NULL); /* once */
    cf_op_free(be, p);
    CHECK_INT_EQ(cf_op_sync(be, &err), CF_OK);
    cf_backend_free(be);
  }
}

CF_TEST_MAIN(test_fault_options, test_rpe_net, test_smolgen_net)
