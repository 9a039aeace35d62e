/* cf_avx2_attention.c: the attention core's arithmetic (NETWORK.md
 * section 5 steps 2-4) with AVX2 + FMA: all three relative position terms
 * in gather form, no 64x64xdh tensor is ever built. The loops of a task
 * are the driver's (cf_cpu_attention_task.c); the indexing is in
 * cf_cpu_attention_layout.h.
 *
 * One pass over depth makes a query pair's scores against half the keys
 * in 8 accumulators (q.k, q.Eq and k.Ek as 8-wide FMAs over the reversed
 * tables); the value side adds A[q][k] Ev[p] in the same pass as
 * A[q][k] v_k. The plain path's dot product (depth beyond
 * CF_CPU_MAX_FAST_DEPTH) is the portable set's scalar one. */
#include <stddef.h>
#include <stdint.h>

#include "backends/cpu/avx2/cf_avx2.h"
#include "backends/cpu/avx2/cf_avx2_math.h"
#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/portable/cf_portable.h"

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

CF_CPU_DEFINE_SCORES_PAIR(scores2, float, float)

static void finish(float *s, float scale, const float *bias) {
  finish_scores(s, _mm256_set1_ps(scale), bias);
}

const cf_cpu_attention_math cf_avx2_attention_math = {
    .scores_pair = scores_pair,
    .finish_scores = finish,
    .weighted_values_pair = weighted_values2,
    .dot_rpe = cf_portable_dot_rpe, /* a scalar sum: the same with or without AVX2 */
};
