/* test_cpu_gemm.c: the kernel sets' own matrix product (cf_cpu_kernels.h,
 * gemm_nt: the portable set's everywhere, the wasm set's SIMD128 one in
 * the WebAssembly build, where tests/web runs this under node) against the
 * product in double precision, on shapes that hit every edge of the wasm
 * blocking (rows in pairs, columns in fours, depth in fours, and each
 * remainder), with a scale, and a zero-row or zero-column call writing
 * nothing. A set without the slot (avx2, avx512: their backends use a
 * BLAS) is listed and passed over; a set this build lacks is skipped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/backends/cf_kernel_sets.h"
#include "tests/cf_test.h"

static unsigned long long rng = 0x2545F4914F6CDD1Dull;
static float rnd(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((rng >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
}

/* Checks one set on m x n x k; returns false on the first mismatch. */
static bool check_shape(cf_test *t, const cf_cpu_kernels *kern, int m, int n, int k, float scale) {
  float *a = malloc(sizeof(float) * (size_t)(m * k + 1));
  float *b = malloc(sizeof(float) * (size_t)(n * k + 1));
  float *c = malloc(sizeof(float) * (size_t)(m * n + 1));
  for (int i = 0; i < m * k; i++) a[i] = rnd();
  for (int i = 0; i < n * k; i++) b[i] = rnd();
  for (int i = 0; i < m * n; i++) c[i] = NAN; /* every output must be written */
  kern->gemm_nt(m, n, k, scale, a, b, c);
  bool ok = true;
  for (int r = 0; r < m && ok; r++)
    for (int j = 0; j < n && ok; j++) {
      double want = 0.0, mag = 0.0;
      for (int i = 0; i < k; i++) {
        want += (double)a[r * k + i] * b[j * k + i];
        mag += fabs((double)a[r * k + i] * b[j * k + i]);
      }
      want *= scale;
      /* float32 sums of k products: within k ulps of the magnitude. */
      const double tol = 1e-6 * (k + 4) * fabs(scale) * (mag + 1e-3);
      if (!CHECK(fabs(c[r * n + j] - want) <= tol)) {
        fprintf(stderr, "  %s %dx%dx%d scale %g: c[%d][%d] = %.9g, want %.9g\n", kern->name, m,
                n, k, scale, r, j, c[r * n + j], want);
        ok = false;
      }
    }
  free(a);
  free(b);
  free(c);
  return ok;
}

static void test_every_set_matches_double(cf_test *t) {
  static const int shapes[][3] = {{1, 1, 1},   {2, 4, 4},    {3, 5, 7},   {4, 8, 16},
                                  {5, 9, 33},  {7, 3, 2},    {64, 64, 32}, {17, 130, 64},
                                  {33, 7, 257}, {128, 24, 96}, {2, 1, 1024}};
  int tested = 0;
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    if (!k) continue;
    if (!k->gemm_nt) {
      printf("  %s: no gemm_nt (its backends use a BLAS)\n", SETS[s]);
      continue;
    }
    tested++;
    int failed = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
      failed += !check_shape(t, k, shapes[i][0], shapes[i][1], shapes[i][2], 1.0f);
      failed += !check_shape(t, k, shapes[i][0], shapes[i][1], shapes[i][2], 0.125f);
    }
    printf("  %s: %d shapes, %d failed\n", SETS[s], (int)(2 * sizeof shapes / sizeof shapes[0]),
           failed);
  }
  CHECK(tested > 0); /* the portable set always has one */
}

static void test_empty_writes_nothing(cf_test *t) {
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    if (!k || !k->gemm_nt) continue;
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 1, 1, 1}, c[4] = {7, 7, 7, 7};
    k->gemm_nt(0, 4, 1, 1.0f, a, b, c);
    k->gemm_nt(4, 0, 1, 1.0f, a, b, c);
    CHECK(c[0] == 7 && c[1] == 7 && c[2] == 7 && c[3] == 7);
    /* k = 0: every output is 0 (an empty sum). */
    k->gemm_nt(2, 2, 0, 1.0f, a, b, c);
    CHECK(c[0] == 0 && c[1] == 0 && c[2] == 0 && c[3] == 0);
  }
}

CF_TEST_MAIN(test_every_set_matches_double, test_empty_writes_nothing)
