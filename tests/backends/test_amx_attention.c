/* test_amx_attention.c: the attention op on AMX tiles (attention=amx,
 * backends/cpu/cf_cpu_amx.h) against the double-precision formula:
 *   op:     every subset of the RPE terms and the smolgen bias, at depths
 *           1 to 64 (padded to the tiles' 32 or 64), 65 (past the tiles:
 *           the bf16 cores take it) and batches from cf_amx_min_batch,
 *           full groups of 16 positions and partial ones, within the bf16
 *           cores' bound (test_cpu_bf16_attention.c), at precision=bf16
 *           and int8 (whose attention the tiles run in bf16 too);
 *   rows:   a position's outputs are the same bits in whatever group and
 *           batch it runs (a tile's rows do not mix);
 *   choice: auto takes the tiles where they run at bf16 and the cores
 *           elsewhere; amx refused by name, with the paths there are, at
 *           another precision, under a forced lower kernel set, or where
 *           the CPU or OS has no tiles.
 * Skipped where the machine has no AMX (the refusal is still checked). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "backends/cpu/cf_cpu_amx.h"
#include "tests/backends/cf_attention_op.h"
#include "tests/backends/cf_attention_ref.h"
#include "tests/cf_test.h"

static const char OPTIONS[] = "precision=bf16,attention=amx";
static const char OPTIONS_INT8[] = "precision=int8,attention=amx";
static const double BOUND = 5e-3; /* the bf16 cores' */
static unsigned long long rng_state = 0xa11e7u;

static void test_op(cf_test *t) {
  if (!cf_amx_usable()) {
    CF_SKIP("no AMX tiles on this CPU or OS");
    return;
  }
  const int shapes[][3] = {{8, 1, 1},  {9, 2, 7},   {16, 2, 16}, {17, 1, 32}, {4, 2, 32},
                           {8, 1, 33}, {20, 1, 64}, {33, 2, 32}, {8, 1, 65}};
  double worst = 0;
  const size_t n_shapes = sizeof shapes / sizeof shapes[0];
  /* Each shape at bf16, then at int8 (the same bf16 tiles; its depth 65
   * would run the int8 cores, whose bound is another). */
  for (size_t s = 0; s < 2 * n_shapes - 1; s++) {
    const int B = shapes[s % n_shapes][0], H = shapes[s % n_shapes][1],
              dh = shapes[s % n_shapes][2];
    const char *opts = s < n_shapes ? OPTIONS : OPTIONS_INT8;
    attention_inputs in = attention_inputs_make(B, H, dh, &rng_state);
    const size_t n_out = in.n_out;
    float *got = malloc(16 * n_out * sizeof *got);
    double *want = malloc(n_out * sizeof *want);
    char variant[256];
    if (CHECK(attention_op_run(t, "avx512", opts, B, H, dh, in.qkv, in.e, in.bias, got, variant,
                               sizeof variant))) {
      CHECK_STR_CONTAINS(variant, "amx tiles");
      double shape_worst = 0;
      for (int v = 0; v < 16; v++) {
        const double w = attention_variant_error(B, H, dh, &in, v, got + v * n_out, want);
        if (!CHECK(w <= BOUND))
          fprintf(stderr, "  B %d H %d dh %d variant %d: %.3g from the formula\n", B, H, dh, v,
                  w);
        shape_worst = fmax(shape_worst, w);
      }
      worst = fmax(worst, shape_worst);
      printf("  %s B %d H %d dh %d: worst %.3g\n", opts, B, H, dh, shape_worst);
    }
    attention_inputs_free(&in);
    free(got);
    free(want);
  }
  printf("  worst %.3g from the double formula (bound %.0e)\n", worst, BOUND);
}

/* Batch 40 (groups of 16, 16 and 8) against the same positions as a batch
 * of 8 (one partial group) and of 24 placed differently: position p of
 * the big call is position p - 16 of the second and p - 32 of the third. */
static void test_rows(cf_test *t) {
  if (!cf_amx_usable()) {
    CF_SKIP("no AMX tiles on this CPU or OS");
    return;
  }
  enum { B = 40, H = 2, DH = 32 };
  attention_inputs in = attention_inputs_make(B, H, DH, &rng_state);
  const size_t per = (size_t)64 * 3 * H * DH, per_out = (size_t)64 * H * DH;
  const size_t per_bias = (size_t)H * 4096, n_out = in.n_out;
  float *big = malloc(16 * n_out * sizeof *big), *part = malloc(16 * n_out * sizeof *part);
  char variant[256];
  const int starts[2] = {16, 32}, counts[2] = {24, 8};
  if (CHECK(attention_op_run(t, "avx512", OPTIONS, B, H, DH, in.qkv, in.e, in.bias, big, variant,
                             sizeof variant)))
    for (int c = 0; c < 2; c++) {
      const int b0 = starts[c], n = counts[c];
      if (!CHECK(attention_op_run(t, "avx512", OPTIONS, n, H, DH, in.qkv + b0 * per, in.e,
                                  in.bias + b0 * per_bias, part, variant, sizeof variant)))
        continue;
      int differ = 0;
      for (int v = 0; v < 16; v++)
        differ += memcmp(big + v * n_out + b0 * per_out, part + v * n * per_out,
                         n * per_out * sizeof(float)) != 0;
      CHECK_INT_EQ(differ, 0);
      printf("  positions %d..%d as a batch of %d: %d of 16 variants differ\n", b0, b0 + n - 1,
             n, differ);
    }
  attention_inputs_free(&in);
  free(big);
  free(part);
}

static void test_choice(cf_test *t) {
  char v[256];
  cf_error err = {0};
  const bool amx = cf_amx_usable();
  if (onednn_creates("precision=bf16", v, sizeof v, &err)) {
    if (amx) CHECK_STR_CONTAINS(v, "amx tiles from batch");
    else CHECK(strstr(v, "amx tiles") == NULL);
    printf("  precision=bf16, attention=auto: %s\n", v);
  }
  if (CHECK(onednn_creates("precision=f32", v, sizeof v, &err))) CHECK(strstr(v, "amx") == NULL);
  /* amx: refused where there are no tiles, and at f32 anywhere. */
  if (!amx && CHECK(!onednn_creates(OPTIONS, NULL, 0, &err)))
    CHECK_STR_CONTAINS(err.msg, "the paths here: cpu, onednn");
  if (CHECK(!onednn_creates("precision=f32,attention=amx", NULL, 0, &err))) {
    CHECK_INT_EQ(err.status, CF_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "attention=amx");
    CHECK_STR_CONTAINS(err.msg, "cpu, onednn");
  }
  /* int8: the tiles when asked (bf16 products, the int8 cores below),
   * its int8 cores by default. */
  if (amx && onednn_creates("precision=int8,attention=amx", v, sizeof v, &err)) {
    CHECK_STR_CONTAINS(v, "amx tiles from batch");
    CHECK_STR_CONTAINS(v, "int8 avx512_vnni below");
    printf("  precision=int8, attention=amx: %s\n", v);
  }
  if (CHECK(onednn_creates("precision=int8", v, sizeof v, &err))) CHECK(strstr(v, "amx") == NULL);
  if (!amx) return;
  /* A forced lower kernel set: amx refused naming it, auto the cores. */
  setenv("CFORMER_CPU_KERNELS", "avx2", 1);
  if (CHECK(!onednn_creates(OPTIONS, NULL, 0, &err))) CHECK_STR_CONTAINS(err.msg, "these are avx2");
  if (CHECK(onednn_creates("precision=bf16", v, sizeof v, &err))) CHECK(strstr(v, "amx") == NULL);
  unsetenv("CFORMER_CPU_KERNELS");
}

CF_TEST_MAIN(test_op, test_rows, test_choice)
