/* test_amx_attention.c: the attention op on AMX tiles (attention=amx,
 * backends/cpu/cf_cpu_amx.h) against the double-precision formula:
 *   op:     every subset of the RPE terms and the smolgen bias, at depths
 *           1 to 64 (padded to the tiles' 32 or 64), 65 (past the tiles:
 *           the bf16 cores take it) and batches 1 to 40 (one position a
 *           task below 16, full groups of 16 and partial ones), within the bf16
 *           cores' bound (test_cpu_bf16_attention.c), at precision=bf16
 *           and int8 (whose attention the tiles run in bf16 too);
 *   rows:   a position's outputs are the same bits in whatever group and
 *           batch of 16 and up it runs (a tile's rows do not mix), and in
 *           whatever batch below 16 (one position a task);
 *   choice: auto takes the tiles where they run at bf16 and int8 and the
 *           cores elsewhere; amx refused by name, with the paths there are, at
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
                           {8, 1, 33}, {20, 1, 64}, {33, 2, 32}, {1, 1, 1},  {1, 2, 16},
                           {2, 1, 32}, {3, 2, 33},  {7, 1, 9},   {1, 1, 64}, {8, 1, 65}};
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

/* The op on positions b0 .. b0 + n - 1 of `in` as a call of its own, into
 * out[16][n * per_out]. */
static bool run_part(cf_test *t, const attention_inputs *in, int b0, int n, float *out) {
  enum { H = 2, DH = 32 };
  char variant[256];
  const size_t per = (size_t)64 * 3 * H * DH, per_bias = (size_t)H * 4096;
  return CHECK(attention_op_run(t, "avx512", OPTIONS, n, H, DH, in->qkv + b0 * per, in->e,
                                in->bias + b0 * per_bias, out, variant, sizeof variant));
}

/* Variants (of 16; only those without the value term when `no_v`) whose
 * outputs of positions `from` .. `from` + n - 1 of a (a batch of na)
 * differ from b's first n (a batch of nb). */
static int differing(const float *a, int na, int from, const float *b, int nb, int n,
                     bool no_v) {
  const size_t per_out = (size_t)64 * 2 * 32;
  int differ = 0;
  for (int v = 0; v < 16; v++)
    if (!(no_v && (v & 4)))
      differ += memcmp(a + v * na * per_out + from * per_out, b + v * nb * per_out,
                     n * per_out * sizeof(float)) != 0;
  return differ;
}

/* Groups: batch 40 (groups of 16, 16 and 8) against positions 16..39 as a
 * batch of 24 (16 and a partial 8). One position a task: positions 32..39
 * as a batch of 8 against 33..35 as a batch of 3. Between the two shapes:
 * the scores and weights are summed in the same order, so the 8 variants
 * without the value term (which pairs its products differently) are the
 * same bits. */
static void test_rows(cf_test *t) {
  if (!cf_amx_usable()) {
    CF_SKIP("no AMX tiles on this CPU or OS");
    return;
  }
  enum { B = 40, H = 2, DH = 32 };
  attention_inputs in = attention_inputs_make(B, H, DH, &rng_state);
  const size_t per_out = (size_t)64 * H * DH;
  float *big = malloc(16 * B * per_out * sizeof *big);
  float *mid = malloc(16 * 24 * per_out * sizeof *mid);
  float *eight = malloc(16 * 8 * per_out * sizeof *eight);
  float *three = malloc(16 * 3 * per_out * sizeof *three);
  if (run_part(t, &in, 0, B, big) && run_part(t, &in, 16, 24, mid)) {
    const int d = differing(big, B, 16, mid, 24, 24, false);
    CHECK_INT_EQ(d, 0);
    printf("  groups: positions 16..39 as a batch of 24: %d of 16 variants differ\n", d);
  }
  if (run_part(t, &in, 32, 8, eight) && run_part(t, &in, 33, 3, three)) {
    const int d = differing(eight, 8, 1, three, 3, 3, false);
    CHECK_INT_EQ(d, 0);
    printf("  one position a task: positions 33..35 of a batch of 8 as a batch of 3: "
           "%d of 16 variants differ\n", d);
    const int shapes = differing(big, B, 32, eight, 8, 8, true);
    CHECK_INT_EQ(shapes, 0);
    printf("  positions 32..39 in a group and one a task: %d of 8 variants without the value "
           "term differ\n", shapes);
  }
  attention_inputs_free(&in);
  free(big);
  free(mid);
  free(eight);
  free(three);
}

static void test_choice(cf_test *t) {
  char v[256];
  cf_error err = {0};
  const bool amx = cf_amx_usable();
  if (onednn_creates("precision=bf16", v, sizeof v, &err)) {
    if (amx) CHECK_STR_CONTAINS(v, "amx tiles: one position a task below batch 16");
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
  /* int8: the tiles (bf16 products; its int8 cores past their depth),
   * named or by default; its cores when asked. */
  if (amx && onednn_creates("precision=int8,attention=amx", v, sizeof v, &err)) {
    CHECK_STR_CONTAINS(v, "amx tiles: one position a task");
    CHECK_STR_CONTAINS(v, "int8 avx512_vnni past depth 64");
    printf("  precision=int8, attention=amx: %s\n", v);
  }
  if (CHECK(onednn_creates("precision=int8", v, sizeof v, &err))) {
    if (amx) CHECK_STR_CONTAINS(v, "amx tiles");
    else CHECK(strstr(v, "amx") == NULL);
  }
  if (CHECK(onednn_creates("precision=int8,attention=cpu", v, sizeof v, &err)))
    CHECK(strstr(v, "amx") == NULL);
  if (!amx) return;
  /* A forced lower kernel set: amx refused naming it, auto the cores. */
  setenv("CFORMER_CPU_KERNELS", "avx2", 1);
  if (CHECK(!onednn_creates(OPTIONS, NULL, 0, &err))) CHECK_STR_CONTAINS(err.msg, "these are avx2");
  if (CHECK(onednn_creates("precision=bf16", v, sizeof v, &err))) CHECK(strstr(v, "amx") == NULL);
  unsetenv("CFORMER_CPU_KERNELS");
}

CF_TEST_MAIN(test_op, test_rows, test_choice)
