/* cf_ref_attention.c: multi-head attention with Shaw relative position terms
 * (NETWORK.md section 5, steps 2-4), read straight off the spec.
 *
 * The relative position tables are indexed through the displacement
 * p(q, k) = 15 (rank(q) - rank(k) + 7) + (file(q) - file(k) + 7), 0..224,
 * computed on the fly: no 64x64 table is ever built. */
#include <math.h>

#include "backends/ref/cf_ref_internal.h"

static int displacement(int q, int k) {
  return 15 * ((q / 8) - (k / 8) + 7) + ((q % 8) - (k % 8) + 7);
}

/* e[225][dh*H]: element (p, i*H + h), depth-major, head-minor. */
static float rpe_at(const cf_bweight *e, int p, int i, int h, int heads) {
  return e->data[(size_t)p * e->cols + (size_t)i * heads + h];
}

/* In-place softmax of s[n]. */
static void softmax(float *s, int n) {
  float mx = s[0];
  for (int i = 1; i < n; i++) mx = s[i] > mx ? s[i] : mx;
  float sum = 0.0f;
  for (int i = 0; i < n; i++) {
    s[i] = expf(s[i] - mx);
    sum += s[i];
  }
  for (int i = 0; i < n; i++) s[i] /= sum;
}

/* One (position, head): queries and keys are rows of qkv. */
static void attend_one_head(const cf_attention_args *a, int b, int h) {
  const int H = a->heads, dh = a->depth, dm = H * dh, ld = 3 * dm;
  const float *tok = a->qkv + (size_t)b * 64 * ld; /* [64][3*dm] */
  float *out = a->out + (size_t)b * 64 * dm;       /* [64][dm] */

  for (int q = 0; q < 64; q++) {
    const float *Q = tok + (size_t)q * ld + h * dh; /* [dh] */
    float s[64];                                    /* scores of query q, then weights A[q][.] */
    for (int k = 0; k < 64; k++) {
      const float *K = tok + (size_t)k * ld + dm + h * dh; /* [dh] */
      int p = displacement(q, k);
      float acc = 0.0f;
      for (int i = 0; i < dh; i++) acc += Q[i] * K[i];
      if (a->rpe_q)
        for (int i = 0; i < dh; i++) acc += Q[i] * rpe_at(a->rpe_q, p, i, h, H);
      if (a->rpe_k)
        for (int i = 0; i < dh; i++) acc += K[i] * rpe_at(a->rpe_k, p, i, h, H);
      s[k] = acc * a->scale;
      if (a->bias) s[k] += a->bias[(((size_t)b * H + h) * 64 + q) * 64 + k];
    }
    softmax(s, 64);

    float *O = out + (size_t)q * dm + h * dh; /* [dh] */
    for (int i = 0; i < dh; i++) O[i] = 0.0f;
    for (int k = 0; k < 64; k++) {
      const float *V = tok + (size_t)k * ld + 2 * dm + h * dh; /* [dh] */
      for (int i = 0; i < dh; i++) O[i] += s[k] * V[i];
      if (a->rpe_v) {
        int p = displacement(q, k);
        for (int i = 0; i < dh; i++) O[i] += s[k] * rpe_at(a->rpe_v, p, i, h, H);
      }
    }
  }
}

void cf_ref_attention(void *ctx, const cf_attention_args *args) {
  (void)ctx;
  for (int b = 0; b < args->batch; b++)
    for (int h = 0; h < args->heads; h++) attend_one_head(args, b, h);
}
