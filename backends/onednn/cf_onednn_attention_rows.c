/* cf_onednn_attention_rows.c: the oneDNN attention path's row loops (see
 * the header). Plain C the compiler vectorises (the portable set's exp,
 * no libm calls in the loops): where AMX runs the products, these loops
 * are most of the op's time. */
#include "backends/onednn/cf_onednn_attention_rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/portable/cf_portable_math.h"

/* bfloat16 bits of f, rounded to nearest even (a NaN stays a NaN).
 * Branch-free, so loops over it vectorise. */
static inline uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  const uint32_t nan = (u >> 16) | 0x40u, rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  return (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

/* nearbyintf(x) for |x| <= 2^22 in the default rounding mode (to
 * nearest, ties to even): adding and taking away 1.5 x 2^23 leaves no
 * fraction bits. Inline, where nearbyintf is a libm call on baseline
 * x86-64 that keeps the loops scalar. The values here are within +-255. */
static inline float round_even(float x) { return (x + 12582912.0f) - 12582912.0f; }

void cf_onednn_attn_row(cf_precision p, int n, const float *restrict x, void *restrict dst,
                        float *scale) {
  *scale = 1.0f;
  if (p == CF_PRECISION_F32) {
    memcpy(dst, x, (size_t)n * sizeof(float));
  } else if (p == CF_PRECISION_BF16) {
    uint16_t *d = dst;
    for (int j = 0; j < n; j++) d[j] = to_bf16(x[j]);
  } else {
    int8_t *d = dst;
    float mx = 0.0f;
    for (int j = 0; j < n; j++) {
      const float v = fabsf(x[j]);
      mx = v > mx ? v : mx; /* a NaN is passed over, as fmaxf does */
    }
    if (mx > 0.0f) *scale = mx / 127.0f;
    const float inv = 1.0f / *scale;
    for (int j = 0; j < n; j++) {
      const float v = round_even(x[j] * inv);
      d[j] = (int8_t)(v > 127.0f ? 127.0f : v < -127.0f ? -127.0f : v);
    }
  }
}

void cf_onednn_attn_columns(cf_precision p, int n, int cols, const float *x, size_t ld,
                            void *dst, float *scale) {
  enum { CHUNK = 16 };
  float tmp[CHUNK][64];
  const size_t es = cf_onednn_attn_size(p);
  for (int c0 = 0; c0 < cols; c0 += CHUNK) {
    const int m = cols - c0 < CHUNK ? cols - c0 : CHUNK;
    for (int j = 0; j < n; j++) /* row j's m columns, side by side in x */
      for (int c = 0; c < m; c++) tmp[c][j] = x[(size_t)j * ld + (size_t)(c0 + c)];
    for (int c = 0; c < m; c++)
      cf_onednn_attn_row(p, n, tmp[c], (char *)dst + (size_t)(c0 + c) * n * es, &scale[c0 + c]);
  }
}

bool cf_onednn_rpe_build(cf_precision p, const cf_weight_shape *shape, const float *data,
                         cf_onednn_rpe *t, const char **why) {
  const int H = shape->heads, cols = shape->cols, dh = H > 0 ? cols / H : 0, T = CF_ONEDNN_RPE_T;
  const bool value = shape->role == CF_WEIGHT_RPE_V;
  const size_t n = (size_t)H * T * dh, es = cf_onednn_attn_size(p);
  *t = (cf_onednn_rpe){.role = shape->role, .heads = H, .depth = dh};
  *why = NULL;
  for (size_t i = 0; i < (size_t)T * cols; i++) {
    if (!isfinite(data[i]) && p == CF_PRECISION_INT8) {
      *why = "a relative position table value that is not finite has no int8 form";
      return false;
    }
    /* A finite value whose bf16 rounding is infinite. */
    if (p == CF_PRECISION_BF16 && isfinite(data[i]) && (to_bf16(data[i]) & 0x7f80u) == 0x7f80u) {
      *why = "a relative position table value beyond bf16's range";
      return false;
    }
  }
  t->rows = malloc(n * es);
  t->scale = malloc((size_t)H * (value ? dh : T) * sizeof(float));
  if (!t->rows || !t->scale) {
    free(t->rows);
    free(t->scale);
    return false;
  }
  /* data[p][i*H + h]: head h's depth i at displacement p; each row
   * gathered into tmp, then converted (at upload: no hurry). */
  float *tmp = malloc((size_t)(T > dh ? T : dh) * sizeof(float));
  if (!tmp) {
    free(t->rows);
    free(t->scale);
    return false;
  }
  for (int h = 0; h < H; h++) {
    if (value) /* rows [dh][T]: depth i over the displacements */
      for (int i = 0; i < dh; i++) {
        for (int j = 0; j < T; j++) tmp[j] = data[(size_t)j * cols + (size_t)i * H + h];
        cf_onednn_attn_row(p, T, tmp, (char *)t->rows + ((size_t)h * dh + i) * T * es,
                           &t->scale[(size_t)h * dh + i]);
      }
    else /* rows [T][dh]: displacement j over the depths */
      for (int j = 0; j < T; j++) {
        for (int i = 0; i < dh; i++) tmp[i] = data[(size_t)j * cols + (size_t)i * H + h];
        cf_onednn_attn_row(p, dh, tmp, (char *)t->rows + ((size_t)h * T + j) * dh * es,
                           &t->scale[(size_t)h * T + j]);
      }
  }
  free(tmp);
  return true;
}

/* One query's scores (row s, already holding the products) scaled, with
 * its bias row, through the softmax, out in precision p as a (and ap). */
static void finish_query(cf_precision p, int q, float *s, float scale, const float *bias, void *a,
                         void *ap, float *sa) {
  for (int k = 0; k < 64; k++) s[k] = s[k] * scale + (bias ? bias[k] : 0.0f);
  const float inv = 1.0f / cf_portable_softmax_exp(s);
  for (int k = 0; k < 64; k++) s[k] *= inv;
  if (p == CF_PRECISION_INT8) { /* u8: the weights are never negative */
    float mx = 0.0f;
    for (int k = 0; k < 64; k++) mx = s[k] > mx ? s[k] : mx;
    *sa = mx > 0.0f ? mx / 255.0f : 1.0f;
    const float to = 1.0f / *sa;
    for (int k = 0; k < 64; k++) {
      const float v = round_even(s[k] * to);
      ((uint8_t *)a)[k] = (uint8_t)(v < 255.0f ? v : 255.0f);
    }
  } else {
    cf_onednn_attn_row(p, 64, s, a, sa);
  }
  if (!ap) return;
  const size_t es = cf_onednn_attn_size(p);
  const int base = cf_cpu_query_base(q);
  memset(ap, 0, CF_ONEDNN_RPE_T * es);
  /* By element size, so each copy is one load and store, not a byte loop. */
  for (int k = 0; k < 64; k++) {
    const int d = base - cf_cpu_key_off(k);
    if (es == 1) ((uint8_t *)ap)[d] = ((const uint8_t *)a)[k];
    else if (es == 2) ((uint16_t *)ap)[d] = ((const uint16_t *)a)[k];
    else ((float *)ap)[d] = ((const float *)a)[k];
  }
}

void cf_onednn_attn_task(cf_precision p, const float *s_qk, const float *sq, const float *sk,
                         const float *rq, const float *seq, const float *rk, const float *sek,
                         float scale, const float *bias, void *a, void *ap, float *sa) {
  /* p(q, k) = 15 (qr - kr + 7) + (qc - kc + 7) for q = 8 qr + qc and
   * k = 8 kr + kc: along a row of 8 keys it falls by one, along a row of
   * 8 queries it rises by one. So each term reads runs of 8 neighbouring
   * table entries, loops the compiler vectorises, where the query by
   * query gather it replaces read one entry of each of 64 table rows. */
  float s[64][64], t[64][64];
  for (int q = 0; q < 64; q++)
    for (int k = 0; k < 64; k++) s[q][k] = s_qk[q * 64 + k] * sq[q] * sk[k];
  if (rq) /* query q's row of Rq: keys kr*8 .. kr*8 + 7 at d0, d0 - 1, ... */
    for (int q = 0; q < 64; q++) {
      const float *row = rq + (size_t)q * CF_ONEDNN_RPE_T;
      const float sqq = sq[q];
      for (int kr = 0; kr < 8; kr++) {
        const int d0 = cf_cpu_query_base(q) - 15 * kr;
        float *out = s[q] + 8 * kr;
        for (int kc = 0; kc < 8; kc++) out[kc] += row[d0 - kc] * sqq * seq[d0 - kc];
      }
    }
  if (rk) { /* key k's row of Rk: queries qr*8 .. qr*8 + 7 at d0, d0 + 1, ... */
    for (int k = 0; k < 64; k++) {
      const float *row = rk + (size_t)k * CF_ONEDNN_RPE_T;
      const float skk = sk[k];
      for (int qr = 0; qr < 8; qr++) {
        const int d0 = cf_cpu_query_base(8 * qr) - cf_cpu_key_off(k);
        float *out = t[k] + 8 * qr;
        for (int qc = 0; qc < 8; qc++) out[qc] = row[d0 + qc] * skk * sek[d0 + qc];
      }
    }
    for (int q = 0; q < 64; q++)
      for (int k = 0; k < 64; k++) s[q][k] += t[k][q];
  }
  const size_t es = cf_onednn_attn_size(p);
  for (int q = 0; q < 64; q++)
    finish_query(p, q, s[q], scale, bias ? bias + q * 64 : NULL, (char *)a + (size_t)q * 64 * es,
                 ap ? (char *)ap + (size_t)q * CF_ONEDNN_RPE_T * es : NULL, &sa[q]);
}
