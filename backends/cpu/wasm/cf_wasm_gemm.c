/* cf_wasm_gemm.c: the wasm set's "NT" matrix product (cf_cpu_kernels.h,
 * gemm_nt) in SIMD128. Both operands run along k, so each output is a dot
 * product: a block of 2 rows of a by 4 rows of b keeps 8 accumulators of 4
 * lanes (with the 6 loaded vectors, 14 registers: SIMD128 engines map to
 * 16), reads each loaded vector 2 or 4 times, and folds the 4 accumulators
 * of a row into one vector of 4 outputs at the end (hsum4). A product of
 * 16 lanes is summed in a different order than the portable set's 8, so
 * results agree to rounding, not bit for bit. */
#include <wasm_simd128.h>

#include "backends/cpu/wasm/cf_wasm.h"

/* [sum a0, sum a1, sum a2, sum a3]. */
static inline v128_t hsum4(v128_t a0, v128_t a1, v128_t a2, v128_t a3) {
  v128_t t0 = wasm_f32x4_add(wasm_i32x4_shuffle(a0, a1, 0, 4, 1, 5),
                             wasm_i32x4_shuffle(a0, a1, 2, 6, 3, 7));
  v128_t t1 = wasm_f32x4_add(wasm_i32x4_shuffle(a2, a3, 0, 4, 1, 5),
                             wasm_i32x4_shuffle(a2, a3, 2, 6, 3, 7));
  return wasm_f32x4_add(wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5),
                        wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7));
}

static inline float hsum(v128_t v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 2)) +
         (wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 3));
}

#define MADD(acc, x, y) acc = wasm_f32x4_add(acc, wasm_f32x4_mul(x, y))

/* Outputs (r, j .. j + 3) for the rows x0 (and x1 when not NULL). */
static void block(int k, float scale, const float *x0, const float *x1, const float *b, int j,
                  float *c0, float *c1) {
  const float *y0 = b + (size_t)j * k, *y1 = y0 + k, *y2 = y1 + k, *y3 = y2 + k;
  v128_t a00 = wasm_f32x4_splat(0.0f), a01 = a00, a02 = a00, a03 = a00;
  v128_t a10 = a00, a11 = a00, a12 = a00, a13 = a00;
  int i = 0;
  if (x1) {
    for (; i + 4 <= k; i += 4) {
      const v128_t u = wasm_v128_load(x0 + i), v = wasm_v128_load(x1 + i);
      const v128_t b0 = wasm_v128_load(y0 + i), b1 = wasm_v128_load(y1 + i);
      const v128_t b2 = wasm_v128_load(y2 + i), b3 = wasm_v128_load(y3 + i);
      MADD(a00, u, b0);
      MADD(a01, u, b1);
      MADD(a02, u, b2);
      MADD(a03, u, b3);
      MADD(a10, v, b0);
      MADD(a11, v, b1);
      MADD(a12, v, b2);
      MADD(a13, v, b3);
    }
  } else {
    for (; i + 4 <= k; i += 4) {
      const v128_t u = wasm_v128_load(x0 + i);
      MADD(a00, u, wasm_v128_load(y0 + i));
      MADD(a01, u, wasm_v128_load(y1 + i));
      MADD(a02, u, wasm_v128_load(y2 + i));
      MADD(a03, u, wasm_v128_load(y3 + i));
    }
  }
  float s[2][4];
  wasm_v128_store(s[0], hsum4(a00, a01, a02, a03));
  wasm_v128_store(s[1], hsum4(a10, a11, a12, a13));
  for (; i < k; i++) {
    s[0][0] += x0[i] * y0[i];
    s[0][1] += x0[i] * y1[i];
    s[0][2] += x0[i] * y2[i];
    s[0][3] += x0[i] * y3[i];
    if (x1) {
      s[1][0] += x1[i] * y0[i];
      s[1][1] += x1[i] * y1[i];
      s[1][2] += x1[i] * y2[i];
      s[1][3] += x1[i] * y3[i];
    }
  }
  for (int q = 0; q < 4; q++) c0[j + q] = scale * s[0][q];
  if (x1)
    for (int q = 0; q < 4; q++) c1[j + q] = scale * s[1][q];
}

static float dot(int k, const float *x, const float *y) {
  v128_t acc = wasm_f32x4_splat(0.0f);
  int i = 0;
  for (; i + 4 <= k; i += 4) MADD(acc, wasm_v128_load(x + i), wasm_v128_load(y + i));
  float s = hsum(acc);
  for (; i < k; i++) s += x[i] * y[i];
  return s;
}

void cf_wasm_gemm_nt(int m, int n, int k, float scale, const float *a, const float *b, float *c) {
  for (int r = 0; r < m; r += 2) {
    const float *x0 = a + (size_t)r * k, *x1 = r + 1 < m ? x0 + k : NULL;
    float *c0 = c + (size_t)r * n, *c1 = x1 ? c0 + n : NULL;
    int j = 0;
    for (; j + 4 <= n; j += 4) block(k, scale, x0, x1, b, j, c0, c1);
    for (; j < n; j++) {
      const float *y = b + (size_t)j * k;
      c0[j] = scale * dot(k, x0, y);
      if (x1) c1[j] = scale * dot(k, x1, y);
    }
  }
}
