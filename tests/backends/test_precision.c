/* test_precision.c: the precision=f32|bf16|int8 backend option.
 *
 *   options:  precision= taken out of the option string, bad values and
 *             backends that do not run a precision refused with clear
 *             messages, f32 accepted by every backend;
 *   linear:   the oneDNN backend's bf16 and int8 projections against a
 *             float64 reference within the error the number format allows
 *             (and not equal to float32: the conversion really happens),
 *             over shapes (one spanning several of the backend's row
 *             blocks), activations, with and without bias; int8 rows bit
 *             for bit the same whatever batch they run in;
 *   kept:     a weight that overflows bf16, or that int8 cannot hold (one
 *             outlier per channel), is kept in float32 and reported in the
 *             variant string;
 *   refused:  run with ONEDNN_MAX_CPU_ISA=AVX2 (meson registers it so), so
 *             that this machine takes the path of a CPU without AVX512_BF16
 *             or VNNI: both refused naming the missing ISA, f32 still runs.
 *
 * Where this CPU lacks an ISA a precision needs, its linear/kept checks are
 * replaced by a check of the refusal (printed as a skip). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "backends/cf_backend_options.h"
#ifdef CF_HAVE_ONEDNN
#include "backends/onednn/cf_onednn_auto_precision.h"
#endif
#include "tests/cf_test.h"

/* precision=... read from a list: *p; F32 when absent. */
static cf_status read_precision(const char *text, cf_precision *p, bool *automatic, cf_error *err) {
  cf_kv *kv = NULL;
  cf_status st = cf_kv_parse(text, &kv, err);
  if (st == CF_OK) st = cf_backend_read_precision(kv, p, automatic, err);
  cf_kv_free(kv);
  return st;
}

static void test_read_precision(cf_test *t) {
  cf_precision p = CF_PRECISION_INT8;
  cf_error err = {0};
  CHECK_INT_EQ(read_precision(NULL, &p, NULL, &err), CF_OK);
  CHECK_INT_EQ(p, CF_PRECISION_F32);
  CHECK_INT_EQ(read_precision("threads=2,precision=int8,,x=1", &p, NULL, &err), CF_OK);
  CHECK_INT_EQ(p, CF_PRECISION_INT8);
  CHECK_INT_EQ(read_precision("precision=bf16", &p, NULL, &err), CF_OK);
  CHECK_INT_EQ(p, CF_PRECISION_BF16);
  CHECK_INT_EQ(read_precision("precision=bf16,precision=f32", &p, NULL, &err), CF_OK);
  CHECK_INT_EQ(p, CF_PRECISION_F32); /* the last one wins */
  const char *bad[] = {"precision=fp16", "precision=", "precision=BF16", "precision=int8x"};
  for (int i = 0; i < 4; i++) {
    CHECK_INT_EQ(read_precision(bad[i], &p, NULL, &err), CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, bad[i]);
    CHECK_STR_CONTAINS(err.msg, "known: f32, bf16, int8");
  }
  CHECK_STR_EQ(cf_precision_name(CF_PRECISION_BF16), "bf16");
  /* auto: only for a caller that takes it; F32 with the flag set, and the
   * last item wins either way. */
  bool automatic = false;
  CHECK_INT_EQ(read_precision("precision=auto", &p, NULL, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "known: f32, bf16, int8)");
  CHECK_INT_EQ(read_precision("x=1,precision=auto", &p, &automatic, &err), CF_OK);
  CHECK(automatic);
  CHECK_INT_EQ(p, CF_PRECISION_F32);
  CHECK_INT_EQ(read_precision("precision=auto,precision=int8", &p, &automatic, &err), CF_OK);
  CHECK(!automatic);
  CHECK_INT_EQ(p, CF_PRECISION_INT8);
  CHECK_INT_EQ(read_precision("precision=Auto", &p, &automatic, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "known: f32, bf16, int8, auto");
}

/* precision=auto is never refused: every backend creates with it, takes
 * cf_backend_auto_precision's pick, and a backend that picks a reduced
 * precision says so in its variant string. */
static void test_auto(cf_test *t) {
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    if (d->probe && !d->probe()) continue;
    const cf_precision pick = cf_backend_auto_precision(d);
    CHECK(pick == CF_PRECISION_F32 || (d->precisions & (1u << pick)));
    cf_backend_config cfg = {.max_batch = 2, .options = "threads=1,precision=auto"};
    cf_backend *be = NULL;
    cf_error err = {0};
    if (!CHECK_INT_EQ(cf_backend_create(d->name, &cfg, &be, &err), CF_OK)) {
      printf("%s: %s\n", d->name, err.msg);
      continue;
    }
    const char *variant = cf_backend_variant(be);
    printf("%s: precision=auto runs %s (%s)\n", d->name, cf_precision_name(pick),
           variant ? variant : "one code path");
    if (pick != CF_PRECISION_F32) {
      CHECK(variant != NULL);
      if (variant) {
        char want[48];
        snprintf(want, sizeof want, "%s matmuls (precision=auto: ", cf_precision_name(pick));
        CHECK_STR_CONTAINS(variant, want);
      }
      /* The pick is one the backend runs when asked for by name. */
      char opts[32];
      snprintf(opts, sizeof opts, "precision=%s", cf_precision_name(pick));
      cf_backend *named = NULL;
      cfg.options = opts;
      if (CHECK_INT_EQ(cf_backend_create(d->name, &cfg, &named, &err), CF_OK))
        cf_backend_free(named);
    }
    cf_backend_free(be);
  }
}

#ifdef CF_HAVE_ONEDNN
/* onednn's auto: bf16 only where it runs natively and its probe matmul
 * beats float32's by the margin; the rule apart from the clock; the pick
 * stable within the process and said in the variant. */
static void test_auto_probe(cf_test *t) {
  const double m = CF_ONEDNN_AUTO_BF16_MIN_SPEEDUP;
  CHECK_INT_EQ(cf_onednn_auto_decide(1.0, 1.0), CF_PRECISION_F32);
  CHECK_INT_EQ(cf_onednn_auto_decide(m, 1.0), CF_PRECISION_BF16);
  CHECK_INT_EQ(cf_onednn_auto_decide(m * 0.99, 1.0), CF_PRECISION_F32);
  CHECK_INT_EQ(cf_onednn_auto_decide(2.0e-3, 1.0e-3), CF_PRECISION_BF16);
  CHECK_INT_EQ(cf_onednn_auto_decide(1.0e-3, 1.9e-3), CF_PRECISION_F32);
  CHECK_INT_EQ(cf_onednn_auto_decide(0.0, 1.0), CF_PRECISION_F32);
  CHECK_INT_EQ(cf_onednn_auto_decide(1.0, 0.0), CF_PRECISION_F32);
  CHECK_INT_EQ(cf_onednn_auto_decide(NAN, 1.0), CF_PRECISION_F32);

  cf_backend_config cfg = {.max_batch = 1, .options = "precision=bf16"};
  cf_backend *be = NULL;
  cf_error err = {0};
  const bool native = cf_backend_create("onednn", &cfg, &be, &err) == CF_OK;
  cf_backend_free(be);
  const cf_onednn_auto_pick *pick = cf_onednn_auto_pick_get();
  printf("onednn auto: %s (%s; f32 %.3g s, bf16 %.3g s)\n", cf_precision_name(pick->precision),
         pick->why, pick->f32_s, pick->bf16_s);
  if (native) {
    CHECK(pick->timed);
    CHECK(pick->f32_s > 0 && pick->bf16_s > 0);
    CHECK_INT_EQ(pick->precision, cf_onednn_auto_decide(pick->f32_s, pick->bf16_s));
    CHECK_STR_CONTAINS(pick->why, "x f32 here");
  } else {
    CHECK(!pick->timed);
    CHECK_INT_EQ(pick->precision, CF_PRECISION_F32);
    CHECK_STR_CONTAINS(pick->why, "no native bf16");
  }
  /* Probed once: the same answer, from the same record, every time. */
  const cf_onednn_auto_pick before = *pick;
  CHECK(cf_onednn_auto_pick_get() == pick);
  CHECK(memcmp(&before, cf_onednn_auto_pick_get(), sizeof before) == 0);
  CHECK_INT_EQ(cf_backend_auto_precision(cf_backend_find("onednn")), pick->precision);
  cfg.options = "precision=auto,threads=1";
  if (CHECK_INT_EQ(cf_backend_create("onednn", &cfg, &be, &err), CF_OK)) {
    char want[160];
    snprintf(want, sizeof want, "%s (precision=auto: %s)",
             pick->precision == CF_PRECISION_F32 ? "f32" : "bf16 matmuls", pick->why);
    CHECK_STR_CONTAINS(cf_backend_variant(be), want);
    cf_backend_free(be);
  }
}
#else
static void test_auto_probe(cf_test *t) { CF_SKIP("the onednn backend is not compiled in"); }
#endif

static void test_refusals(cf_test *t) {
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    if (d->probe && !d->probe()) continue;
    cf_backend_config cfg = {.max_batch = 2, .options = "precision=f32,threads=1"};
    cf_backend *be = NULL;
    cf_error err = {0};
    if (CHECK_INT_EQ(cf_backend_create(d->name, &cfg, &be, &err), CF_OK)) cf_backend_free(be);
    cfg.options = "threads=1,precision=half";
    CHECK_INT_EQ(cf_backend_create(d->name, &cfg, &be, &err), CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, d->name);
    CHECK_STR_CONTAINS(err.msg, "precision=half");
    /* The other keys are still checked by the backend. */
    cfg.options = "precision=f32,frobnicate=1";
    CHECK_INT_EQ(cf_backend_create(d->name, &cfg, &be, &err), CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "frobnicate=1");
    for (int p = CF_PRECISION_BF16; p < CF_PRECISION_COUNT; p++) {
      if (d->precisions & (1u << p)) continue;
      char opts[64];
      snprintf(opts, sizeof opts, "precision=%s", cf_precision_name((cf_precision)p));
      cfg.options = opts;
      CHECK_INT_EQ(cf_backend_create(d->name, &cfg, &be, &err), CF_ERR_ARG);
      char want[96];
      snprintf(want, sizeof want, "backend '%s': precision=%s is not supported on this backend",
               d->name, cf_precision_name((cf_precision)p));
      CHECK_STR_CONTAINS(err.msg, want);
#ifdef CF_HAVE_ONEDNN
      CHECK_STR_CONTAINS(err.msg, "use onednn");
#endif
    }
  }
}

/* Whether this CPU runs p on onednn; prints why not (a skip) when not,
 * after checking that the refusal names the ISA. */
static bool runs(cf_test *t, cf_precision p) {
  char opts[32];
  snprintf(opts, sizeof opts, "precision=%s", cf_precision_name(p));
  cf_backend_config cfg = {.max_batch = 4, .options = opts};
  cf_backend *be = NULL;
  cf_error err = {0};
  if (!cf_backend_find("onednn")) { /* a build without oneDNN (-Donednn=disabled) */
    CF_SKIP("the onednn backend is not compiled in");
    return false;
  }
  cf_status st = cf_backend_create("onednn", &cfg, &be, &err);
  cf_backend_free(be);
  if (st == CF_OK) return true;
  CHECK_INT_EQ(st, CF_ERR_BACKEND);
  CHECK_STR_CONTAINS(err.msg, p == CF_PRECISION_BF16 ? "needs AVX512_BF16" : "needs AVX512_VNNI");
  printf("skip %s checks: %s\n", cf_precision_name(p), err.msg);
  return false;
}

static unsigned long long rng_state = 88172645463325252ull;
static float uniform(void) { /* [-1, 1) */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (float)((double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static double act_ref(cf_op_act act, double x) {
  switch (act) {
    case CF_OP_ACT_MISH: return x * tanh(log1p(exp(x)));
    case CF_OP_ACT_RELU: return x > 0 ? x : 0;
    case CF_OP_ACT_TANH: return tanh(x);
    case CF_OP_ACT_SWISH: return x / (1 + exp(-x));
    default: return x;
  }
}

/* Runs one linear on backend `opts` of onednn; y gets rows*out floats.
 * *variant gets a copy of the backend's variant string. */
static bool run_linear(cf_test *t, const char *opts, int rows, int in, int out, const float *x,
                       const float *w, const float *b, cf_op_act act, float *y, char *variant,
                       size_t variant_size) {
  cf_backend_config cfg = {.max_batch = rows, .options = opts};
  cf_backend *be = NULL;
  cf_error err = {0};
  if (!CHECK_INT_EQ(cf_backend_create("onednn", &cfg, &be, &err), CF_OK)) {
    fprintf(stderr, "%s\n", err.msg);
    return false;
  }
  cf_bweight *bw = NULL, *bb = NULL;
  bool ok = CHECK_INT_EQ(cf_op_weight(be, CF_WEIGHT_MATRIX, out, in, w, &bw, &err), CF_OK) &&
            CHECK_INT_EQ(cf_op_weight(be, CF_WEIGHT_VECTOR, 1, out, b, &bb, &err), CF_OK);
  float *dx = cf_op_alloc(be, (size_t)rows * in), *dy = cf_op_alloc(be, (size_t)rows * out);
  ok = ok && CHECK(dx && dy);
  if (ok) {
    cf_op_upload(be, dx, x, (size_t)rows * in);
    cf_op_linear(be, rows, in, out, dx, bw, bb, act, dy);
    ok = CHECK_INT_EQ(cf_op_sync(be, &err), CF_OK);
    cf_op_download(be, y, dy, (size_t)rows * out);
    snprintf(variant, variant_size, "%s", cf_backend_variant(be));
  }
  cf_op_free(be, dx);
  cf_op_free(be, dy);
  cf_op_weight_free(be, bw);
  cf_op_weight_free(be, bb);
  cf_backend_free(be);
  return ok;
}

/* The bound on |y - exact| the format allows for element (r, o), before
 * the activation (whose slope is at most 1.1 for the ones used here):
 * bf16 rounds x and w each to 8 significant bits (relative 2^-9, so a
 * product within 2^-8 + 2^-18); int8 rounds x to amax_x/254 and w to
 * amax_w/254 (half a step of each). Doubled for slack. */
static double bound(cf_precision p, int in, const float *xr, const float *wo) {
  double sum_abs = 0, xmax = 0, wmax = 0, sx = 0, sw = 0;
  for (int i = 0; i < in; i++) {
    sum_abs += fabs((double)xr[i] * wo[i]);
    xmax = fmax(xmax, fabs(xr[i]));
    wmax = fmax(wmax, fabs(wo[i]));
    sx += fabs(xr[i]);
    sw += fabs(wo[i]);
  }
  double e = p == CF_PRECISION_BF16 ? sum_abs * 0.0079
                                    : xmax / 254 * sw + wmax / 254 * sx + xmax * wmax / 254 / 254 * in;
  return 2.2 * e + 1e-6;
}

static void check_linear(cf_test *t, cf_precision p) {
  /* The last shape spans several of the backend's row blocks and a
   * remainder (cf_onednn_backend.c, block_rows). */
  static const int shapes[][3] = {{1, 64, 3}, {64, 64, 192}, {130, 96, 40}, {8, 4096, 32},
                                  {1100, 256, 64}};
  static const cf_op_act acts[] = {CF_OP_ACT_NONE, CF_OP_ACT_MISH, CF_OP_ACT_RELU,
                                   CF_OP_ACT_SWISH, CF_OP_ACT_TANH};
  char opts[64], variant[256];
  for (int s = 0; s < 5; s++) {
    const int rows = shapes[s][0], in = shapes[s][1], out = shapes[s][2];
    float *x = malloc(sizeof(float) * (size_t)rows * in), *w = malloc(sizeof(float) * (size_t)out * in);
    float *b = malloc(sizeof(float) * (size_t)out), *y = malloc(sizeof(float) * (size_t)rows * out);
    float *yf = malloc(sizeof(float) * (size_t)rows * out);
    for (int i = 0; i < rows * in; i++) x[i] = 2.0f * uniform() * (1 + i % 7); /* uneven rows */
    for (int i = 0; i < out * in; i++) w[i] = uniform() / sqrtf((float)in) * (1 + i % 3);
    for (int i = 0; i < out; i++) b[i] = 0.3f * uniform();
    for (int a = 0; a < 5; a++) {
      for (int with_bias = 0; with_bias < 2; with_bias++) {
        const float *bias = with_bias ? b : NULL;
        snprintf(opts, sizeof opts, "precision=%s,threads=%d", cf_precision_name(p), 1 + s % 2);
        if (!run_linear(t, opts, rows, in, out, x, w, bias, acts[a], y, variant, sizeof variant))
          continue;
        char want[64];
        snprintf(want, sizeof want, ", %s matmuls", cf_precision_name(p));
        CHECK_STR_CONTAINS(variant, want);
        if (!run_linear(t, "precision=f32", rows, in, out, x, w, bias, acts[a], yf, variant,
                        sizeof variant))
          continue;
        int bad = 0, differs = 0;
        for (int r = 0; r < rows; r++)
          for (int o = 0; o < out; o++) {
            double z = with_bias ? b[o] : 0;
            for (int i = 0; i < in; i++) z += (double)x[r * in + i] * w[o * in + i];
            const double exact = act_ref(acts[a], z);
            const double got = y[r * out + o];
            const double tol = 1.1 * bound(p, in, x + r * in, w + o * in);
            if (!(fabs(got - exact) <= tol)) {
              if (!bad)
                fprintf(stderr, "%s %dx%dx%d act %d bias %d: y[%d][%d] = %.7g, exact %.7g, tol %.3g\n",
                        cf_precision_name(p), rows, in, out, (int)acts[a], with_bias, r, o, got,
                        exact, tol);
              bad++;
            }
            differs += y[r * out + o] != yf[r * out + o];
          }
        CHECK_INT_EQ(bad, 0);
        CHECK(differs > 0); /* not float32 in disguise */
      }
    }
    free(x);
    free(w);
    free(b);
    free(y);
    free(yf);
  }
}

static void test_linear_bf16(cf_test *t) {
  if (runs(t, CF_PRECISION_BF16)) check_linear(t, CF_PRECISION_BF16);
}

static void test_linear_int8(cf_test *t) {
  if (runs(t, CF_PRECISION_INT8)) check_linear(t, CF_PRECISION_INT8);
}

/* int8 rows do not depend on each other, however the backend splits them
 * into blocks: each row has its own scale and the integer sums are exact,
 * so the last rows of a batch come out bit for bit as in a batch of their
 * own (a different blocking: 1100 rows against 300). */
static void test_int8_rows_independent(cf_test *t) {
  if (!runs(t, CF_PRECISION_INT8)) return;
  enum { ROWS = 1100, TAIL = 300, IN = 256, OUT = 96 };
  float *x = malloc(sizeof(float) * ROWS * IN), *w = malloc(sizeof(float) * OUT * IN);
  float *b = malloc(sizeof(float) * OUT), *all = malloc(sizeof(float) * ROWS * OUT),
        *tail = malloc(sizeof(float) * TAIL * OUT);
  if (!CHECK(x && w && b && all && tail)) goto done;
  for (int i = 0; i < ROWS * IN; i++) x[i] = uniform() * (1 + i % 5);
  for (int i = 0; i < OUT * IN; i++) w[i] = uniform() / 16;
  for (int i = 0; i < OUT; i++) b[i] = 0.3f * uniform();
  char variant[256];
  for (int threads = 1; threads <= 2; threads++) {
    char opts[64];
    snprintf(opts, sizeof opts, "precision=int8,threads=%d", threads);
    if (!run_linear(t, opts, ROWS, IN, OUT, x, w, b, CF_OP_ACT_MISH, all, variant,
                    sizeof variant) ||
        !run_linear(t, opts, TAIL, IN, OUT, x + (size_t)(ROWS - TAIL) * IN, w, b,
                    CF_OP_ACT_MISH, tail, variant, sizeof variant))
      continue;
    CHECK(memcmp(all + (size_t)(ROWS - TAIL) * OUT, tail, sizeof(float) * TAIL * OUT) == 0);
  }
done:
  free(x);
  free(w);
  free(b);
  free(all);
  free(tail);
}

/* A weight the precision cannot hold runs in float32: the same result as
 * precision=f32, and the variant string says so. */
static void check_kept(cf_test *t, cf_precision p, float poison, const char *why) {
  enum { ROWS = 16, IN = 4096, OUT = 24 };
  static float x[ROWS * IN], w[OUT * IN], b[OUT], y[ROWS * OUT], yf[ROWS * OUT];
  for (int i = 0; i < ROWS * IN; i++) x[i] = uniform();
  /* int8: one value of 1000 per output channel, every other value just
   * under half its step (1000/254), so all of them round to 0: 14% of the
   * weight's norm lost. bf16: one value past bf16's range. */
  for (int i = 0; i < OUT * IN; i++) w[i] = uniform() * 3.9f;
  for (int i = 0; i < OUT; i++) b[i] = uniform();
  for (int o = 0; o < (p == CF_PRECISION_INT8 ? OUT : 1); o++) w[o * IN + o % IN] = poison;
  char opts[32], variant[256], unused[256];
  snprintf(opts, sizeof opts, "precision=%s", cf_precision_name(p));
  if (!run_linear(t, opts, ROWS, IN, OUT, x, w, b, CF_OP_ACT_NONE, y, variant, sizeof variant) ||
      !run_linear(t, "precision=f32", ROWS, IN, OUT, x, w, b, CF_OP_ACT_NONE, yf, unused,
                  sizeof unused))
    return;
  CHECK_STR_CONTAINS(variant, "1 of 1 matrices kept f32");
  CHECK_STR_CONTAINS(variant, why);
  int same = 0;
  for (int i = 0; i < ROWS * OUT; i++) same += y[i] == yf[i];
  CHECK_INT_EQ(same, ROWS * OUT);
}

static void test_kept_bf16(cf_test *t) {
  if (runs(t, CF_PRECISION_BF16)) check_kept(t, CF_PRECISION_BF16, 3.4e38f, "overflows bf16");
}

static void test_kept_int8(cf_test *t) {
  if (runs(t, CF_PRECISION_INT8)) check_kept(t, CF_PRECISION_INT8, 1000.0f, "int8 rounding error");
}

/* Registered with ONEDNN_MAX_CPU_ISA=AVX2: oneDNN may use no more than
 * AVX2 on any CPU, so both reduced precisions are refused. */
static void test_refused_without_isa(cf_test *t) {
  const char *cap = getenv("ONEDNN_MAX_CPU_ISA");
  if (!CHECK(cap && strcmp(cap, "AVX2") == 0)) return;
  const char *needs[] = {NULL, "precision=bf16 needs AVX512_BF16",
                         "precision=int8 needs AVX512_VNNI or AVX_VNNI"};
  for (int p = CF_PRECISION_BF16; p < CF_PRECISION_COUNT; p++) {
    char opts[32];
    snprintf(opts, sizeof opts, "precision=%s", cf_precision_name((cf_precision)p));
    cf_backend_config cfg = {.max_batch = 1, .options = opts};
    cf_backend *be = NULL;
    cf_error err = {0};
    CHECK_INT_EQ(cf_backend_create("onednn", &cfg, &be, &err), CF_ERR_BACKEND);
    CHECK_STR_CONTAINS(err.msg, "backend 'onednn'");
    CHECK_STR_CONTAINS(err.msg, needs[p]);
    CHECK_STR_CONTAINS(err.msg, "capped by AVX2");
    CHECK_STR_CONTAINS(err.msg, "use precision=f32");
    CHECK(be == NULL);
  }
  cf_backend_config cfg = {.max_batch = 1, .options = "precision=f32"};
  cf_backend *be = NULL;
  cf_error err = {0};
  if (CHECK_INT_EQ(cf_backend_create("onednn", &cfg, &be, &err), CF_OK)) cf_backend_free(be);
  /* auto falls back to f32 silently, and says so. */
  CHECK_INT_EQ(cf_backend_auto_precision(cf_backend_find("onednn")), CF_PRECISION_F32);
  cfg.options = "precision=auto";
  if (CHECK_INT_EQ(cf_backend_create("onednn", &cfg, &be, &err), CF_OK)) {
    CHECK_STR_CONTAINS(cf_backend_variant(be), "f32 (precision=auto: no native bf16)");
    cf_backend_free(be);
  }
}

CF_TEST_MAIN(test_read_precision, test_refusals, test_auto, test_auto_probe, test_linear_bf16, test_linear_int8,
             test_int8_rows_independent, test_kept_bf16, test_kept_int8, test_refused_without_isa)
