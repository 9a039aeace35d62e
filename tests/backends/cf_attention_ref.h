/* cf_attention_ref.h: the attention op (NETWORK.md section 5 steps 2-4)
 * in double precision, the oracle of the backend tests. */
#ifndef CF_ATTENTION_REF_H
#define CF_ATTENTION_REF_H

#include <math.h>
#include <stddef.h>

/* Attention computed from NETWORK.md section 5 in double, with the RPE
 * tables looked up through an explicit 64x64 displacement table. */
static inline void attention_ref(int batch, int H, int dh, const float *qkv, const float *eq,
                          const float *ek, const float *ev, const float *bias, double *out) {
  const int dm = H * dh, ld = 3 * dm;
  int p[64][64];
  for (int q = 0; q < 64; q++)
    for (int k = 0; k < 64; k++) p[q][k] = 15 * (q / 8 - k / 8 + 7) + (q % 8 - k % 8 + 7);
  for (int b = 0; b < batch; b++)
    for (int h = 0; h < H; h++)
      for (int q = 0; q < 64; q++) {
        double s[64], mx = -1e300, sum = 0;
        for (int k = 0; k < 64; k++) {
          double acc = 0;
          for (int i = 0; i < dh; i++) {
            double Q = qkv[(b * 64 + q) * ld + h * dh + i],
                   K = qkv[(b * 64 + k) * ld + dm + h * dh + i];
            acc += Q * K;
            if (eq) acc += Q * eq[p[q][k] * dm + i * H + h];
            if (ek) acc += K * ek[p[q][k] * dm + i * H + h];
          }
          s[k] = acc / sqrt((double)dh) + (bias ? bias[((b * H + h) * 64 + q) * 64 + k] : 0.0);
          mx = s[k] > mx ? s[k] : mx;
        }
        for (int k = 0; k < 64; k++) sum += s[k] = exp(s[k] - mx);
        for (int i = 0; i < dh; i++) {
          double o = 0;
          for (int k = 0; k < 64; k++) {
            o += s[k] / sum * qkv[(b * 64 + k) * ld + 2 * dm + h * dh + i];
            if (ev) o += s[k] / sum * ev[p[q][k] * dm + i * H + h];
          }
          out[(b * 64 + q) * dm + h * dh + i] = o;
        }
      }
}

/* A softmax case for the cores' softmax-to-weights steps: a score row of
 * 16 rnd() (rnd uniform in [-1, 1): scores in [-16, 16)), a bias row of
 * 2 rnd() (*b = it with `with_bias`, else NULL), the scale 1 / sqrt(32),
 * and want[c] = the double softmax of row * scale (+ bias). */
static inline void softmax_case(float (*rnd)(void), int with_bias, float row[64],
                                float bias[64], const float **b, float *scale,
                                double want[64]) {
  *scale = 0.17677669f;
  for (int c = 0; c < 64; c++) row[c] = 16.0f * rnd(), bias[c] = 2.0f * rnd();
  *b = with_bias ? bias : NULL;
  double v[64], mx = -INFINITY, sum = 0;
  for (int c = 0; c < 64; c++) {
    v[c] = (double)(row[c] * *scale) + (with_bias ? bias[c] : 0.0);
    mx = fmax(mx, v[c]);
  }
  for (int c = 0; c < 64; c++) sum += exp(v[c] - mx);
  for (int c = 0; c < 64; c++) want[c] = exp(v[c] - mx) / sum;
}

#endif /* CF_ATTENTION_REF_H */
