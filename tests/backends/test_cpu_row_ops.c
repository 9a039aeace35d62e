/* test_cpu_row_ops.c: every kernel set's bias + activation row
 * (cf_cpu_kernels.h, bias_act_row) against the portable set's, for every
 * activation, with and without a bias, on rows whose lengths hit the
 * vector tails and whose values reach the exp's clamps and mish's cut at
 * 20. The wasm set computes the portable formulas in the same order
 * (backends/cpu/wasm/cf_wasm_math.h), so it must match bit for bit; the
 * x86 sets use fused multiply-adds and must match to rounding. In the
 * wasm set a NaN in must also give a NaN out where the portable set's
 * does (WebAssembly leaves a NaN's bits open, so only NaN-ness counts);
 * the x86 sets' exp clamps a NaN to a number in some activations, which
 * is printed, not checked. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/backends/cf_kernel_sets.h"
#include "tests/cf_test.h"

enum { MAX_N = 75 };

static unsigned long long rng = 0x2545F4914F6CDD1Dull;
static float rnd(float spread) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return ((float)((rng >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f) * spread;
}

/* Values at the edges of the formulas: the exp's clamps (88.376, -87.337),
 * mish's 20, zeros of both signs, infinities and a NaN; the rest random. */
static void fill(float *x, int n, int round) {
  static const float edges[] = {0.0f,   -0.0f,  1e-30f, -1e-30f, 19.999f, 20.0f,  20.001f,
                                -20.0f, 88.37f, 88.5f,  -87.3f,  -87.5f,  -100.0f, 100.0f,
                                INFINITY, -INFINITY, NAN};
  const int n_edges = (int)(sizeof edges / sizeof *edges);
  for (int i = 0; i < n; i++)
    x[i] = round == 0 && i < n_edges ? edges[i] : rnd(round == 1 ? 4.0f : 30.0f);
}

/* Worst |a - b| / (1 + |b|) over n; exact: every pair bit-equal (NaNs
 * count as equal when both are NaN). */
static double compare(const float *a, const float *b, int n, int *exact, int *nan_lost) {
  double worst = 0.0;
  for (int i = 0; i < n; i++) {
    if (isnan(a[i]) || isnan(b[i])) {
      if (!(isnan(a[i]) && isnan(b[i]))) *nan_lost = 1;
      continue;
    }
    if (memcmp(&a[i], &b[i], sizeof(float)) != 0) *exact = 0;
    const double d = a[i] == b[i] ? 0.0 : fabs((double)a[i] - b[i]) / (1.0 + fabs((double)b[i]));
    if (d > worst) worst = d;
  }
  return worst;
}

static void test_every_set_matches_portable(cf_test *t) {
  static const int lengths[] = {1, 3, 4, 7, 8, 17, 64, MAX_N};
  const cf_cpu_kernels *p = &cf_cpu_kernels_portable;
  int compared = 0;
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    if (!k || k == p) continue;
    const int must_be_exact = strcmp(k->name, "wasm") == 0;
    for (int act = CF_OP_ACT_MISH; act <= CF_OP_ACT_MAX; act++) {
      double worst = 0.0;
      int exact = 1, nan_lost = 0;
      for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++)
        for (int round = 0; round < 3; round++)
          for (int with_bias = 0; with_bias < 2; with_bias++) {
            const int n = lengths[li];
            float x[MAX_N], bias[MAX_N], want[MAX_N], got[MAX_N];
            fill(x, n, round);
            for (int i = 0; i < n; i++) bias[i] = rnd(1.0f);
            memcpy(want, x, sizeof(float) * (size_t)n);
            memcpy(got, x, sizeof(float) * (size_t)n);
            p->bias_act_row(n, want, with_bias ? bias : NULL, (cf_op_act)act);
            k->bias_act_row(n, got, with_bias ? bias : NULL, (cf_op_act)act);
            const double w = compare(got, want, n, &exact, &nan_lost);
            if (w > worst) worst = w;
          }
      printf("  %s, activation %d: worst relative difference %.3g, %s%s\n", k->name, act, worst,
             exact ? "bit for bit" : "not bit for bit", nan_lost ? ", a NaN lost" : "");
      CHECK(worst < 1e-5);
      if (must_be_exact) {
        CHECK(exact);
        CHECK(!nan_lost);
      }
    }
    compared++;
  }
  if (!compared) CF_SKIP("no kernel set besides portable runs here");
}

CF_TEST_MAIN(test_every_set_matches_portable)
