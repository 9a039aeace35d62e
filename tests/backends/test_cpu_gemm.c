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
#include <string.h>

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

/* W [n][k] in gemm_rows's panels (cf_cpu_kernels.h), 64-byte aligned. */
static float *panels_of(const float *w, int n, int k) {
  const size_t floats = cf_cpu_gemm_panels_floats(n, k);
  float *p = aligned_alloc(64, (floats * sizeof(float) + 63) / 64 * 64);
  for (size_t x = 0; x < floats; x++) p[x] = 0.0f;
  for (int o = 0; o < n; o++)
    for (int i = 0; i < k; i++)
      p[((size_t)(o / CF_CPU_GEMM_PANEL) * k + i) * CF_CPU_GEMM_PANEL + o % CF_CPU_GEMM_PANEL] =
          w[(size_t)o * k + i];
  return p;
}

/* gemm_rows (the layers with one row a position on onednn): against the
 * product in double on shapes that hit each edge of the blocking (rows in
 * fours, columns in one or two panels, a part panel), and a row's outputs the
 * same bits whatever the rows beside it: the first m rows of a call
 * against the same rows of an 11-row call (so the last row sits at every
 * place of a block), and each row alone. The value head's depth 2048 and
 * smolgen's 4096 columns among the shapes. */
static void test_gemm_rows(cf_test *t) {
  static const int shapes[][2] = {{1, 1}, {3, 7}, {16, 5}, {17, 33}, {128, 2048}, {4096, 16},
                                  {40, 256}};
  enum { M = 11 };
  int tested = 0;
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    if (!k || !k->gemm_rows) continue;
    tested++;
    long differ = 0, wrong = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
      const int n = shapes[i][0], kk = shapes[i][1];
      float *a = malloc(sizeof(float) * (size_t)M * kk);
      float *w = malloc(sizeof(float) * (size_t)n * kk);
      float *all = malloc(sizeof(float) * ((size_t)M * n + 1));
      float *part = malloc(sizeof(float) * ((size_t)M * n + 1));
      for (int j = 0; j < M * kk; j++) a[j] = rnd();
      for (int j = 0; j < n * kk; j++) w[j] = rnd();
      float *bp = panels_of(w, n, kk);
      all[M * n] = 7.0f;
      k->gemm_rows(M, n, kk, a, bp, all);
      wrong += all[M * n] != 7.0f; /* nothing written past the end */
      for (int r = 0; r < M; r++)
        for (int j = 0; j < n; j++) {
          double want = 0.0, mag = 0.0;
          for (int x = 0; x < kk; x++) {
            want += (double)a[(size_t)r * kk + x] * w[(size_t)j * kk + x];
            mag += fabs((double)a[(size_t)r * kk + x] * w[(size_t)j * kk + x]);
          }
          wrong += fabs(all[(size_t)r * n + j] - want) > 1e-6 * (kk + 4) * (mag + 1e-3);
        }
      for (int m = 1; m <= M; m++) {
        k->gemm_rows(m, n, kk, a, bp, part);
        differ += memcmp(part, all, sizeof(float) * (size_t)m * n) != 0;
      }
      for (int r = 0; r < M; r++) {
        k->gemm_rows(1, n, kk, a + (size_t)r * kk, bp, part);
        differ += memcmp(part, all + (size_t)r * n, sizeof(float) * (size_t)n) != 0;
      }
      free(a), free(w), free(bp), free(all), free(part);
    }
    printf("  %s: gemm_rows, %ld outputs wrong, %ld calls differ from the rows of one call\n",
           SETS[s], wrong, differ);
    CHECK_INT_EQ(wrong, 0);
    CHECK_INT_EQ(differ, 0);
  }
  if (!tested) CF_SKIP("no kernel set with gemm_rows runs here (avx2, avx512)");
}

CF_TEST_MAIN(test_every_set_matches_double, test_empty_writes_nothing, test_gemm_rows)
