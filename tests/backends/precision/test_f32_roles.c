/* test_f32_roles.c: the f32_roles=embedding+heads|none backend option,
 * which keeps the input embedding's and/or the heads' matrices in float32
 * under a reduced precision (docs/PRECISION.md "f32_roles").
 *
 *   options:  bad values refused on every backend with a message naming
 *             the valid roles; valid ones accepted everywhere (a float32
 *             backend has nothing to keep);
 *   ops:      on oneDNN at a reduced precision, a weight uploaded for a
 *             kept use gives bit for bit precision=f32's result, while
 *             BODY (and a use not named) is still converted (its result
 *             differs from float32); the variant string counts the kept
 *             matrices and names why;
 *   nets:     every parity net at a reduced precision keeps exactly its
 *             embedding matrices (ip_emb_w, plus the dense embedding's
 *             preprocessing matrix) more than without with
 *             f32_roles=embedding, exactly its computed heads' matrices
 *             with f32_roles=heads, still converts the rest, and its
 *             outputs still differ from float32.
 *
 * The oneDNN checks run at int8 where the CPU has VNNI, else bf16; a CPU
 * with neither skips them, printing why (the option checks still run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "net/cf_net.h"
#include "tests/cf_test.h"
#include "tests/net/cf_parity.h"
#include "tests/net/cf_parity_check.h"

/* The reduced precision the oneDNN checks use (F32 when none runs). */
static cf_precision reduced = CF_PRECISION_F32;

static bool creates(const char *backend, const char *opts, cf_error *err) {
  cf_backend_config cfg = {.max_batch = 1, .options = opts};
  cf_backend *be = NULL;
  if (cf_backend_create(backend, &cfg, &be, err) != CF_OK) return false;
  cf_backend_free(be);
  return true;
}

static void test_bad_values(cf_test *t) {
  const char *backends[] = {"ref", "onednn"};
  const char *bad[] = {"f32_roles=bogus", "f32_roles=", "f32_roles=embedding,heads",
                       "f32_roles=embedding+", "f32_roles=Embedding", "f32_roles=body"};
  for (int b = 0; b < 2; b++) {
    if (!cf_backend_find(backends[b])) continue;
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
      cf_error err = {0};
      if (!CHECK(!creates(backends[b], bad[i], &err))) continue;
      CHECK_INT_EQ(err.status, CF_ERR_ARG);
      CHECK_STR_CONTAINS(err.msg, backends[b]);
      /* "embedding,heads" splits at the comma into a bare "heads" item,
       * which is not key=value; the others name the valid roles. */
      CHECK_STR_CONTAINS(err.msg, i == 2 ? "'heads' is not key=value" : "valid: embedding, heads");
    }
  }
}

/* Valid values on every backend; on a float32-only backend nothing to do. */
static void test_accepted_everywhere(cf_test *t) {
  const char *good[] = {"f32_roles=none", "f32_roles=embedding", "f32_roles=heads",
                        "f32_roles=embedding+heads", "f32_roles=heads+embedding,threads=1"};
  for (int b = 0; b < cf_backend_count(); b++) {
    const cf_backend_desc *d = cf_backend_at(b);
    cf_error err = {0};
    /* Skip a backend this machine lacks (a GPU's). */
    if (!creates(d->name, NULL, &err)) continue;
    for (int i = 0; i < (int)(sizeof good / sizeof good[0]); i++) {
      if (!CHECK(creates(d->name, good[i], &err))) fprintf(stderr, "%s: %s\n", d->name, err.msg);
    }
  }
}

enum { ROWS = 16, IN = 96, OUT = 40 };

/* y[u] = linear of x through a weight uploaded for use u, on one onednn
 * instance with opts; *variant gets its variant string. */
static bool run_uses(cf_test *t, const char *opts, const float *x, const float *w,
                     float y[CF_WEIGHT_USE_COUNT][ROWS * OUT], char *variant, size_t size) {
  cf_backend_config cfg = {.max_batch = ROWS, .options = opts};
  cf_backend *be = NULL;
  cf_error err = {0};
  if (!CHECK_INT_EQ(cf_backend_create("onednn", &cfg, &be, &err), CF_OK)) {
    fprintf(stderr, "%s\n", err.msg);
    return false;
  }
  cf_bweight *bw[CF_WEIGHT_USE_COUNT] = {0};
  float *dx = cf_op_alloc(be, ROWS * IN), *dy = cf_op_alloc(be, ROWS * OUT);
  bool ok = CHECK(dx && dy);
  for (int u = 0; ok && u < CF_WEIGHT_USE_COUNT; u++)
    ok = CHECK_INT_EQ(cf_op_weight_use(be, (cf_weight_use)u, CF_WEIGHT_MATRIX, OUT, IN, w, &bw[u],
                                       &err),
                      CF_OK);
  if (ok) cf_op_upload(be, dx, x, ROWS * IN);
  for (int u = 0; ok && u < CF_WEIGHT_USE_COUNT; u++) {
    cf_op_linear(be, ROWS, IN, OUT, dx, bw[u], NULL, CF_OP_ACT_NONE, dy);
    ok = CHECK_INT_EQ(cf_op_sync(be, &err), CF_OK);
    if (ok) cf_op_download(be, y[u], dy, ROWS * OUT);
  }
  if (ok) snprintf(variant, size, "%s", cf_backend_variant(be) ? cf_backend_variant(be) : "");
  cf_op_free(be, dx);
  cf_op_free(be, dy);
  for (int u = 0; u < CF_WEIGHT_USE_COUNT; u++) cf_op_weight_free(be, bw[u]);
  cf_backend_free(be);
  return ok;
}

/* A value in [-0.5, 0.5) from a linear congruential generator. */
static float uniform(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (float)(*s >> 8) / 16777216.0f - 0.5f;
}

static int same_count(const float *a, const float *b) {
  int n = 0;
  for (int i = 0; i < ROWS * OUT; i++) n += a[i] == b[i];
  return n;
}

/* With roles kept (bits of cf_weight_use), each kept use's result equals
 * float32 exactly and every other use's does not. */
static void check_roles(cf_test *t, const char *roles, unsigned kept, const char *variant_has) {
  static float x[ROWS * IN], w[OUT * IN], yf[CF_WEIGHT_USE_COUNT][ROWS * OUT],
      y[CF_WEIGHT_USE_COUNT][ROWS * OUT];
  unsigned s = 12345;
  for (int i = 0; i < ROWS * IN; i++) x[i] = uniform(&s);
  for (int i = 0; i < OUT * IN; i++) w[i] = uniform(&s);
  char opts[96], variant[384], unused[384];
  snprintf(opts, sizeof opts, "precision=%s,f32_roles=%s", cf_precision_name(reduced), roles);
  if (!run_uses(t, opts, x, w, y, variant, sizeof variant) ||
      !run_uses(t, "precision=f32", x, w, yf, unused, sizeof unused))
    return;
  for (int u = 0; u < CF_WEIGHT_USE_COUNT; u++) {
    const int same = same_count(y[u], yf[u]);
    if (kept >> u & 1) {
      CHECK_INT_EQ(same, ROWS * OUT);
    } else if (!CHECK(same < ROWS * OUT)) {
      fprintf(stderr, "f32_roles=%s: use %d was not converted\n", roles, u);
    }
  }
  if (variant_has) {
    CHECK_STR_CONTAINS(variant, variant_has);
  } else if (!CHECK(strstr(variant, "kept f32") == NULL)) {
    fprintf(stderr, "f32_roles=%s: variant '%s'\n", roles, variant);
  }
}

static void test_ops(cf_test *t) {
  const unsigned emb = 1u << CF_WEIGHT_USE_INPUT_EMBEDDING, head = 1u << CF_WEIGHT_USE_HEAD;
  check_roles(t, "none", 0, NULL);
  check_roles(t, "embedding", emb,
              "(1 of 3 matrices kept f32: input embedding kept in float32 (f32_roles))");
  check_roles(t, "heads", head, "(1 of 3 matrices kept f32: head kept in float32 (f32_roles))");
  check_roles(t, "embedding+heads", emb | head,
              "(2 of 3 matrices kept f32: input embedding kept in float32 (f32_roles); head kept "
              "in float32 (f32_roles))");
}

/* "(K of N matrices kept f32" in a variant string: K and N; K = 0 and
 * N = -1 when none was kept. */
static void kept_counts(const char *variant, int *k, int *n) {
  *k = 0;
  *n = -1;
  const char *p = strstr(variant, " matrices kept f32");
  while (p && p > variant && *p != '(') p--;
  if (p && sscanf(p, "(%d of %d", k, n) != 2) *k = 0, *n = -1;
}

enum { MAX_CASES = 256 };

/* One run of a parity net: each case's Q, the variant string, the kept
 * counts in it and the heads the net computed. */
typedef struct net_result {
  int n;
  float q[MAX_CASES];
  char variant[384];
  int kept, total; /* kept_counts */
  unsigned policy_heads, value_heads;
  bool moves_left;
} net_result;

/* Parity net `name` with backend options opts, every case in one batch. */
static bool net_run(cf_test *t, const char *name, const char *opts, net_result *res) {
  cf_net_options o = {.backend = "onednn", .backend_options = opts};
  cf_parity_planes_run r;
  char msg[512];
  bool ok = CHECK(cf_parity_planes_run_net(name, o, 0, &r, msg, sizeof msg));
  if (!ok) fprintf(stderr, "%s (%s): %s\n", name, opts, msg);
  if (ok) ok = CHECK(r.n > 0 && r.n <= MAX_CASES);
  if (ok) {
    res->n = r.n;
    for (int i = 0; i < r.n; i++) res->q[i] = r.out[i].q;
    const cf_net_info *info = cf_net_get_info(r.net);
    snprintf(res->variant, sizeof res->variant, "%s",
             info->backend_variant ? info->backend_variant : "");
    kept_counts(res->variant, &res->kept, &res->total);
    res->policy_heads = info->policy_heads;
    res->value_heads = info->value_heads;
    res->moves_left = info->has_moves_left;
  }
  cf_parity_planes_run_free(&r);
  return ok;
}

static int present(const cf_tensor *t) { return cf_tensor_present(t) ? 1 : 0; }

/* The head matrices a net computing r's heads uploads: the policy
 * embedding and each computed policy head's wq, wk and promotion matrix;
 * each computed value head's and the moves-left head's embedding and dense
 * layers. */
static int head_matrices(const cf_weights *w, const net_result *r) {
  int n = present(&w->policy_ip_pol_w);
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
    if (r->policy_heads >> h & 1)
      n += present(&w->policy[h].ip2_pol_w) + present(&w->policy[h].ip3_pol_w) +
           present(&w->policy[h].ip4_pol_w);
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++) {
    const cf_value_head_weights *v = &w->value[h];
    if (r->value_heads >> h & 1)
      n += present(&v->ip_val_w) + present(&v->ip1_val_w) + present(&v->ip2_val_w) +
           present(&v->ip_val_err_w) + present(&v->ip_val_cat_w);
  }
  if (r->moves_left) n += present(&w->ip_mov_w) + present(&w->ip1_mov_w) + present(&w->ip2_mov_w);
  return n;
}

/* How many cases' Q differ between two runs. */
static int q_differs(const net_result *a, const net_result *b) {
  int n = 0;
  for (int i = 0; i < a->n && i < b->n; i++) n += a->q[i] != b->q[i];
  return n;
}

static void check_net(cf_test *t, const char *name) {
  cf_parity_case *cases = NULL;
  cf_weights *w = NULL;
  int count = 0;
  char msg[512];
  if (!CHECK(cf_parity_load_net(name, &cases, &count, &w, msg, sizeof msg))) {
    fprintf(stderr, "%s\n", msg);
    return;
  }
  free(cases);
  static net_result plain, emb, heads, f32;
  char opts[3][96];
  const char *p = cf_precision_name(reduced);
  snprintf(opts[0], sizeof opts[0], "precision=%s", p);
  snprintf(opts[1], sizeof opts[1], "precision=%s,f32_roles=embedding", p);
  snprintf(opts[2], sizeof opts[2], "precision=%s,f32_roles=heads", p);
  if (net_run(t, name, opts[0], &plain) && net_run(t, name, opts[1], &emb) &&
      net_run(t, name, opts[2], &heads) && net_run(t, name, "precision=f32", &f32) &&
      CHECK(plain.n == emb.n && emb.n == heads.n && heads.n == f32.n)) {
    /* ip_emb_w, and the dense embedding's preprocessing matrix. */
    const int n_emb = 1 + (w->arch.emb_dense_s > 0 && present(&w->ip_emb_preproc_w));
    const int n_heads = head_matrices(w, &heads);
    printf("%s at %s: %d of %d matrices kept f32 with f32_roles=embedding, %d with heads, %d "
           "without\n",
           name, p, emb.kept, emb.total, heads.kept, plain.kept);
    CHECK_STR_CONTAINS(emb.variant, "input embedding kept in float32 (f32_roles)");
    CHECK_STR_CONTAINS(heads.variant, "head kept in float32 (f32_roles)");
    CHECK_INT_EQ(emb.kept, plain.kept + n_emb);     /* exactly the embedding's matrices more */
    CHECK_INT_EQ(heads.kept, plain.kept + n_heads); /* exactly the heads' */
    CHECK(emb.total > emb.kept && heads.total > heads.kept); /* the body still converted */
    if (plain.total >= 0) CHECK(plain.total == emb.total && emb.total == heads.total);
    CHECK(q_differs(&emb, &f32) > 0);   /* still a reduced-precision net */
    CHECK(q_differs(&emb, &plain) > 0); /* and not the plain one: the embedding changed */
    CHECK(q_differs(&heads, &f32) > 0);
  }
  cf_weights_free(w);
}

static void test_nets(cf_test *t) {
  for (int i = 0; i < cf_parity_net_count; i++) check_net(t, cf_parity_nets[i]);
}

int main(int argc, char **argv) {
  (void)argc;
  cf_error err = {0};
  if (creates("onednn", "precision=int8", &err))
    reduced = CF_PRECISION_INT8;
  else if (creates("onednn", "precision=bf16", &err))
    reduced = CF_PRECISION_BF16;
  else
    printf("skip the oneDNN checks: this CPU runs neither int8 nor bf16 there (%s)\n", err.msg);
  const char *names[] = {"test_bad_values", "test_accepted_everywhere", "test_ops", "test_nets"};
  const cf_test_fn fns[] = {test_bad_values, test_accepted_everywhere, test_ops, test_nets};
  return cf_test_run(names, fns, reduced == CF_PRECISION_F32 ? 2 : 4, 1, argv);
}
