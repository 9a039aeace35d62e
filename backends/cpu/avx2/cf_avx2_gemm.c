/* cf_avx2_gemm.c: the avx2 set's product for the layers with one row a
 * position (cf_cpu_kernels.h, gemm_rows; cf_backend_iface.linear_positions
 * on onednn), with AVX2 + FMA.
 *
 * Every output is its own chain of fused multiply-adds over k in order,
 * from 0, whatever the number of rows and whichever rows are beside it, so
 * a row's outputs do not depend on the call's row count, which a BLAS does
 * not promise (oneDNN's rounded the value heads' rows differently with the
 * batch on an AMD EPYC with AVX2). The blocking, as a BLAS kernel's, only
 * picks which chains run side by side: four rows by one 16-column panel, 8
 * chains in flight (a fused multiply-add's latency is four cycles and two
 * retire a cycle), each step one broadcast of a per row and two loads of
 * the panel, which lies in memory in the order the steps read it. */
#include <stdbool.h>
#include <stddef.h>

#include "backends/cpu/avx2/cf_avx2.h"
#include "backends/cpu/avx2/cf_avx2_math.h"

/* The lanes below n (all eight when n >= 8). */
static inline __m256i lanes(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* c[r][16 p .. 16 p + 16) for rows r < R (R <= 4; R and full constants
 * after inlining); columns past n not stored unless full (all 16 below n).
 * a at row stride k, bp the panels, c at stride n. */
static inline __attribute__((always_inline)) void block(int R, bool full, int n, int k,
                                                        const float *a, const float *bp, int p,
                                                        float *c) {
  const float *panel = bp + (size_t)p * k * CF_CPU_GEMM_PANEL;
  __m256 acc[4][2];
  for (int r = 0; r < R; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (int i = 0; i < k; i++) {
    const __m256 b0 = _mm256_load_ps(panel + (size_t)i * CF_CPU_GEMM_PANEL);
    const __m256 b1 = _mm256_load_ps(panel + (size_t)i * CF_CPU_GEMM_PANEL + 8);
    for (int r = 0; r < R; r++) {
      const __m256 x = _mm256_broadcast_ss(a + (size_t)r * k + i);
      acc[r][0] = _mm256_fmadd_ps(x, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(x, b1, acc[r][1]);
    }
  }
  const int j0 = p * CF_CPU_GEMM_PANEL;
  const __m256i m0 = lanes(n - j0), m1 = lanes(n - j0 - 8);
  for (int r = 0; r < R; r++) {
    float *cr = c + (size_t)r * n + j0;
    if (full) {
      _mm256_storeu_ps(cr, acc[r][0]);
      _mm256_storeu_ps(cr + 8, acc[r][1]);
    } else {
      _mm256_maskstore_ps(cr, m0, acc[r][0]);
      _mm256_maskstore_ps(cr + 8, m1, acc[r][1]);
    }
  }
}

/* R rows of a against every column. */
static inline __attribute__((always_inline)) void rows(int R, int n, int k, const float *a,
                                                       const float *bp, float *c) {
  const int full = n / CF_CPU_GEMM_PANEL;
  for (int p = 0; p < full; p++) block(R, true, n, k, a, bp, p, c);
  if (full * CF_CPU_GEMM_PANEL < n) block(R, false, n, k, a, bp, full, c);
}

void cf_avx2_gemm_rows(int m, int n, int k, const float *a, const float *bp, float *c) {
  CF_CPU_GEMM_ROWS_BY_FOUR(rows, m, n, k, a, bp, c);
}
