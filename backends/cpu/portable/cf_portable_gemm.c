/* cf_portable_gemm.c: the portable set's "NT" matrix product in plain C
 * (cf_cpu_kernels.h, gemm_nt): every output a dot product of a row of a
 * and a row of b, summed in 8 partial lanes the compiler vectorises. The
 * oracle of the SIMD sets' products (tests/backends/test_cpu_gemm.c). */
#include "backends/cpu/portable/cf_portable.h"

enum { LANES = 8 };

static float dot(int k, const float *restrict x, const float *restrict y) {
  float l[LANES] = {0};
  int i = 0;
  for (; i + LANES <= k; i += LANES)
    for (int j = 0; j < LANES; j++) l[j] += x[i + j] * y[i + j];
  float s = ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
  for (; i < k; i++) s += x[i] * y[i];
  return s;
}

void cf_portable_gemm_nt(int m, int n, int k, float scale, const float *a, const float *b,
                         float *c) {
  for (int r = 0; r < m; r++) {
    const float *x = a + (size_t)r * k;
    float *out = c + (size_t)r * n;
    for (int j = 0; j < n; j++) out[j] = scale * dot(k, x, b + (size_t)j * k);
  }
}
