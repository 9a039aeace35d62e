/* cf_onednn_attention_rows.c: the oneDNN attention path's row loops (see
 * the header). Plain C: these are the small part of the work beside the
 * products, and the compiler vectorizes the conversions. */
#include "backends/onednn/cf_onednn_attention_rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cf_cpu_attention_layout.h"

/* bfloat16 bits of f, rounded to nearest even (a NaN stays a NaN). */
static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

void cf_onednn_attn_row(cf_precision p, int n, const float *x, size_t stride, void *dst,
                        float *scale) {
  *scale = 1.0f;
  if (p == CF_PRECISION_F32) {
    float *d = dst;
    for (int j = 0; j < n; j++) d[j] = x[(size_t)j * stride];
  } else if (p == CF_PRECISION_BF16) {
    uint16_t *d = dst;
    for (int j = 0; j < n; j++) d[j] = to_bf16(x[(size_t)j * stride]);
  } else {
    int8_t *d = dst;
    float mx = 0.0f;
    for (int j = 0; j < n; j++) mx = fmaxf(mx, fabsf(x[(size_t)j * stride]));
    if (mx > 0.0f) *scale = mx / 127.0f;
    const float inv = 1.0f / *scale;
    for (int j = 0; j < n; j++) {
      const float v = nearbyintf(x[(size_t)j * stride] * inv);
      d[j] = (int8_t)(v > 127.0f ? 127.0f : v < -127.0f ? -127.0f : v);
    }
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
  /* data[p][i*H + h]: head h's depth i at displacement p. */
  for (int h = 0; h < H; h++) {
    if (value) /* rows [dh][T]: depth i over the displacements */
      for (int i = 0; i < dh; i++)
        cf_onednn_attn_row(p, T, data + (size_t)i * H + h, (size_t)cols,
                           (char *)t->rows + ((size_t)h * dh + i) * T * es,
                           &t->scale[(size_t)h * dh + i]);
    else /* rows [T][dh]: displacement j over the depths */
      for (int j = 0; j < T; j++)
        cf_onednn_attn_row(p, dh, data + (size_t)j * cols + h, (size_t)H,
                           (char *)t->rows + ((size_t)h * T + j) * dh * es,
                           &t->scale[(size_t)h * T + j]);
  }
  return true;
}

void cf_onednn_attn_query(cf_precision p, int q, const float *s_qk, float sq, const float *sk,
                          const float *rq, const float *seq, const float *rk, const float *sek,
                          float scale, const float *bias, void *a, void *ap, float *sa) {
  float s[64], mx = -INFINITY;
  const int base = cf_cpu_query_base(q);
  for (int k = 0; k < 64; k++) {
    const int d = base - cf_cpu_key_off(k); /* p(q, k) */
    float v = s_qk[k] * sq * sk[k];
    if (rq) v += rq[d] * sq * seq[d];
    if (rk) v += rk[(size_t)k * CF_ONEDNN_RPE_T + d] * sk[k] * sek[d];
    v = v * scale + (bias ? bias[k] : 0.0f);
    s[k] = v;
    mx = fmaxf(mx, v);
  }
  float sum = 0.0f;
  for (int k = 0; k < 64; k++) sum += s[k] = expf(s[k] - mx);
  const float inv = 1.0f / sum;
  for (int k = 0; k < 64; k++) s[k] *= inv;
  if (p == CF_PRECISION_INT8) { /* u8: the weights are never negative */
    float mx = 0.0f;
    for (int k = 0; k < 64; k++) mx = fmaxf(mx, s[k]);
    *sa = mx > 0.0f ? mx / 255.0f : 1.0f;
    const float to = 1.0f / *sa;
    for (int k = 0; k < 64; k++) ((uint8_t *)a)[k] = (uint8_t)fminf(nearbyintf(s[k] * to), 255.0f);
  } else {
    cf_onednn_attn_row(p, 64, s, 1, a, sa);
  }
  if (!ap) return;
  const size_t es = cf_onednn_attn_size(p);
  memset(ap, 0, CF_ONEDNN_RPE_T * es);
  for (int k = 0; k < 64; k++) {
    const int d = base - cf_cpu_key_off(k);
    memcpy((char *)ap + (size_t)d * es, (const char *)a + (size_t)k * es, es);
  }
}
