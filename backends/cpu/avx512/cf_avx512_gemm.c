/* cf_avx512_gemm.c: the avx512 set's product for the layers with one row
 * a position (cf_cpu_kernels.h, gemm_rows; cf_backend_iface.linear_positions
 * on onednn), with AVX-512: the avx2 set's (cf_avx2_gemm.c) with a panel a
 * vector and two panels a block. Every output is its own chain of fused
 * multiply-adds over k in order, from 0, whatever the rows beside it (the
 * same bits as the avx2 set's). */
#include <stdbool.h>
#include <stddef.h>

#include "backends/cpu/avx512/cf_avx512.h"
#include "backends/cpu/avx512/cf_avx512_math.h"

/* c[r][16 p .. 16 (p + P)) for rows r < R (R <= 4, P <= 2 panels:
 * constants after inlining); columns past n not stored. a at row stride
 * k, bp the panels, c at stride n. */
static inline __attribute__((always_inline)) void block(int R, int P, int n, int k,
                                                        const float *a, const float *bp, int p,
                                                        float *c) {
  const float *panel = bp + (size_t)p * k * CF_CPU_GEMM_PANEL;
  const size_t next = (size_t)k * CF_CPU_GEMM_PANEL; /* panel p + 1 */
  __m512 acc[4][2];
  for (int r = 0; r < R; r++)
    for (int q = 0; q < P; q++) acc[r][q] = _mm512_setzero_ps();
  for (int i = 0; i < k; i++) {
    __m512 b[2];
    for (int q = 0; q < P; q++)
      b[q] = _mm512_load_ps(panel + q * next + (size_t)i * CF_CPU_GEMM_PANEL);
    for (int r = 0; r < R; r++) {
      const __m512 x = _mm512_set1_ps(a[(size_t)r * k + i]);
      for (int q = 0; q < P; q++) acc[r][q] = _mm512_fmadd_ps(x, b[q], acc[r][q]);
    }
  }
  for (int q = 0; q < P; q++) {
    const int j0 = (p + q) * CF_CPU_GEMM_PANEL;
    const __mmask16 m = cf_tail16(n - j0);
    for (int r = 0; r < R; r++) _mm512_mask_storeu_ps(c + (size_t)r * n + j0, m, acc[r][q]);
  }
}

/* R rows of a against every column. */
static inline __attribute__((always_inline)) void rows(int R, int n, int k, const float *a,
                                                       const float *bp, float *c) {
  const int panels = (n + CF_CPU_GEMM_PANEL - 1) / CF_CPU_GEMM_PANEL;
  int p = 0;
  for (; p + 2 <= panels; p += 2) block(R, 2, n, k, a, bp, p, c);
  if (p < panels) block(R, 1, n, k, a, bp, p, c);
}

void cf_avx512_gemm_rows(int m, int n, int k, const float *a, const float *bp, float *c) {
  CF_CPU_GEMM_ROWS_BY_FOUR(rows, m, n, k, a, bp, c);
}
