/* cf_cpu_attention.c: the attention core (NETWORK.md section 5 steps 2-4)
 * with all three relative position terms in gather form.
 *
 * The tables e[225][dh*H] interleave heads along depth; they are split once
 * into per-head tables E_h[225][dh], so for a (query q, key k) pair the
 * terms q.Eq[p] and k.Ek[p] (p = displacement(q, k)) are contiguous dot
 * products over depth, summed in the same pass as q.k, and the value-side
 * term adds A[q][k] Ev[p] in the same pass as A[q][k] v_k. No 64x64xdh
 * tensor is ever built. Work is split over (position, head) pairs. */
#include <stdint.h>
#include <string.h>

#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_math.h"

/* Builds w->per_head ([H][225][dh]) on first use. Runs before the parallel
 * region; a later call with another head count rebuilds it (never happens
 * within one network). Returns NULL when out of memory. */
static const float *per_head(const cf_bweight *cw, int heads) {
  if (!cw) return NULL;
  cf_bweight *w = (cf_bweight *)cw; /* a cache, not a change of value */
  if (w->per_head && w->per_head_heads == heads) return w->per_head;
  cf_cpu_free(w->per_head);
  w->per_head = cf_cpu_alloc((size_t)w->rows * w->cols);
  if (!w->per_head) return NULL;
  w->per_head_heads = heads;
  const int dh = w->cols / heads;
  for (int p = 0; p < w->rows; p++)
    for (int i = 0; i < dh; i++)
      for (int h = 0; h < heads; h++)
        w->per_head[((size_t)h * w->rows + p) * dh + i] = w->data[(size_t)p * w->cols + i * heads + h];
  return w->per_head;
}

/* q.k + q.eq + k.ek over dh; eq, ek may be NULL. */
static inline float score(const float *q, const float *k, const float *eq, const float *ek,
                          int dh) {
  __m256 acc = _mm256_setzero_ps();
  int i = 0;
  for (; i + 8 <= dh; i += 8) {
    __m256 vq = _mm256_loadu_ps(q + i), vk = _mm256_loadu_ps(k + i);
    __m256 kk = eq ? _mm256_add_ps(vk, _mm256_loadu_ps(eq + i)) : vk;
    acc = _mm256_fmadd_ps(vq, kk, acc);
    if (ek) acc = _mm256_fmadd_ps(vk, _mm256_loadu_ps(ek + i), acc);
  }
  float s = cf_hsum256(acc);
  for (; i < dh; i++) s += q[i] * (k[i] + (eq ? eq[i] : 0.0f)) + (ek ? k[i] * ek[i] : 0.0f);
  return s;
}

/* s[64] = softmax(s). */
static void softmax64(float *s) {
  __m256 m = _mm256_loadu_ps(s);
  for (int k = 8; k < 64; k += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(s + k));
  __m256 mx = _mm256_set1_ps(cf_hmax256(m)), sum = _mm256_setzero_ps();
  for (int k = 0; k < 64; k += 8) {
    __m256 e = cf_exp256(_mm256_sub_ps(_mm256_loadu_ps(s + k), mx));
    _mm256_storeu_ps(s + k, e);
    sum = _mm256_add_ps(sum, e);
  }
  __m256 inv = _mm256_set1_ps(1.0f / cf_hsum256(sum));
  for (int k = 0; k < 64; k += 8) _mm256_storeu_ps(s + k, _mm256_mul_ps(_mm256_loadu_ps(s + k), inv));
}

/* o[dh] += a (v + ev); ev may be NULL. */
static inline void accumulate(float *o, float a, const float *v, const float *ev, int dh) {
  __m256 va = _mm256_set1_ps(a);
  int i = 0;
  for (; i + 8 <= dh; i += 8) {
    __m256 x = _mm256_loadu_ps(v + i);
    if (ev) x = _mm256_add_ps(x, _mm256_loadu_ps(ev + i));
    _mm256_storeu_ps(o + i, _mm256_fmadd_ps(va, x, _mm256_loadu_ps(o + i)));
  }
  for (; i < dh; i++) o[i] += a * (v[i] + (ev ? ev[i] : 0.0f));
}

typedef struct head_tables {
  const float *q, *k, *v; /* [H][225][dh] or NULL */
} head_tables;

/* Offset of key k's square in the displacement: p(q, k) = base(q) - koff(k). */
static inline int koff(int k) { return 15 * (k >> 3) + (k & 7); }
static inline int qbase(int q) { return 15 * ((q >> 3) + 7) + (q & 7) + 7; }

static void attend(const cf_attention_args *a, const head_tables *t, int b, int h) {
  const int H = a->heads, dh = a->depth, dm = H * dh, ld = 3 * dm;
  const float *tok = a->qkv + (size_t)b * 64 * ld; /* [64][3*dm] */
  float *out = a->out + (size_t)b * 64 * dm;       /* [64][dm] */
  const size_t tab = (size_t)h * 225 * dh;
  const float *eq = t->q ? t->q + tab : NULL, *ek = t->k ? t->k + tab : NULL,
              *ev = t->v ? t->v + tab : NULL;
  const float *bias = a->bias ? a->bias + ((size_t)b * H + h) * 64 * 64 : NULL;

  for (int q = 0; q < 64; q++) {
    const float *Q = tok + (size_t)q * ld + h * dh;
    const int base = qbase(q);
    float s[64];
    for (int k = 0; k < 64; k++) {
      const size_t p = (size_t)(base - koff(k)) * dh;
      const float *K = tok + (size_t)k * ld + dm + h * dh;
      s[k] = score(Q, K, eq ? eq + p : NULL, ek ? ek + p : NULL, dh) * a->scale;
    }
    if (bias)
      for (int k = 0; k < 64; k++) s[k] += bias[q * 64 + k];
    softmax64(s);
    float *O = out + (size_t)q * dm + h * dh;
    memset(O, 0, (size_t)dh * sizeof(float));
    for (int k = 0; k < 64; k++) {
      const float *V = tok + (size_t)k * ld + 2 * dm + h * dh;
      accumulate(O, s[k], V, ev ? ev + (size_t)(base - koff(k)) * dh : NULL, dh);
    }
  }
}

void cf_cpu_attention(void *ctx, const cf_attention_args *a) {
  const cf_cpu_ctx *c = ctx;
  head_tables t = {per_head(a->rpe_q, a->heads), per_head(a->rpe_k, a->heads),
                   per_head(a->rpe_v, a->heads)};
  /* Out of memory for a table: nothing sensible to compute. Ops cannot
   * fail, so the output is zeroed (and the table retried next call). */
  if ((a->rpe_q && !t.q) || (a->rpe_k && !t.k) || (a->rpe_v && !t.v)) {
    memset(a->out, 0, (size_t)a->batch * 64 * a->heads * a->depth * sizeof(float));
    return;
  }
  const int tasks = a->batch * a->heads;
  const int nt = c->threads < tasks ? c->threads : tasks;
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
  for (int i = 0; i < tasks; i++) attend(a, &t, i / a->heads, i % a->heads);
}
