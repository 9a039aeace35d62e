/* cf_avx2_attention.c: the attention core (NETWORK.md section 5 steps 2-4)
 * for one (position, head), AVX2 + FMA: all three relative position terms
 * in gather form, no 64x64xdh tensor is ever built. The driver
 * (cf_cpu_attention.c) builds the tables and spreads the tasks over
 * threads; the indexing is in cf_cpu_attention_layout.h.
 *
 * One pass over depth makes all 64 scores of a query in 8 accumulators
 * (q.k, q.Eq and k.Ek as 8-wide FMAs over the reversed tables); the value
 * side adds A[q][k] Ev[p] in the same pass as A[q][k] v_k. Depth beyond
 * CF_CPU_MAX_FAST_DEPTH takes a plain dot-product path. */
#include <stddef.h>
#include <stdint.h>

#include "backends/cpu/avx2/cf_avx2.h"
#include "backends/cpu/avx2/cf_avx2_math.h"
#include "backends/cpu/cf_cpu_attention_layout.h"

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
  for (int k = 0; k < 64; k += 8)
    _mm256_storeu_ps(s + k, _mm256_mul_ps(_mm256_loadu_ps(s + k), inv));
}

/* Scores of two queries on the same file of neighbouring ranks, q0 and
 * q0 + 8, against one half of the keys (ranks 4 half .. 4 half + 3):
 * s0[32 half ..], s1[32 half ..] = q.k + q.Eq[p] + k.Ek[p] over depth dh.
 * kt: keys transposed [dh][64]; eq, ek: reversed tables [dh][225] already
 * offset by c(q0), or NULL. c(q0 + 8) = c(q0) - 15, so query q0 + 8's table
 * vector for key rank r is query q0's for rank r - 1: the pair needs 5 table
 * loads per 4 ranks instead of 8, and both share each key load. Keys go in
 * two halves of 32 so the 8 accumulators stay in registers. Inlined with
 * constant use_q / use_k so each combination compiles to its own branch-free
 * loop. */
static inline __attribute__((always_inline)) void scores2(int dh, const float *Q0, const float *Q1,
                                                          const float *kt, const float *eq,
                                                          const float *ek, int use_q, int use_k,
                                                          int half, float *s0, float *s1) {
  __m256 a0[4], a1[4];
  for (int r = 0; r < 4; r++) a0[r] = a1[r] = _mm256_setzero_ps();
  for (int i = 0; i < dh; i++) {
    const __m256 q0 = _mm256_broadcast_ss(Q0 + i), q1 = _mm256_broadcast_ss(Q1 + i);
    const float *kr = kt + (size_t)i * 64 + 32 * half;
    const size_t row = (size_t)i * CF_CPU_RPE_TABLE + 60 * half; /* 15 * 4 per half */
    /* Rolling table registers: rank r's vector for q0 is rank r + 1's for
     * q1, so each of the 5 distinct vectors is loaded once. */
    __m256 eq_prev = _mm256_setzero_ps(), ek_prev = _mm256_setzero_ps();
    if (use_q) eq_prev = _mm256_loadu_ps(eq + row - 15);
    if (use_k) ek_prev = _mm256_loadu_ps(ek + row - 15);
    for (int r = 0; r < 4; r++) {
      const __m256 kv = _mm256_load_ps(kr + 8 * r);
      __m256 x0 = kv, x1 = kv;
      if (use_q) {
        __m256 eq_cur = _mm256_loadu_ps(eq + row + 15 * r);
        /* Empty asm: keeps eq_cur in a register; otherwise the compiler
         * folds it back into the adds as two separate loads. */
        __asm__("" : "+x"(eq_cur));
        x0 = _mm256_add_ps(kv, eq_cur);
        x1 = _mm256_add_ps(kv, eq_prev);
        eq_prev = eq_cur;
      }
      a0[r] = _mm256_fmadd_ps(q0, x0, a0[r]);
      a1[r] = _mm256_fmadd_ps(q1, x1, a1[r]);
      if (use_k) {
        __m256 ek_cur = _mm256_loadu_ps(ek + row + 15 * r);
        __asm__("" : "+x"(ek_cur));
        a0[r] = _mm256_fmadd_ps(kv, ek_cur, a0[r]);
        a1[r] = _mm256_fmadd_ps(kv, ek_prev, a1[r]);
        ek_prev = ek_cur;
      }
    }
  }
  for (int r = 0; r < 4; r++) {
    _mm256_storeu_ps(s0 + 32 * half + 8 * r, a0[r]);
    _mm256_storeu_ps(s1 + 32 * half + 8 * r, a1[r]);
  }
}

/* Scale, add the bias row (or NULL), softmax. */
static inline void finish_scores(float *s, __m256 scale, const float *bias) {
  for (int k = 0; k < 64; k += 8) {
    __m256 v = _mm256_mul_ps(_mm256_load_ps(s + k), scale);
    if (bias) v = _mm256_add_ps(v, _mm256_loadu_ps(bias + k));
    _mm256_store_ps(s + k, v);
  }
  softmax64(s);
}

/* o[dh] = sum_k a[k] (v_k + ev[p(q, k)]); v rows at stride ld, ev rows of
 * dh floats (NULL: no value term). */
static void weighted_values(int dh, const float *a, const float *v, size_t ld, const float *ev,
                            int base, float *o) {
  int i0 = 0;
  for (; i0 + 32 <= dh; i0 += 32) { /* 4 accumulators stay in registers over all keys */
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                     _mm256_setzero_ps()};
    for (int k = 0; k < 64; k++) {
      const __m256 ak = _mm256_broadcast_ss(a + k);
      const float *vk = v + (size_t)k * ld + i0;
      const float *ek = ev ? ev + (size_t)(base - cf_cpu_key_off(k)) * dh + i0 : NULL;
      for (int j = 0; j < 4; j++) {
        __m256 x = _mm256_loadu_ps(vk + 8 * j);
        if (ek) x = _mm256_add_ps(x, _mm256_loadu_ps(ek + 8 * j));
        acc[j] = _mm256_fmadd_ps(ak, x, acc[j]);
      }
    }
    for (int j = 0; j < 4; j++) _mm256_storeu_ps(o + i0 + 8 * j, acc[j]);
  }
  if (i0 == dh) return;
  for (int i = i0; i < dh; i++) o[i] = 0.0f;
  for (int k = 0; k < 64; k++) {
    const float *vk = v + (size_t)k * ld;
    const float *ek = ev ? ev + (size_t)(base - cf_cpu_key_off(k)) * dh : NULL;
    for (int i = i0; i < dh; i++) o[i] += a[k] * (vk[i] + (ek ? ek[i] : 0.0f));
  }
}

/* The mask of lanes below n (all eight when n >= 8). */
static inline __m256i first_lanes(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* Loads the first n (< 8) floats of p, zeros after. */
static inline __m256 load_first(const float *p, int n) {
  return _mm256_maskload_ps(p, first_lanes(n));
}

/* weighted_values2 for a depth that is not a multiple of 32 (the default
 * net's dh 16 among them): 16 depths a step as two 8-wide vectors, the
 * last step's tail by masked loads, so no depth falls to scalar code.
 * Even and odd keys sum into separate accumulators (8 in all): one set
 * would make each key wait on the previous key's FMAs. */
static void weighted_values2_narrow(int dh, const float *a0, const float *a1, const float *v,
                                    size_t ld, const float *ev, int base0, int base1, float *o0,
                                    float *o1) {
  for (int i0 = 0; i0 < dh; i0 += 16) {
    const int n[2] = {dh - i0, dh - i0 - 8}; /* floats left from each vector's start */
    const int nj = n[1] > 0 ? 2 : 1;
    __m256 c0[2][2], c1[2][2]; /* [key parity][vector] */
    for (int u = 0; u < 2; u++)
      for (int j = 0; j < 2; j++) c0[u][j] = c1[u][j] = _mm256_setzero_ps();
    const float *e0 = ev ? ev + (size_t)base0 * dh + i0 : NULL;
    const float *e1 = ev ? ev + (size_t)base1 * dh + i0 : NULL;
    for (int k = 0; k < 64; k += 2) {
      for (int u = 0; u < 2; u++) { /* keys k and k + 1: files (k & 7) + u of one rank */
        const __m256 w0 = _mm256_broadcast_ss(a0 + k + u), w1 = _mm256_broadcast_ss(a1 + k + u);
        const float *vk = v + (size_t)(k + u) * ld + i0;
        for (int j = 0; j < nj; j++) {
          const bool full = n[j] >= 8;
          const __m256 x = full ? _mm256_loadu_ps(vk + 8 * j) : load_first(vk + 8 * j, n[j]);
          __m256 x0 = x, x1 = x;
          if (ev) {
            const float *p0 = e0 - (ptrdiff_t)u * dh + 8 * j, *p1 = e1 - (ptrdiff_t)u * dh + 8 * j;
            x0 = _mm256_add_ps(x, full ? _mm256_loadu_ps(p0) : load_first(p0, n[j]));
            x1 = _mm256_add_ps(x, full ? _mm256_loadu_ps(p1) : load_first(p1, n[j]));
          }
          c0[u][j] = _mm256_fmadd_ps(w0, x0, c0[u][j]);
          c1[u][j] = _mm256_fmadd_ps(w1, x1, c1[u][j]);
        }
      }
      if (ev) { /* p = base - 15 rank - file: a new rank after file 7 */
        const ptrdiff_t step = (k & 7) == 6 ? -(ptrdiff_t)9 * dh : -(ptrdiff_t)2 * dh;
        e0 += step;
        e1 += step;
      }
    }
    for (int j = 0; j < nj; j++) {
      _mm256_maskstore_ps(o0 + i0 + 8 * j, first_lanes(n[j]), _mm256_add_ps(c0[0][j], c0[1][j]));
      _mm256_maskstore_ps(o1 + i0 + 8 * j, first_lanes(n[j]), _mm256_add_ps(c1[0][j], c1[1][j]));
    }
  }
}

/* weighted_values for two queries at once (weights a0, a1; displacement
 * bases base0, base1): each value row is loaded once for both. */
static void weighted_values2(int dh, const float *a0, const float *a1, const float *v, size_t ld,
                             const float *ev, int base0, int base1, float *o0, float *o1) {
  if (dh % 32) {
    weighted_values2_narrow(dh, a0, a1, v, ld, ev, base0, base1, o0, o1);
    return;
  }
  for (int i0 = 0; i0 < dh; i0 += 32) {
    __m256 c0[4], c1[4];
    for (int j = 0; j < 4; j++) c0[j] = c1[j] = _mm256_setzero_ps();
    /* Table rows walk down by one row per key file and by 15 per key rank
     * (p = base - 15 rank - file): pointer steps instead of index math. */
    const float *e0 = ev ? ev + (size_t)base0 * dh + i0 : NULL;
    const float *e1 = ev ? ev + (size_t)base1 * dh + i0 : NULL;
    for (int k = 0; k < 64; k++) {
      const __m256 w0 = _mm256_broadcast_ss(a0 + k), w1 = _mm256_broadcast_ss(a1 + k);
      const float *vk = v + (size_t)k * ld + i0;
      for (int j = 0; j < 4; j++) {
        const __m256 x = _mm256_loadu_ps(vk + 8 * j);
        __m256 x0 = x, x1 = x;
        if (ev) {
          x0 = _mm256_add_ps(x, _mm256_loadu_ps(e0 + 8 * j));
          x1 = _mm256_add_ps(x, _mm256_loadu_ps(e1 + 8 * j));
        }
        c0[j] = _mm256_fmadd_ps(w0, x0, c0[j]);
        c1[j] = _mm256_fmadd_ps(w1, x1, c1[j]);
      }
      if (ev) {
        const ptrdiff_t step = (k & 7) == 7 ? -(ptrdiff_t)8 * dh : -(ptrdiff_t)dh;
        e0 += step;
        e1 += step;
      }
    }
    for (int j = 0; j < 4; j++) {
      _mm256_storeu_ps(o0 + i0 + 8 * j, c0[j]);
      _mm256_storeu_ps(o1 + i0 + 8 * j, c1[j]);
    }
  }
}

/* One (position, head). next_h: the head of this thread's next task when it
 * differs (its tables are prefetched during this one's score pass, so a
 * batch-1 eval does not wait on each head's tables from L3), else -1.
 * cold: this thread's first task, whose tables nobody prefetched: its q/k
 * tables are requested before the key transpose and its value table during
 * the score pass. */
void cf_avx2_attend(const cf_attention_args *a, const cf_cpu_head_tables *t, int b, int h,
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

  _Alignas(32) float kt[CF_CPU_MAX_FAST_DEPTH * 64]; /* this head's keys, [dh][64] */
  /* Depth-outer: contiguous stores; the strided loads stay in L1 (64 key
   * rows of dh floats). The other order spent 10% of the kernel in
   * store-forwarding stalls. */
  const float *K0 = tok + dm + h * dh;
  for (int i = 0; i < dh; i++)
    for (int k = 0; k < 64; k++) kt[i * 64 + k] = K0[(size_t)k * ld + i];
  const __m256 scale = _mm256_set1_ps(a->scale);
  /* All scores first, one key half (4 ranks) at a time over every query:
   * a half touches about 68 of the 225 table columns per query, so the two
   * tables' working set (~17 KB at dh 32) stays in L1 while the queries
   * slide across it; both halves at once overflowed L1 into L2. */
  _Alignas(32) float S[64 * 64];
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
  for (int q = 0; q < 64; q = (q & 7) == 7 ? q + 9 : q + 1) {
    float *s0 = S + q * 64, *s1 = S + (q + 8) * 64;
    finish_scores(s0, scale, bias ? bias + q * 64 : NULL);
    finish_scores(s1, scale, bias ? bias + (q + 8) * 64 : NULL);
    const float *V = tok + 2 * dm + h * dh;
    weighted_values2(dh, s0, s1, V, (size_t)ld, ev, cf_cpu_query_base(q), cf_cpu_query_base(q + 8),
                     out + (size_t)q * dm + h * dh, out + (size_t)(q + 8) * dm + h * dh);
  }
}

/* Depth too large for the key buffer: dot products, one pair at a time. */
void cf_avx2_attend_plain(const cf_attention_args *a, const float *eq_rows, const float *ek_rows,
                          const float *ev_rows, int b, int h) {
  const int H = a->heads, dh = a->depth, dm = H * dh, ld = 3 * dm;
  const float *tok = a->qkv + (size_t)b * 64 * ld;
  const size_t tab = (size_t)h * CF_CPU_RPE_TABLE * dh;
  for (int q = 0; q < 64; q++) {
    const float *Q = tok + (size_t)q * ld + h * dh;
    float s[64];
    for (int k = 0; k < 64; k++) {
      const float *K = tok + (size_t)k * ld + dm + h * dh;
      const size_t p = tab + (size_t)(cf_cpu_query_base(q) - cf_cpu_key_off(k)) * dh;
      float acc = 0.0f;
      for (int i = 0; i < dh; i++)
        acc += Q[i] * (K[i] + (eq_rows ? eq_rows[p + i] : 0.0f)) +
               (ek_rows ? K[i] * ek_rows[p + i] : 0.0f);
      s[k] = acc * a->scale;
      if (a->bias) s[k] += a->bias[(((size_t)b * H + h) * 64 + q) * 64 + k];
    }
    softmax64(s);
    weighted_values(dh, s, tok + 2 * dm + h * dh, (size_t)ld, ev_rows ? ev_rows + tab : NULL,
                    cf_cpu_query_base(q), a->out + ((size_t)b * 64 + q) * dm + h * dh);
  }
}
