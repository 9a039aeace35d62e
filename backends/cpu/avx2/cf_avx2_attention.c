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

/* s[64] = softmax(s * scale + bias) (bias: a row of 64, or NULL), the row
 * held in eight registers: one load and one store of it. The sums run in
 * the order of a pass over memory, so the result is the same bits. s is
 * 64-byte aligned. */
static void finish(float *s, float scale, const float *bias) {
  const __m256 sc = _mm256_set1_ps(scale);
  __m256 v[8];
  for (int j = 0; j < 8; j++) {
    v[j] = _mm256_mul_ps(_mm256_load_ps(s + 8 * j), sc);
    if (bias) v[j] = _mm256_add_ps(v[j], _mm256_loadu_ps(bias + 8 * j));
  }
  __m256 m = v[0];
  for (int j = 1; j < 8; j++) m = _mm256_max_ps(m, v[j]);
  const __m256 mx = _mm256_set1_ps(cf_hmax256(m));
  __m256 sum = _mm256_setzero_ps();
  for (int j = 0; j < 8; j++) {
    v[j] = cf_exp256(_mm256_sub_ps(v[j], mx));
    sum = _mm256_add_ps(sum, v[j]);
  }
  const __m256 inv = _mm256_set1_ps(1.0f / cf_hsum256(sum));
  for (int j = 0; j < 8; j++) _mm256_store_ps(s + 8 * j, _mm256_mul_ps(v[j], inv));
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
static inline __attribute__((always_inline)) void weighted_values2_narrow(
    int dh, const float *a0, const float *a1, const float *v, size_t ld, const float *ev,
    int base0, int base1, float *o0, float *o1) {
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
  /* The built-in net's depth with constants: the masks, the vector count
   * and the table's presence fold away (the same operations). */
  if (dh == 16) {
    if (ev) weighted_values2_narrow(16, a0, a1, v, ld, ev, base0, base1, o0, o1);
    else weighted_values2_narrow(16, a0, a1, v, ld, NULL, base0, base1, o0, o1);
    return;
  }
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

/* scores_pair with the built-in net's depth 16 a constant (the loop
 * unrolled; the same operations), else the generic one. */
static void scores_pair_16(int dh, const float *Q0, const float *Q1, const float *kt,
                           const float *eq, const float *ek, int half, float *s0, float *s1) {
  if (dh != 16) scores_pair(dh, Q0, Q1, kt, eq, ek, half, s0, s1);
  else if (eq && ek) scores2(16, Q0, Q1, kt, eq, ek, 1, 1, half, s0, s1);
  else if (eq) scores2(16, Q0, Q1, kt, eq, NULL, 1, 0, half, s0, s1);
  else if (ek) scores2(16, Q0, Q1, kt, NULL, ek, 0, 1, half, s0, s1);
  else scores2(16, Q0, Q1, kt, NULL, NULL, 0, 0, half, s0, s1);
}

/* Rows r[0..7] (8 floats each) transposed in registers: r[j] lane i
 * becomes r[i] lane j. Three rounds of shuffles, 24 instructions. */
static inline void transpose8(__m256 r[8]) {
  __m256 t[8], u[8];
  for (int j = 0; j < 8; j += 2) {
    t[j] = _mm256_unpacklo_ps(r[j], r[j + 1]);
    t[j + 1] = _mm256_unpackhi_ps(r[j], r[j + 1]);
  }
  for (int j = 0; j < 8; j += 4)
    for (int h = 0; h < 2; h++) {
      u[j + h] = _mm256_shuffle_ps(t[j + h], t[j + h + 2], _MM_SHUFFLE(1, 0, 1, 0));
      u[j + h + 2] = _mm256_shuffle_ps(t[j + h], t[j + h + 2], _MM_SHUFFLE(3, 2, 3, 2));
    }
  /* u[c] (c < 4) holds rows 0-3 of columns col[c] (low half) and
   * col[c] + 4 (high half); u[c + 4] the same of rows 4-7. */
  static const int col[4] = {0, 2, 1, 3};
  for (int c = 0; c < 4; c++) {
    r[col[c]] = _mm256_permute2f128_ps(u[c], u[c + 4], 0x20);
    r[col[c] + 4] = _mm256_permute2f128_ps(u[c], u[c + 4], 0x31);
  }
}

/* cf_cpu_attention_math.transpose_keys: blocks of 8 keys by 8 depths
 * transposed in registers; the last block of a depth that is not a
 * multiple of 8 loads only its depths (masked) and stores only their
 * rows, instead of the driver's scalar loop (a load and a store per
 * float). */
static void transpose_keys(int dh, const float *K, size_t ld, float *kt) {
  for (int i0 = 0; i0 < dh; i0 += 8) {
    const int n = dh - i0 < 8 ? dh - i0 : 8;
    const __m256i lanes = first_lanes(n);
    for (int k0 = 0; k0 < 64; k0 += 8) {
      __m256 r[8];
      for (int j = 0; j < 8; j++) r[j] = _mm256_maskload_ps(K + (size_t)(k0 + j) * ld + i0, lanes);
      transpose8(r);
      for (int i = 0; i < n; i++) _mm256_store_ps(kt + (size_t)(i0 + i) * 64 + k0, r[i]);
    }
  }
}

const cf_cpu_attention_math cf_avx2_attention_math = {
    .scores_pair = scores_pair_16,
    .finish_scores = finish,
    .weighted_values_pair = weighted_values2,
    .dot_rpe = cf_portable_dot_rpe, /* a scalar sum: the same with or without AVX2 */
    .transpose_keys = transpose_keys,
};
