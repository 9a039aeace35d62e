/* test_backends.c: the backend seam (registry, creation errors, capability
 * check) and the reference backend's ops against formulas computed here in
 * double precision; then every registered backend against the reference
 * (a new backend is tested with no new test). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "backends/ref/cf_ref_backend.h"
#include "tests/backends/cf_attention_ref.h"
#include "tests/backends/cf_kernel_sets.h"
#include "tests/cf_test.h"

/* Deterministic uniform numbers in [-1, 1). */
static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static float rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((rng_state >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
}
static void fill_random(float *x, size_t n) {
  for (size_t i = 0; i < n; i++) x[i] = rnd();
}

static cf_backend *make(cf_test *t, const char *name, int max_batch) {
  cf_backend_config cfg = {.max_batch = max_batch};
  cf_backend *be = NULL;
  cf_error err = {0};
  if (!CHECK(cf_backend_create(name, &cfg, &be, &err) == CF_OK)) fprintf(stderr, "%s\n", err.msg);
  return be;
}

/* Uploads host data as backend memory. */
static float *up(cf_backend *be, const float *host, size_t n) {
  float *d = cf_op_alloc(be, n);
  cf_op_upload(be, d, host, n);
  return d;
}

static cf_bweight *weight(cf_backend *be, cf_weight_role role, int rows, int cols,
                          const float *data) {
  cf_bweight *w = NULL;
  cf_op_weight(be, role, rows, cols, data, &w, NULL);
  return w;
}

/* A relative position table of `heads` heads for side role. */
static cf_bweight *rpe_weight(cf_backend *be, cf_weight_role role, int heads, int cols,
                              const float *data) {
  cf_bweight *w = NULL;
  cf_op_weight_rpe(be, role, heads, 225, cols, data, &w, NULL);
  return w;
}

static void test_registry(cf_test *t) {
  CHECK(cf_backend_count() >= 1);
  const cf_backend_desc *ref = cf_backend_find("ref");
  if (!CHECK(ref != NULL)) return;
  CHECK(ref == &cf_backend_ref_desc);
  CHECK(cf_backend_find("no-such-backend") == NULL);
  CHECK(cf_backend_find(NULL) == NULL);
  const cf_backend_desc *def = cf_backend_default();
  if (!CHECK(def != NULL)) return;
  CHECK(def->priority >= 0);
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    CHECK(d->name && d->summary && d->iface);
    if (d->priority >= 0 && (!d->probe || d->probe())) CHECK(d->priority <= def->priority);
  }
  CHECK(cf_backend_at(-1) == NULL);
  CHECK(cf_backend_at(cf_backend_count()) == NULL);
}

static void test_create_errors(cf_test *t) {
  cf_backend_config cfg = {.max_batch = 4};
  cf_backend *be = (cf_backend *)1;
  cf_error err = {0};
  CHECK_INT_EQ(cf_backend_create("no-such-backend", &cfg, &be, &err), CF_ERR_ARG);
  CHECK(be == NULL);
  CHECK_STR_CONTAINS(err.msg, "no-such-backend");
  CHECK_STR_CONTAINS(err.msg, "ref"); /* lists what exists */
  cfg.options = "threads=2";
  CHECK_INT_EQ(cf_backend_create("ref", &cfg, &be, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "threads=2");
  CHECK_STR_CONTAINS(err.msg, "ref");
  cfg = (cf_backend_config){.max_batch = 0};
  CHECK_INT_EQ(cf_backend_create("ref", &cfg, &be, &err), CF_ERR_ARG);
  CHECK_INT_EQ(cf_backend_create("ref", &cfg, &be, NULL), CF_ERR_ARG); /* err may be NULL */
  /* The reference's fault injection: passes after the first N fail. */
  cfg = (cf_backend_config){.max_batch = 1, .options = "fail_after=2"};
  if (CHECK_INT_EQ(cf_backend_create("ref", &cfg, &be, &err), CF_OK)) {
    CHECK_INT_EQ(cf_op_sync(be, &err), CF_OK);
    CHECK_INT_EQ(cf_op_sync(be, &err), CF_OK);
    CHECK_INT_EQ(cf_op_sync(be, &err), CF_ERR_BACKEND);
    CHECK_STR_CONTAINS(err.msg, "injected failure after 2");
    CHECK_INT_EQ(cf_op_sync(be, &err), CF_ERR_BACKEND);
    cf_backend_free(be);
  }
  cfg.options = "fail_after=-1";
  CHECK_INT_EQ(cf_backend_create("ref", &cfg, &be, &err), CF_ERR_ARG);
  be = make(t, NULL, 1);                                               /* the default */
  CHECK(be != NULL);
  cf_backend_free(be);
  cf_backend_free(NULL);
}

/* A test double that runs nothing optional; it is never created, only
 * checked. It claims gating, but its gate slot is empty. */
static const cf_backend_iface bare_iface = {.gate = NULL};
static const cf_backend_desc bare_desc = {
    .name = "bare-test-double",
    .summary = "reference ops without optional features",
    .priority = -1,
    .features = CF_FEAT_GATING,
    .activations = 1u << CF_OP_ACT_NONE,
    .iface = &bare_iface,
};

static void test_capability_check(cf_test *t) {
  cf_backend bare = {.desc = &bare_desc, .iface = &bare_iface, .ctx = NULL};
  cf_error err = {0};
  CHECK_INT_EQ(cf_backend_check(&bare, CF_FEAT_RPE_K | CF_FEAT_SMOLGEN, 0, &err),
               CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "bare-test-double");
  CHECK_STR_CONTAINS(err.msg, "RPE k");
  CHECK_INT_EQ(cf_backend_check(&bare, 0, 1u << CF_OP_ACT_MISH, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "mish");
  CHECK_INT_EQ(cf_backend_check(&bare, 0, 1u << CF_OP_ACT_NONE, &err), CF_OK);
  CHECK_INT_EQ(cf_backend_check(&bare, CF_FEAT_GATING, 0, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "gating");
  cf_backend *ref = make(t, "ref", 1);
  if (!ref) return;
  unsigned all = (1u << CF_FEAT_COUNT) - 1, acts = 0;
  for (int a = 1; a <= CF_OP_ACT_MAX; a++) acts |= 1u << a;
  CHECK_INT_EQ(cf_backend_check(ref, all, acts, &err), CF_OK);
  cf_backend_free(ref);
  for (unsigned bit = 1; bit < (1u << CF_FEAT_COUNT); bit <<= 1)
    CHECK(strcmp(cf_feature_name(bit), "unknown feature") != 0);
}

static double act_ref(cf_op_act a, double x) {
  switch (a) {
    case CF_OP_ACT_MISH: return x * tanh(log1p(exp(x)));
    case CF_OP_ACT_RELU: return x > 0 ? x : 0;
    case CF_OP_ACT_NONE: return x;
    case CF_OP_ACT_TANH: return tanh(x);
    case CF_OP_ACT_SIGMOID: return 1 / (1 + exp(-x));
    case CF_OP_ACT_SELU:
      return 1.0507009873554805 * (x > 0 ? x : 1.6732632423543772 * (exp(x) - 1));
    case CF_OP_ACT_SWISH: return x / (1 + exp(-x));
    case CF_OP_ACT_RELU2: return x > 0 ? x * x : 0;
  }
  return NAN;
}

static void test_ref_linear_and_activations(cf_test *t) {
  cf_backend *be = make(t, "ref", 4);
  if (!be) return;
  enum { ROWS = 5, IN = 7, OUT = 3 };
  float x[ROWS * IN], w[OUT * IN], b[OUT], y[ROWS * OUT];
  fill_random(x, ROWS * IN);
  fill_random(w, OUT * IN);
  fill_random(b, OUT);
  for (int i = 0; i < ROWS * IN; i++) x[i] *= 3.0f; /* reach the tails of the activations */
  cf_bweight *W = weight(be, CF_WEIGHT_MATRIX, OUT, IN, w),
             *B = weight(be, CF_WEIGHT_VECTOR, 1, OUT, b);
  float *dx = up(be, x, ROWS * IN), *dy = cf_op_alloc(be, ROWS * OUT);
  for (int a = 1; a <= CF_OP_ACT_MAX; a++)
    for (int with_bias = 0; with_bias < 2; with_bias++) {
      cf_op_linear(be, ROWS, IN, OUT, dx, W, with_bias ? B : NULL, (cf_op_act)a, dy);
      cf_op_download(be, y, dy, ROWS * OUT);
      for (int r = 0; r < ROWS; r++)
        for (int o = 0; o < OUT; o++) {
          double acc = with_bias ? b[o] : 0.0;
          for (int i = 0; i < IN; i++) acc += (double)x[r * IN + i] * w[o * IN + i];
          CHECK_NEAR(y[r * OUT + o], act_ref((cf_op_act)a, acc), 1e-5 * (1 + fabs(acc * acc)));
        }
    }
  /* Known values. */
  float pts[4] = {-2.0f, 0.0f, 0.5f, 3.0f}, eye = 1.0f, out;
  cf_bweight *one = weight(be, CF_WEIGHT_MATRIX, 1, 1, &eye);
  float *dp = cf_op_alloc(be, 1), *dq = cf_op_alloc(be, 1);
  for (int a = 1; a <= CF_OP_ACT_MAX; a++)
    for (int k = 0; k < 4; k++) {
      cf_op_upload(be, dp, &pts[k], 1);
      cf_op_linear(be, 1, 1, 1, dp, one, NULL, (cf_op_act)a, dq);
      cf_op_download(be, &out, dq, 1);
      CHECK_NEAR(out, act_ref((cf_op_act)a, pts[k]), 1e-6);
    }
  cf_op_upload(be, dp, &pts[3], 1);
  cf_op_linear(be, 1, 1, 1, dp, one, NULL, CF_OP_ACT_MISH, dq);
  cf_op_download(be, &out, dq, 1);
  CHECK_NEAR(out, 2.98653500, 1e-6); /* mish(3) */
  cf_op_free(be, dp);
  cf_op_free(be, dq);
  cf_op_weight_free(be, one);
  cf_op_free(be, dx);
  cf_op_free(be, dy);
  cf_op_weight_free(be, W);
  cf_op_weight_free(be, B);
  cf_backend_free(be);
}

static void test_ref_norm(cf_test *t) {
  cf_backend *be = make(t, "ref", 1);
  if (!be) return;
  enum { ROWS = 3, W = 10 };
  float x[ROWS * W], skip[ROWS * W], g[W], bt[W], y[ROWS * W];
  fill_random(x, ROWS * W);
  fill_random(skip, ROWS * W);
  fill_random(g, W);
  fill_random(bt, W);
  cf_bweight *G = weight(be, CF_WEIGHT_VECTOR, 1, W, g),
             *Bt = weight(be, CF_WEIGHT_VECTOR, 1, W, bt);
  const float alpha = 0.7f, eps = 1e-3f;
  for (int kind = 0; kind < 2; kind++)
    for (int with_skip = 0; with_skip < 2; with_skip++) {
      float *dx = up(be, x, ROWS * W), *ds = up(be, skip, ROWS * W);
      /* in place into the skip buffer, as the encoder does */
      cf_op_norm(be, kind ? CF_NORM_RMS : CF_NORM_LAYER, ROWS, W, dx, alpha, with_skip ? ds : NULL,
                 G, kind ? NULL : Bt, eps, ds);
      cf_op_download(be, y, ds, ROWS * W);
      for (int r = 0; r < ROWS; r++) {
        double v[W], mean = 0, var = 0, sq = 0;
        for (int c = 0; c < W; c++) {
          v[c] = (with_skip ? skip[r * W + c] : 0.0) + alpha * (double)x[r * W + c];
          mean += v[c] / W;
          sq += v[c] * v[c] / W;
        }
        for (int c = 0; c < W; c++) var += (v[c] - mean) * (v[c] - mean) / W;
        for (int c = 0; c < W; c++) {
          double want =
              kind ? v[c] / sqrt(sq + eps) * g[c] : (v[c] - mean) / sqrt(var + eps) * g[c] + bt[c];
          CHECK_NEAR(y[r * W + c], want, 1e-5);
        }
      }
      cf_op_free(be, dx);
      cf_op_free(be, ds);
    }
  cf_op_weight_free(be, G);
  cf_op_weight_free(be, Bt);
  cf_backend_free(be);
}

/* Attention of one shape on one backend against the double-precision
 * formula, for every subset of the RPE terms, with and without a bias. */
static void attention_case(cf_test *t, const char *backend, int B, int H, int DH) {
  const int DM = H * DH;
  cf_backend *be = make(t, backend, B);
  if (!be) return;
  size_t n_qkv = (size_t)B * 64 * 3 * DM, n_out = (size_t)B * 64 * DM, n_bias = (size_t)B * H * 4096;
  float *qkv = malloc(n_qkv * sizeof *qkv), *e[3], *bias = malloc(n_bias * sizeof *bias),
        *got = malloc(n_out * sizeof *got);
  double *want = malloc(n_out * sizeof *want);
  fill_random(qkv, n_qkv);
  fill_random(bias, n_bias);
  cf_bweight *E[3];
  for (int i = 0; i < 3; i++) {
    e[i] = malloc((size_t)225 * DM * sizeof(float));
    fill_random(e[i], (size_t)225 * DM);
    const cf_weight_role side[3] = {CF_WEIGHT_RPE_Q, CF_WEIGHT_RPE_K, CF_WEIGHT_RPE_V};
    E[i] = rpe_weight(be, side[i], H, DM, e[i]);
  }
  float *dqkv = up(be, qkv, n_qkv), *dbias = up(be, bias, n_bias), *dout = cf_op_alloc(be, n_out);
  for (int variant = 0; variant < 16; variant++) {
    /* bits: 1 RPE q, 2 RPE k, 4 RPE v, 8 smolgen bias */
    bool use[3] = {variant & 1, variant & 2, variant & 4}, sg = variant & 8;
    cf_attention_args a = {.batch = B,
                           .heads = H,
                           .depth = DH,
                           .qkv = dqkv,
                           .rpe_q = use[0] ? E[0] : NULL,
                           .rpe_k = use[1] ? E[1] : NULL,
                           .rpe_v = use[2] ? E[2] : NULL,
                           .bias = sg ? dbias : NULL,
                           .scale = 1.0f / sqrtf((float)DH),
                           .out = dout};
    cf_op_attention(be, &a);
    CHECK_INT_EQ(cf_op_sync(be, NULL), CF_OK);
    cf_op_download(be, got, dout, n_out);
    attention_ref(B, H, DH, qkv, use[0] ? e[0] : NULL, use[1] ? e[1] : NULL, use[2] ? e[2] : NULL,
                  sg ? bias : NULL, want);
    double worst = 0;
    for (size_t i = 0; i < n_out; i++) worst = fmax(worst, fabs(got[i] - want[i]));
    if (!CHECK_NEAR(worst, 0.0, 2e-5))
      fprintf(stderr, "%s: attention B %d H %d dh %d variant %d\n", backend, B, H, DH, variant);
  }
  cf_op_free(be, dqkv);
  cf_op_free(be, dbias);
  cf_op_free(be, dout);
  for (int i = 0; i < 3; i++) {
    cf_op_weight_free(be, E[i]);
    free(e[i]);
  }
  cf_backend_free(be);
  free(qkv);
  free(bias);
  free(got);
  free(want);
}

/* Shapes: odd depth (masked tails), the default net's head (dh 16: one
 * vector per value row), a CF-6M head (dh 32), and a depth past the CPU
 * kernels' fast path (dh 136). Every available backend. */
static void test_attention_every_backend(cf_test *t) {
  const int shapes[][3] = {{2, 2, 3}, {2, 4, 16}, {2, 3, 32}, {1, 1, 136}};
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    if (d->priority < 0 || (d->probe && !d->probe())) continue;
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++)
      attention_case(t, d->name, shapes[s][0], shapes[s][1], shapes[s][2]);
  }
}

static void test_ref_gate_matmul_copy(cf_test *t) {
  enum { B = 2, D = 5 };
  cf_backend *be = make(t, "ref", B);
  if (!be) return;
  static float x[B * 64 * D], mult[D * 64], add[D * 64], y[B * 64 * D];
  fill_random(x, B * 64 * D);
  fill_random(mult, D * 64);
  fill_random(add, D * 64);
  cf_bweight *M = weight(be, CF_WEIGHT_GATE, D, 64, mult),
             *A = weight(be, CF_WEIGHT_GATE, D, 64, add);
  float *dx = up(be, x, B * 64 * D);
  cf_op_gate(be, B, D, dx, M, A);
  cf_op_download(be, y, dx, B * 64 * D);
  for (int b = 0; b < B; b++)
    for (int tk = 0; tk < 64; tk++)
      for (int c = 0; c < D; c++) {
        int i = (b * 64 + tk) * D + c;
        CHECK_NEAR(y[i], x[i] * mult[c * 64 + tk] + add[c * 64 + tk], 1e-6);
      }
  /* matmul_nt: c[b][i][j] = s * a[b][i] . bm[b][j] */
  enum { MM = 3, NN = 4, KK = 5 };
  float a[B * MM * KK], bm[B * NN * KK], c[B * MM * NN];
  fill_random(a, B * MM * KK);
  fill_random(bm, B * NN * KK);
  float *da = up(be, a, B * MM * KK), *db = up(be, bm, B * NN * KK),
        *dc = cf_op_alloc(be, B * MM * NN);
  cf_op_matmul_nt(be, B, MM, NN, KK, da, db, 0.5f, dc);
  cf_op_download(be, c, dc, B * MM * NN);
  for (int b = 0; b < B; b++)
    for (int i = 0; i < MM; i++)
      for (int j = 0; j < NN; j++) {
        double acc = 0;
        for (int l = 0; l < KK; l++)
          acc += (double)a[(b * MM + i) * KK + l] * bm[(b * NN + j) * KK + l];
        CHECK_NEAR(c[(b * MM + i) * NN + j], 0.5 * acc, 1e-6);
      }
  /* copy_2d: columns 2..4 of a 6-wide buffer from a 3-wide one */
  float src[4 * 3], dst[4 * 6] = {0};
  fill_random(src, 12);
  float *ds = up(be, src, 12), *dd = up(be, dst, 24);
  cf_op_copy_2d(be, 4, 3, ds, 3, dd + 2, 6);
  cf_op_download(be, dst, dd, 24);
  for (int r = 0; r < 4; r++)
    for (int col = 0; col < 6; col++)
      CHECK(dst[r * 6 + col] == (col >= 2 && col < 5 ? src[r * 3 + col - 2] : 0.0f));
  CHECK(cf_op_sync(be, NULL) == CF_OK);
  float *bufs[] = {dx, da, db, dc, ds, dd};
  for (int i = 0; i < 6; i++) cf_op_free(be, bufs[i]);
  cf_op_weight_free(be, M);
  cf_op_weight_free(be, A);
  cf_backend_free(be);
}

/* Runs a fixed op sequence on backend `be` and returns the downloaded
 * results (n floats in out). */
static void op_sequence(cf_backend *be, float *out, int *n) {
  enum { B = 2, D = 8, H = 2, DH = 4, DM = H * DH };
  rng_state = 12345;
  static float x[B * 64 * D], wqkv[3 * DM * D], bqkv[3 * DM], rpe[225 * DM], g[D], bt[D],
      gate[D * 64];
  fill_random(x, B * 64 * D);
  fill_random(wqkv, 3 * DM * D);
  fill_random(bqkv, 3 * DM);
  fill_random(rpe, 225 * DM);
  fill_random(g, D);
  fill_random(bt, D);
  fill_random(gate, D * 64);
  cf_bweight *W = weight(be, CF_WEIGHT_MATRIX, 3 * DM, D, wqkv),
             *Bq = weight(be, CF_WEIGHT_VECTOR, 1, 3 * DM, bqkv),
             *Eq = rpe_weight(be, CF_WEIGHT_RPE_Q, H, DM, rpe),
             *Ek = rpe_weight(be, CF_WEIGHT_RPE_K, H, DM, rpe),
             *Ev = rpe_weight(be, CF_WEIGHT_RPE_V, H, DM, rpe),
             *G = weight(be, CF_WEIGHT_VECTOR, 1, D, g),
             *Bt = weight(be, CF_WEIGHT_VECTOR, 1, D, bt),
             *Gt = weight(be, CF_WEIGHT_GATE, D, 64, gate);
  float *dx = up(be, x, B * 64 * D), *dqkv = cf_op_alloc(be, B * 64 * 3 * DM),
        *dattn = cf_op_alloc(be, B * 64 * DM), *dlog = cf_op_alloc(be, B * 64 * 64);
  if (be->iface->gate) cf_op_gate(be, B, D, dx, Gt, NULL);
  cf_op_norm(be, CF_NORM_LAYER, B * 64, D, dx, 1.0f, NULL, G, Bt, 1e-3f, dx);
  cf_op_linear(be, B * 64, D, 3 * DM, dx, W, Bq, CF_OP_ACT_MISH, dqkv);
  cf_attention_args a = {.batch = B,
                         .heads = H,
                         .depth = DH,
                         .qkv = dqkv,
                         .rpe_q = Eq,
                         .rpe_k = Ek,
                         .rpe_v = Ev,
                         .scale = 0.5f,
                         .out = dattn};
  cf_op_attention(be, &a);
  cf_op_matmul_nt(be, B, 64, 64, DM, dattn, dattn, 0.25f, dlog);
  cf_op_sync(be, NULL);
  cf_op_download(be, out, dattn, B * 64 * DM);
  cf_op_download(be, out + B * 64 * DM, dlog, B * 64 * 64);
  *n = B * 64 * DM + B * 64 * 64;
  float *bufs[] = {dx, dqkv, dattn, dlog};
  for (int i = 0; i < 4; i++) cf_op_free(be, bufs[i]);
  cf_bweight *ws[] = {W, Bq, Eq, Ek, Ev, G, Bt, Gt};
  for (int i = 0; i < 8; i++) cf_op_weight_free(be, ws[i]);
}

static void test_every_backend_matches_ref(cf_test *t) {
  static float want[2 * 64 * 8 + 2 * 4096], got[2 * 64 * 8 + 2 * 4096];
  int n_want = 0, n_got = 0;
  cf_backend *ref = make(t, "ref", 2);
  if (!ref) return;
  op_sequence(ref, want, &n_want);
  cf_backend_free(ref);
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    /* the simulated device runs no op (backends/sim/: net/ answers for it) */
    if ((d->probe && !d->probe()) || !d->iface || d->iface->pass_seconds) continue;
    cf_backend *be = make(t, d->name, 2);
    if (!be) continue;
    op_sequence(be, got, &n_got);
    CHECK_INT_EQ(n_got, n_want);
    double worst = 0;
    for (int k = 0; k < n_want; k++)
      worst = fmax(worst, fabs(got[k] - want[k]) / (1 + fabs(want[k])));
    if (!CHECK(worst <= 1e-4)) fprintf(stderr, "backend %s deviates by %g\n", d->name, worst);
    cf_backend_free(be);
  }
}

/* linear with every activation (bias + activation is a CPU kernel on
 * openblas) and both norms, at a width with a vector tail, on every
 * backend against the reference. */
static void rowops_sequence(cf_backend *be, float *out, int *n) {
  enum { R = 64, IN = 16, W = 37 };
  rng_state = 777;
  static float x[R * IN], w[W * IN], b[W], skip[R * W], g[W], bt[W];
  fill_random(x, R * IN);
  fill_random(w, W * IN);
  fill_random(b, W);
  fill_random(skip, R * W);
  fill_random(g, W);
  fill_random(bt, W);
  for (int i = 0; i < R * IN; i++) x[i] *= 4.0f; /* reach the activations' tails */
  cf_bweight *Wm = weight(be, CF_WEIGHT_MATRIX, W, IN, w),
             *Bv = weight(be, CF_WEIGHT_VECTOR, 1, W, b),
             *G = weight(be, CF_WEIGHT_VECTOR, 1, W, g),
             *Bt = weight(be, CF_WEIGHT_VECTOR, 1, W, bt);
  float *dx = up(be, x, R * IN), *dy = cf_op_alloc(be, R * W), *dskip = up(be, skip, R * W);
  *n = 0;
  for (int a = CF_OP_ACT_MISH; a <= CF_OP_ACT_MAX; a++) {
    cf_op_linear(be, R, IN, W, dx, Wm, Bv, (cf_op_act)a, dy);
    cf_op_sync(be, NULL);
    cf_op_download(be, out + *n, dy, R * W);
    *n += R * W;
  }
  for (int kind = 0; kind < 2; kind++) {
    /* y = Norm(skip + 0.7 y) in place on the last linear's output. */
    cf_op_norm(be, kind ? CF_NORM_RMS : CF_NORM_LAYER, R, W, dy, 0.7f, dskip, G,
               kind ? NULL : Bt, 1e-3f, dy);
    cf_op_sync(be, NULL);
    cf_op_download(be, out + *n, dy, R * W);
    *n += R * W;
  }
  float *bufs[] = {dx, dy, dskip};
  for (int i = 0; i < 3; i++) cf_op_free(be, bufs[i]);
  cf_bweight *ws[] = {Wm, Bv, G, Bt};
  for (int i = 0; i < 4; i++) cf_op_weight_free(be, ws[i]);
}

static void test_every_backend_rowops_match_ref(cf_test *t) {
  enum { MAXN = (CF_OP_ACT_MAX + 2) * 64 * 37 };
  static float want[MAXN], got[MAXN];
  int n_want = 0, n_got = 0;
  cf_backend *ref = make(t, "ref", 64);
  if (!ref) return;
  rowops_sequence(ref, want, &n_want);
  cf_backend_free(ref);
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    if (d->priority < 0 || (d->probe && !d->probe())) continue;
    cf_backend *be = make(t, d->name, 64);
    if (!be) continue;
    rowops_sequence(be, got, &n_got);
    CHECK_INT_EQ(n_got, n_want);
    double worst = 0;
    int at = 0;
    for (int k = 0; k < n_want; k++) {
      double dev = fabs(got[k] - want[k]) / (1 + fabs(want[k]));
      if (dev > worst) {
        worst = dev;
        at = k;
      }
    }
    if (!CHECK(worst <= 1e-4))
      fprintf(stderr, "backend %s: row ops deviate by %g (block %d of linear per activation, "
              "then the norms)\n", d->name, worst, at / (64 * 37));
    cf_backend_free(be);
  }
}

/* Names the kernel set each CPU backend runs; under CFORMER_CPU_KERNELS
 * (the backends/ops-portable run) it must be the named one, or that run
 * would prove nothing about it. */
static void test_cpu_kernel_set_in_use(cf_test *t) {
  const char *want = getenv("CFORMER_CPU_KERNELS");
  CHECK(cf_backend_count() >= 1);
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    if (d->priority < 0 || !d->iface->variant) continue;
    cf_backend *be = make(t, d->name, 1);
    if (!be) continue;
    const char *got = cf_backend_variant(be);
    printf("  %s runs the %s kernels\n", d->name, got ? got : "(none)");
    char set[64];
    if (want && *want) CHECK_STR_EQ(variant_set(got, set, sizeof set), want);
    else CHECK(got && *got);
    cf_backend_free(be);
  }
}

CF_TEST_MAIN(test_registry, test_create_errors, test_capability_check,
             test_ref_linear_and_activations, test_ref_norm, test_cpu_kernel_set_in_use,
             test_attention_every_backend, test_ref_gate_matmul_copy,
             test_every_backend_matches_ref, test_every_backend_rowops_match_ref)
