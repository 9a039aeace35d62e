/* cf_avx512_attention.c: the attention core (NETWORK.md section 5 steps
 * 2-4) for one (position, head) with AVX-512: the avx2 set's gather form
 * (cf_cpu_attention_layout.h) on 16-wide vectors. The driver
 * (cf_cpu_attention.c) builds the tables and spreads the tasks over
 * threads.
 *
 * A vector covers the 16 keys of two neighbouring ranks. Their table
 * entries are two runs of 8 that sit 15 apart in a reversed table row (one
 * run per key rank), so a table vector is two 8-float loads joined
 * (vinsertf32x8); no gather. As in the avx2 set, queries go in pairs on
 * one file (q0, q0 + 8): q0 + 8's run for key rank r is q0's for rank
 * r - 1, so the 4 table vectors a pair needs per half and depth come from
 * 5 run loads, and each key load serves both queries. Keys go in two
 * halves of 32 so the tables' working set stays in L1. (Two overlapping
 * 16-float loads merged by a mask, 8 loads per 4 vectors, made the
 * q, k and v case about 20% slower in bench_attention on a Zen 5: more
 * loads per FMA.) Row tails (depth
 * not a multiple of 16) are masked steps, not scalar loops. */
#include <stddef.h>
#include <stdint.h>

#include "backends/cpu/avx512/cf_avx512.h"
#include "backends/cpu/avx512/cf_avx512_math.h"
#include "backends/cpu/cf_cpu_attention_layout.h"

/* Lanes 0..7 from lo, 8..15 from hi. */
static inline __m512 join(__m256 lo, __m256 hi) {
  return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}

/* s[64] = softmax(s * scale + bias) (bias: a row, or NULL), in registers:
 * one load and one store of the row. s is 64-byte aligned. */
static inline void finish_scores(float *s, __m512 scale, const float *bias) {
  __m512 v[4];
  for (int j = 0; j < 4; j++) {
    v[j] = _mm512_mul_ps(_mm512_load_ps(s + 16 * j), scale);
    if (bias) v[j] = _mm512_add_ps(v[j], _mm512_loadu_ps(bias + 16 * j));
  }
  const __m512 mx = _mm512_set1_ps(
      _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(v[0], v[1]), _mm512_max_ps(v[2], v[3]))));
  __m512 sum = _mm512_setzero_ps();
  for (int j = 0; j < 4; j++) {
    v[j] = cf_exp512(_mm512_sub_ps(v[j], mx));
    sum = _mm512_add_ps(sum, v[j]);
  }
  const __m512 inv = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(sum));
  for (int j = 0; j < 4; j++) _mm512_store_ps(s + 16 * j, _mm512_mul_ps(v[j], inv));
}

/* Scores of the queries q0 and q0 + 8 (same file, neighbouring ranks)
 * against one half of the keys (ranks 4 half .. 4 half + 3):
 * s0[32 half ..], s1[32 half ..] = q.k + q.Eq[p] + k.Ek[p] over depth dh.
 * kt: keys transposed [dh][64], 64-byte aligned; eq, ek: reversed tables
 * [dh][225] already offset by c(q0), or NULL. c(q0 + 8) = c(q0) - 15:
 * q0 + 8's run for rank r is q0's for rank r - 1. Inlined with constant
 * use_q / use_k so each combination is its own branch-free loop. */
static inline __attribute__((always_inline)) void scores2(int dh, const float *Q0, const float *Q1,
                                                          const float *kt, const float *eq,
                                                          const float *ek, int use_q, int use_k,
                                                          int half, float *s0, float *s1) {
  __m512 a0[2], a1[2];
  for (int r = 0; r < 2; r++) a0[r] = a1[r] = _mm512_setzero_ps();
  for (int i = 0; i < dh; i++) {
    const __m512 q0 = _mm512_set1_ps(Q0[i]), q1 = _mm512_set1_ps(Q1[i]);
    const float *kr = kt + (size_t)i * 64 + 32 * half;
    const size_t row = (size_t)i * CF_CPU_RPE_TABLE + 60 * half; /* 15 * 4 per half */
    /* The runs of key ranks -1..3 of the half for q0 (t[j]: rank j - 1),
     * each loaded once: q0 takes ranks (0,1), (2,3), q0 + 8 ranks
     * (-1,0), (1,2). */
    __m256 tq[5], tk[5];
    for (int j = 0; j < 5; j++) {
      if (use_q) tq[j] = _mm256_loadu_ps(eq + row + 15 * j - 15);
      if (use_k) tk[j] = _mm256_loadu_ps(ek + row + 15 * j - 15);
    }
    for (int r = 0; r < 2; r++) { /* key ranks 2r, 2r + 1 of the half */
      const __m512 kv = _mm512_load_ps(kr + 16 * r);
      __m512 x0 = kv, x1 = kv;
      if (use_q) {
        x0 = _mm512_add_ps(kv, join(tq[2 * r + 1], tq[2 * r + 2]));
        x1 = _mm512_add_ps(kv, join(tq[2 * r], tq[2 * r + 1]));
      }
      a0[r] = _mm512_fmadd_ps(q0, x0, a0[r]);
      a1[r] = _mm512_fmadd_ps(q1, x1, a1[r]);
      if (use_k) {
        a0[r] = _mm512_fmadd_ps(kv, join(tk[2 * r + 1], tk[2 * r + 2]), a0[r]);
        a1[r] = _mm512_fmadd_ps(kv, join(tk[2 * r], tk[2 * r + 1]), a1[r]);
      }
    }
  }
  for (int r = 0; r < 2; r++) {
    _mm512_store_ps(s0 + 32 * half + 16 * r, a0[r]);
    _mm512_store_ps(s1 + 32 * half + 16 * r, a1[r]);
  }
}

/* o0[dh], o1[dh] = sum_k a[k] (v_k + ev[p(q, k)]) for two queries
 * (weights a0, a1; displacement bases base0, base1), each value row loaded
 * once for both. v rows at stride ld, ev rows of dh floats (NULL: no value
 * term). 32 depths per step, the last step masked. Even and odd keys sum
 * into separate accumulators (8 in all), joined at the end: with one set of
 * 4, every key waited on the previous key's FMAs (4 cycles of latency for
 * 4 FMAs that 2 FMA pipes retire in 2). */
static void weighted_values2(int dh, const float *a0, const float *a1, const float *v, size_t ld,
                             const float *ev, int base0, int base1, float *o0, float *o1) {
  for (int i0 = 0; i0 < dh; i0 += 32) {
    const __mmask16 m[2] = {cf_tail16(dh - i0), cf_tail16(dh - i0 - 16)};
    __m512 c0[2][2], c1[2][2]; /* [key parity][depth half] */
    for (int u = 0; u < 2; u++)
      for (int j = 0; j < 2; j++) c0[u][j] = c1[u][j] = _mm512_setzero_ps();
    /* Table rows walk down by one row per key file and by 15 per key rank
     * (p = base - 15 rank - file): pointer steps instead of index math. */
    const float *e0 = ev ? ev + (size_t)base0 * dh + i0 : NULL;
    const float *e1 = ev ? ev + (size_t)base1 * dh + i0 : NULL;
    for (int k = 0; k < 64; k += 2) {
      for (int u = 0; u < 2; u++) { /* keys k (even) and k + 1 (odd): one rank */
        const __m512 w0 = _mm512_set1_ps(a0[k + u]), w1 = _mm512_set1_ps(a1[k + u]);
        const float *vk = v + (size_t)(k + u) * ld + i0;
        for (int j = 0; j < 2; j++) {
          const __m512 x = _mm512_maskz_loadu_ps(m[j], vk + 16 * j);
          __m512 x0 = x, x1 = x;
          if (ev) {
            x0 = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m[j], e0 - (ptrdiff_t)u * dh + 16 * j));
            x1 = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m[j], e1 - (ptrdiff_t)u * dh + 16 * j));
          }
          c0[u][j] = _mm512_fmadd_ps(w0, x0, c0[u][j]);
          c1[u][j] = _mm512_fmadd_ps(w1, x1, c1[u][j]);
        }
      }
      if (ev) { /* k + 1 is odd: the next pair starts a new rank at (k & 7) == 6 */
        const ptrdiff_t step = (k & 7) == 6 ? -(ptrdiff_t)9 * dh : -(ptrdiff_t)2 * dh;
        e0 += step;
        e1 += step;
      }
    }
    for (int j = 0; j < 2; j++) {
      _mm512_mask_storeu_ps(o0 + i0 + 16 * j, m[j], _mm512_add_ps(c0[0][j], c0[1][j]));
      _mm512_mask_storeu_ps(o1 + i0 + 16 * j, m[j], _mm512_add_ps(c1[0][j], c1[1][j]));
    }
  }
}

/* weighted_values2 for dh <= 16: a key's value row is one (masked) vector,
 * so the 32-depth step above would spend half its loads and FMAs on a
 * masked-off second vector. Four keys per step (one rank holds two
 * steps), each key with its own accumulator pair, so consecutive FMAs
 * into one accumulator are four keys apart. */
static void weighted_values2_narrow(int dh, const float *a0, const float *a1, const float *v,
                                    size_t ld, const float *ev, int base0, int base1, float *o0,
                                    float *o1) {
  const __mmask16 m = cf_tail16(dh);
  __m512 c0[4], c1[4];
  for (int u = 0; u < 4; u++) c0[u] = c1[u] = _mm512_setzero_ps();
  const float *e0 = ev ? ev + (size_t)base0 * dh : NULL;
  const float *e1 = ev ? ev + (size_t)base1 * dh : NULL;
  for (int k = 0; k < 64; k += 4) {
    for (int u = 0; u < 4; u++) { /* keys k..k + 3: files (k & 7) + u of one rank */
      const __m512 x = _mm512_maskz_loadu_ps(m, v + (size_t)(k + u) * ld);
      __m512 x0 = x, x1 = x;
      if (ev) {
        x0 = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, e0 - (ptrdiff_t)u * dh));
        x1 = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, e1 - (ptrdiff_t)u * dh));
      }
      c0[u] = _mm512_fmadd_ps(_mm512_set1_ps(a0[k + u]), x0, c0[u]);
      c1[u] = _mm512_fmadd_ps(_mm512_set1_ps(a1[k + u]), x1, c1[u]);
    }
    if (ev) { /* p = base - 15 rank - file: the next rank starts 11 rows on from file 4 */
      const ptrdiff_t step = (k & 7) == 4 ? -(ptrdiff_t)11 * dh : -(ptrdiff_t)4 * dh;
      e0 += step;
      e1 += step;
    }
  }
  _mm512_mask_storeu_ps(o0, m, _mm512_add_ps(_mm512_add_ps(c0[0], c0[1]), _mm512_add_ps(c0[2], c0[3])));
  _mm512_mask_storeu_ps(o1, m, _mm512_add_ps(_mm512_add_ps(c1[0], c1[1]), _mm512_add_ps(c1[2], c1[3])));
}

/* One (position, head). next_h and cold steer prefetching exactly as in
 * the avx2 set (cf_avx2_attention.c): the next head's tables are fetched
 * during this one's score pass; a thread's first task requests its own. */
void cf_avx512_attend(const cf_attention_args *a, const cf_cpu_head_tables *t, int b, int h,
                      int next_h, bool cold, cf_cpu_task next) {
  const int H = a->heads, dh = a->depth, dm = H * dh, ld = 3 * dm;
  const float *tok = a->qkv + (size_t)b * 64 * ld; /* [64][3*dm] */
  float *out = a->out + (size_t)b * 64 * dm;       /* [64][dm] */
  const float *eq = cf_cpu_head_table(t->q_rev, h, dh);
  const float *ek = cf_cpu_head_table(t->k_rev, h, dh);
  const float *ev = cf_cpu_head_table(t->v_rows, h, dh);
  const float *bias = a->bias ? a->bias + ((size_t)b * H + h) * 64 * 64 : NULL;
  const cf_cpu_row_prefetch pf = cf_cpu_row_prefetch_for(a->qkv, a->out, H, dh, next.b, next.h);
  if (cold) {
    cf_cpu_prefetch_part(t->q_rev, h, dh, 0, 1);
    cf_cpu_prefetch_part(t->k_rev, h, dh, 0, 1);
  }

  _Alignas(64) float kt[CF_CPU_MAX_FAST_DEPTH * 64]; /* this head's keys, [dh][64] */
  const float *K0 = tok + dm + h * dh;
  for (int i = 0; i < dh; i++)
    for (int k = 0; k < 64; k++) kt[i * 64 + k] = K0[(size_t)k * ld + i];
  const __m512 scale = _mm512_set1_ps(a->scale);
  _Alignas(64) float S[64 * 64];
  int step = 0;
  for (int half = 0; half < 2; half++) {
    for (int q = 0; q < 64; q = (q & 7) == 7 ? q + 9 : q + 1, step++) { /* ranks 0, 2, 4, 6 */
      const float *Q0 = tok + (size_t)q * ld + h * dh, *Q1 = Q0 + (size_t)8 * ld;
      if (next_h >= 0) {
        cf_cpu_prefetch_part(t->q_rev, next_h, dh, step, 64);
        cf_cpu_prefetch_part(t->k_rev, next_h, dh, step, 64);
        cf_cpu_prefetch_part(t->v_rows, next_h, dh, step, 64);
      }
      if (cold) cf_cpu_prefetch_part(t->v_rows, h, dh, step, 64);
      if (pf.qkv) cf_cpu_prefetch_token(&pf, step);
      const int c = CF_CPU_RPE_TABLE - 1 - cf_cpu_query_base(q); /* q + 8 is at c - 15, c >= 15 */
      const float *eqc = eq ? eq + c : NULL, *ekc = ek ? ek + c : NULL;
      float *s0 = S + q * 64, *s1 = S + (q + 8) * 64;
      if (eq && ek) scores2(dh, Q0, Q1, kt, eqc, ekc, 1, 1, half, s0, s1);
      else if (eq) scores2(dh, Q0, Q1, kt, eqc, NULL, 1, 0, half, s0, s1);
      else if (ek) scores2(dh, Q0, Q1, kt, NULL, ekc, 0, 1, half, s0, s1);
      else scores2(dh, Q0, Q1, kt, NULL, NULL, 0, 0, half, s0, s1);
    }
  }
  const float *V = tok + 2 * dm + h * dh;
  for (int q = 0; q < 64; q = (q & 7) == 7 ? q + 9 : q + 1) {
    float *s0 = S + q * 64, *s1 = S + (q + 8) * 64;
    finish_scores(s0, scale, bias ? bias + q * 64 : NULL);
    finish_scores(s1, scale, bias ? bias + (q + 8) * 64 : NULL);
    (dh <= 16 ? weighted_values2_narrow : weighted_values2)(
        dh, s0, s1, V, (size_t)ld, ev, cf_cpu_query_base(q), cf_cpu_query_base(q + 8),
        out + (size_t)q * dm + h * dh, out + (size_t)(q + 8) * dm + h * dh);
  }
}

/* Depth too large for the key buffer: a dot product per (query, key) pair,
 * 16 depths at a time, RPE terms from the row tables [H][225][dh]. */
void cf_avx512_attend_plain(const cf_attention_args *a, const float *eq_rows,
                            const float *ek_rows, const float *ev_rows, int b, int h) {
  const int H = a->heads, dh = a->depth, dm = H * dh, ld = 3 * dm;
  const float *tok = a->qkv + (size_t)b * 64 * ld;
  const size_t tab = (size_t)h * CF_CPU_RPE_TABLE * dh;
  const float *V = tok + 2 * dm + h * dh;
  const float *evh = ev_rows ? ev_rows + tab : NULL;
  for (int q = 0; q < 64; q += 2) { /* q, q + 1: weighted_values2 takes pairs */
    _Alignas(64) float s[2][64];
    for (int u = 0; u < 2; u++) {
      const float *Q = tok + (size_t)(q + u) * ld + h * dh;
      for (int k = 0; k < 64; k++) {
        const float *K = tok + (size_t)k * ld + dm + h * dh;
        const size_t p = tab + (size_t)(cf_cpu_query_base(q + u) - cf_cpu_key_off(k)) * dh;
        __m512 acc = _mm512_setzero_ps();
        for (int i = 0; i < dh; i += 16) {
          const __mmask16 m = cf_tail16(dh - i);
          const __m512 kv = _mm512_maskz_loadu_ps(m, K + i);
          __m512 x = kv;
          if (eq_rows) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, eq_rows + p + i));
          acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, Q + i), x, acc);
          if (ek_rows) acc = _mm512_fmadd_ps(kv, _mm512_maskz_loadu_ps(m, ek_rows + p + i), acc);
        }
        s[u][k] = _mm512_reduce_add_ps(acc);
      }
      finish_scores(s[u], _mm512_set1_ps(a->scale),
                    a->bias ? a->bias + (((size_t)b * H + h) * 64 + q + u) * 64 : NULL);
    }
    weighted_values2(dh, s[0], s[1], V, (size_t)ld, evh, cf_cpu_query_base(q),
                     cf_cpu_query_base(q + 1), a->out + ((size_t)b * 64 + q) * dm + h * dh,
                     a->out + ((size_t)b * 64 + q + 1) * dm + h * dh);
  }
}
