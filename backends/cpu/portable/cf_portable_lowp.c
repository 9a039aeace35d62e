/* cf_portable_lowp.c: the reduced-precision projections' row ops in plain
 * C (cf_cpu_kernels.h: to_bf16_row, quantize_row, quantize_row_u8,
 * dequant_bias_act_row),
 * written without branches or libm calls so they vectorise at the
 * baseline. These define the results the other sets must match bit for
 * bit. */
#include <string.h>

#include "backends/cpu/portable/cf_portable.h"

enum { LANES = 8 };

void cf_portable_to_bf16_row(int n, const float *restrict x, uint16_t *restrict y) {
  for (int i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, &x[i], sizeof u);
    /* Nearest even: add 0x7fff plus the lowest kept bit, keep the top 16.
     * A NaN instead keeps its top bits with the quiet bit set (adding
     * could carry it into infinity). */
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const uint32_t quiet = (u >> 16) | 0x40u;
    y[i] = (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
  }
}

/* The row's scale, max|x| / 127 (1 for an all-zero row). */
static float row_scale_of(int n, const float *restrict x) {
  /* The largest |x| as the largest bit pattern with the sign cleared: for
   * finite non-negative floats the two orders agree, and a signed integer
   * max vectorises under every compiler at every baseline (clang refuses a
   * float max reduction without fast-math). LANES partial maxima keep the
   * loop free of one long dependency chain. */
  int32_t m[LANES] = {0};
  int i = 0;
  for (; i + LANES <= n; i += LANES)
    for (int l = 0; l < LANES; l++) {
      int32_t b;
      memcpy(&b, &x[i + l], sizeof b);
      b &= 0x7fffffff;
      m[l] = b > m[l] ? b : m[l];
    }
  for (; i < n; i++) {
    int32_t b;
    memcpy(&b, &x[i], sizeof b);
    b &= 0x7fffffff;
    m[0] = b > m[0] ? b : m[0];
  }
  int32_t amax_bits = 0;
  for (int l = 0; l < LANES; l++) amax_bits = m[l] > amax_bits ? m[l] : amax_bits;
  float amax;
  memcpy(&amax, &amax_bits, sizeof amax);
  return amax > 0 ? amax / 127.0f : 1.0f;
}

/* x * inv rounded to nearest even by adding and taking away 1.5 * 2^23
 * (exact for |v| < 2^22); |x| * inv <= 127 plus a rounding ulp, so no
 * clamp. The product is its own statement so that no compiler fuses it
 * with the add where the baseline has FMA (the other sets round the
 * product). Inlined into the loops below, which vectorise. */
static inline int rounded(float x, float inv) {
  const float magic = 12582912.0f;
  const float p = x * inv;
  return (int)((p + magic) - magic);
}

float cf_portable_quantize_row(int n, const float *restrict x, int8_t *restrict q) {
  const float s = row_scale_of(n, x), inv = 1.0f / s;
  for (int i = 0; i < n; i++) q[i] = (int8_t)rounded(x[i], inv);
  return s;
}

float cf_portable_quantize_row_u8(int n, const float *restrict x, uint8_t *restrict q) {
  const float s = row_scale_of(n, x), inv = 1.0f / s;
  for (int i = 0; i < n; i++) q[i] = (uint8_t)(rounded(x[i], inv) + 128);
  return s;
}

void cf_portable_dequant_bias_act_row(int n, const int32_t *restrict acc,
                                      const int32_t *restrict offset, float row_scale,
                                      const float *restrict col_scale, const float *bias,
                                      cf_op_act act, float *restrict y) {
  for (int i = 0; i < n; i++) y[i] = (float)(acc[i] - offset[i]) * (row_scale * col_scale[i]);
  /* The row is in L1 now: the second pass costs little. */
  cf_portable_bias_act_row(n, y, bias, act);
}
