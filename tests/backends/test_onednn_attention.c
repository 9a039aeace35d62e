/* test_onednn_attention.c: the oneDNN backend's attention=onednn path
 * (backends/onednn/cf_onednn_attention.h), the attention as batched
 * products, against the double-precision formula:
 *   op:     every subset of the RPE terms and the smolgen bias, at depths
 *           1, 7, 16, 32, 33, 128 and 130 and batches of 1, 2 and 17, in each
 *           precision this CPU runs oneDNN at, within the CPU cores'
 *           bounds for that precision (test_cpu_int8_attention.c,
 *           test_cpu_bf16_attention.c); the variant names the path;
 *   choice: attention=cpu|onednn|auto|amx honoured and said in the
 *           variant, auto the same on every creation and never this path,
 *           amx (the AMX tiles, not this path) refused where there are
 *           none naming the paths there are, bad values refused naming
 *           the valid ones;
 *   range:  an RPE table beyond bf16's range refused at upload, naming
 *           attention=cpu. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "tests/backends/cf_attention_op.h"
#include "tests/backends/cf_attention_ref.h"
#include "tests/cf_test.h"

/* The CPU cores' bounds, per precision, over inputs in [-1, 1). */
static const double bound[CF_PRECISION_COUNT] = {2e-5, 5e-3, 1e-2};

static unsigned long long rng_state = 0x5eed0a11u;

static void test_op(cf_test *t) {
  /* 17 positions: a call longer than one slice of the products. */
  const int shapes[][3] = {{2, 2, 1},  {1, 3, 7},   {2, 2, 16}, {2, 2, 32},
                           {1, 2, 33}, {1, 1, 128}, {1, 1, 130}, {17, 1, 8}};
  for (int p = 0; p < CF_PRECISION_COUNT; p++) {
    char opts[96], variant[256];
    cf_error err = {0};
    snprintf(opts, sizeof opts, "precision=%s,attention=onednn", cf_precision_name(p));
    if (!onednn_creates(opts, NULL, 0, &err)) {
      printf("  %s: skipped (%s)\n", cf_precision_name(p), err.msg);
      continue;
    }
    double worst = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      const int B = shapes[s][0], H = shapes[s][1], dh = shapes[s][2];
      attention_inputs in = attention_inputs_make(B, H, dh, &rng_state);
      const size_t n_out = in.n_out;
      float *got = malloc(16 * n_out * sizeof *got);
      double *want = malloc(n_out * sizeof *want);
      if (attention_op_run(t, "portable", opts, B, H, dh, in.qkv, in.e, in.bias, got, variant,
                           sizeof variant)) {
        CHECK_STR_CONTAINS(variant, "onednn attention (attention=onednn)");
        double shape_worst = 0;
        for (int v = 0; v < 16; v++) {
          const double w = attention_variant_error(B, H, dh, &in, v, got + v * n_out, want);
          if (!CHECK(w <= bound[p]))
            fprintf(stderr, "  %s B %d H %d dh %d variant %d: %.3g from the formula\n",
                    cf_precision_name(p), B, H, dh, v, w);
          worst = fmax(worst, w);
          shape_worst = fmax(shape_worst, w);
        }
        printf("  %s B %d H %d dh %d: worst %.3g\n", cf_precision_name(p), B, H, dh, shape_worst);
      }
      attention_inputs_free(&in);
      free(got);
      free(want);
    }
    printf("  %s: worst %.3g from the double formula (bound %.0e); %s\n", cf_precision_name(p),
           worst, bound[p], variant);
  }
}

static void test_choice(cf_test *t) {
  char v1[256], v2[256];
  cf_error err = {0};
  if (CHECK(onednn_creates("precision=f32,attention=cpu", v1, sizeof v1, &err)))
    CHECK(strstr(v1, "onednn attention") == NULL);
  /* f32: auto always takes the CPU cores (AMX has no float32 products). */
  if (CHECK(onednn_creates("precision=f32,attention=auto", v1, sizeof v1, &err)))
    CHECK(strstr(v1, "onednn attention") == NULL);
  for (int p = 1; p < CF_PRECISION_COUNT; p++) {
    char opts[64];
    snprintf(opts, sizeof opts, "precision=%s", cf_precision_name(p));
    if (!onednn_creates(opts, v1, sizeof v1, &err) ||
        !CHECK(onednn_creates(opts, v2, sizeof v2, &err)))
      continue;
    CHECK_STR_EQ(v1, v2); /* the same choice every time */
    /* auto never takes this path (the cores or the AMX tiles). */
    CHECK(strstr(v1, "onednn attention") == NULL);
    printf("  %s, attention=auto: %s\n", cf_precision_name(p), v1);
  }
  /* amx: the CPU backends' AMX tiles (test_amx_attention.c), not this
   * path; refused where there are none, naming the paths there are. A
   * CPU without bf16 (AVX2 only) refuses the precision before the path. */
  const bool bf16 = onednn_creates("precision=bf16", v1, sizeof v1, &err);
  const bool amx = onednn_creates("precision=bf16,attention=amx", v1, sizeof v1, &err);
  if (amx) CHECK(strstr(v1, "onednn attention") == NULL);
  else if (!bf16) CHECK_STR_CONTAINS(err.msg, "precision=bf16 needs");
  else if (CHECK_INT_EQ(err.status, CF_ERR_UNSUPPORTED))
    CHECK_STR_CONTAINS(err.msg, "the paths here: cpu, onednn");
  if (CHECK(!onednn_creates("precision=f32,attention=amx", NULL, 0, &err)))
    CHECK_STR_CONTAINS(err.msg, "cpu, onednn");
  const char *bad[] = {"attention=tiles", "attention=", "attention=ONEDNN"};
  for (int i = 0; i < 3; i++) {
    if (!CHECK(!onednn_creates(bad[i], NULL, 0, &err))) continue;
    CHECK_INT_EQ(err.status, CF_ERR_ARG);
    CHECK_STR_CONTAINS(err.msg, "auto");
    CHECK_STR_CONTAINS(err.msg, "onednn");
  }
}

static void test_bf16_range(cf_test *t) {
  enum { H = 2, DH = 4, DM = H * DH };
  cf_backend_config cfg = {.max_batch = 1, .options = "precision=bf16,attention=onednn"};
  cf_backend *be = NULL;
  cf_error err = {0};
  if (cf_backend_create("onednn", &cfg, &be, &err) != CF_OK) {
    CF_SKIP("oneDNN runs no bf16 on this CPU");
    return;
  }
  static float e[225 * DM];
  for (int i = 0; i < 225 * DM; i++) e[i] = 0.5f;
  e[100] = 3.4e38f;
  cf_bweight *w = NULL;
  if (CHECK(cf_op_weight_rpe(be, CF_WEIGHT_RPE_V, H, 225, DM, e, &w, &err) != CF_OK)) {
    CHECK_STR_CONTAINS(err.msg, "beyond bf16's range");
    CHECK_STR_CONTAINS(err.msg, "attention=cpu");
  }
  cf_op_weight_free(be, w);
  cf_backend_free(be);
}

CF_TEST_MAIN(test_op, test_choice, test_bf16_range)
