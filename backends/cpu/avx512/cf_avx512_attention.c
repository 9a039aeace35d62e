/* cf_avx512_attention.c: the attention core's arithmetic (NETWORK.md
 * section 5 steps 2-4) with AVX-512: the avx2 set's gather form
 * (cf_cpu_attention_layout.h) on 16-wide vectors. The loops of a task are
 * the driver's (cf_cpu_attention_task.c).
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
static void finish(float *s, float scale, const float *bias) {
  __m512 e[4];
  const __m512 inv = _mm512_set1_ps(1.0f / cf_softmax_exp512(s, scale, bias, e));
  for (int j = 0; j < 4; j++) _mm512_store_ps(s + 16 * j, _mm512_mul_ps(e[j], inv));
}

/* Scores of the queries q0 and q0 + 8 (same file, neighbouring ranks)
 * against one half of the keys (ranks 4 half .. 4 half + 3):
 * s0[32 half ..], s1[32 half ..] = q.k + q.Eq[p] + k.Ek[p] over depth dh.
 * kt: keys transposed [dh][64], 64-byte aligned; eq, ek: reversed tables
 * [dh][225] already offset by c(q0), or NULL. c(q0 + 8) = c(q0) - 15:
 * q0 + 8's run for rank r is q0's for rank r - 1. Inlined with constant
 * use_q, use_k so each combination is its own branch-free loop. */
static inline __attribute__((always_inline)) void scores2(
    int dh, const float *Q0, const float *Q1, const float *kt, const float *eq, const float *ek,
    int use_q, int use_k, int half, float *s0, float *s1) {
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

/* scores2 on a file's joined blocks (jq, jk: [dh][14][16], or unused):
 * the same operations in the same order, one aligned load where scores2
 * joins two runs. x0: the block index of q0's first key rank pair
 * (4 half - rank q0 + 7); q0 + 8's is one less, the second pair two
 * more. */
static inline __attribute__((always_inline)) void scores2_joined(
    int dh, const float *Q0, const float *Q1, const float *kt, const float *jq, const float *jk,
    int use_q, int use_k, int half, int x0, float *s0, float *s1) {
  __m512 a0[2], a1[2];
  for (int r = 0; r < 2; r++) a0[r] = a1[r] = _mm512_setzero_ps();
  for (int i = 0; i < dh; i++) {
    const __m512 q0 = _mm512_set1_ps(Q0[i]), q1 = _mm512_set1_ps(Q1[i]);
    const float *kr = kt + (size_t)i * 64 + 32 * half;
    for (int r = 0; r < 2; r++) {
      const __m512 kv = _mm512_load_ps(kr + 16 * r);
      const size_t j0 = ((size_t)i * CF_CPU_JOINED + (size_t)(x0 + 2 * r)) * 16, j1 = j0 - 16;
      __m512 x0v = kv, x1v = kv;
      if (use_q) {
        x0v = _mm512_add_ps(kv, _mm512_load_ps(jq + j0));
        x1v = _mm512_add_ps(kv, _mm512_load_ps(jq + j1));
      }
      a0[r] = _mm512_fmadd_ps(q0, x0v, a0[r]);
      a1[r] = _mm512_fmadd_ps(q1, x1v, a1[r]);
      if (use_k) {
        a0[r] = _mm512_fmadd_ps(kv, _mm512_load_ps(jk + j0), a0[r]);
        a1[r] = _mm512_fmadd_ps(kv, _mm512_load_ps(jk + j1), a1[r]);
      }
    }
  }
  for (int r = 0; r < 2; r++) {
    _mm512_store_ps(s0 + 32 * half + 16 * r, a0[r]);
    _mm512_store_ps(s1 + 32 * half + 16 * r, a1[r]);
  }
}

/* scores2_joined over the file's four query pairs and both halves, with the
 * terms present as constants. */
static inline __attribute__((always_inline)) void file_joined(
    int dh, int f, const float *Q, size_t ld, const float *kt, const float *jq, const float *jk,
    int use_q, int use_k, float *S) {
  for (int half = 0; half < 2; half++)
    for (int rank = 0; rank < 8; rank += 2) {
      const int q = 8 * rank + f;
      const float *Q0 = Q + (size_t)q * ld;
      scores2_joined(dh, Q0, Q0 + 8 * ld, kt, jq, jk, use_q, use_k, half, 4 * half - rank + 7,
                     S + 64 * q, S + 64 * (q + 8));
    }
}

/* cf_cpu_attention_math.scores_file: no joins in the loop, the file's
 * joined blocks (28 KB for both terms at depth 16) staying in L1 for its
 * eight queries. */
static void scores_file(int dh, int f, const float *Q, size_t ld, const float *kt,
                        const float *jq, const float *jk, float *S) {
  if (jq && jk) file_joined(dh, f, Q, ld, kt, jq, jk, 1, 1, S);
  else if (jq) file_joined(dh, f, Q, ld, kt, jq, NULL, 1, 0, S);
  else if (jk) file_joined(dh, f, Q, ld, kt, NULL, jk, 0, 1, S);
  else file_joined(dh, f, Q, ld, kt, NULL, NULL, 0, 0, S);
}

/* o0[dh], o1[dh] = sum_k a[k] (v_k + ev[p(q, k)]) for two queries
 * (weights a0, a1; displacement bases base0, base1), each value row loaded
 * once for both. v rows at stride ld, ev rows of dh floats (NULL: no value
 * term). 32 depths per step, the last step masked. Even and odd keys sum
 * into separate accumulators (8 in all), joined at the end: with one set of
 * 4, every key waited on the previous key's FMAs (4 cycles of latency for
 * 4 FMAs that 2 FMA pipes retire in 2). */
static inline __attribute__((always_inline)) void weighted_values2(
    int dh, const float *a0, const float *a1, const float *v, size_t ld, const float *ev,
    int base0, int base1, float *o0, float *o1) {
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
static inline __attribute__((always_inline)) void weighted_values2_narrow(
    int dh, const float *a0, const float *a1, const float *v, size_t ld, const float *ev,
    int base0, int base1, float *o0, float *o1) {
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
  const __m512 r0 = _mm512_add_ps(_mm512_add_ps(c0[0], c0[1]), _mm512_add_ps(c0[2], c0[3]));
  const __m512 r1 = _mm512_add_ps(_mm512_add_ps(c1[0], c1[1]), _mm512_add_ps(c1[2], c1[3]));
  _mm512_mask_storeu_ps(o0, m, r0);
  _mm512_mask_storeu_ps(o1, m, r1);
}

CF_CPU_DEFINE_SCORES_PAIR(scores2, float, float)

static void weighted_values_pair(int dh, const float *a0, const float *a1, const float *v,
                                 size_t ld, const float *ev, int base0, int base1, float *o0,
                                 float *o1) {
  if (dh <= 16) weighted_values2_narrow(dh, a0, a1, v, ld, ev, base0, base1, o0, o1);
  else weighted_values2(dh, a0, a1, v, ld, ev, base0, base1, o0, o1);
}

/* The plain path's dot product, 16 depths at a time, the tail masked. */
static float dot_rpe(int dh, const float *Q, const float *K, const float *eq, const float *ek) {
  __m512 acc = _mm512_setzero_ps();
  for (int i = 0; i < dh; i += 16) {
    const __mmask16 m = cf_tail16(dh - i);
    const __m512 kv = _mm512_maskz_loadu_ps(m, K + i);
    __m512 x = kv;
    if (eq) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, eq + i));
    acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, Q + i), x, acc);
    if (ek) acc = _mm512_fmadd_ps(kv, _mm512_maskz_loadu_ps(m, ek + i), acc);
  }
  return _mm512_reduce_add_ps(acc);
}

/* The keys transposed, 16 keys a gather: each depth of a key block is one
 * vgatherdps at the rows' stride. The scalar loop it replaces (a load and
 * a store per float) took over half of the float32 task's own time at the
 * built-in net's depth 16. */
static void transpose_keys(int dh, const float *K, size_t ld, float *kt) {
  if (ld > (size_t)INT32_MAX / 16) { /* gather indices are int32 */
    for (int i = 0; i < dh; i++)
      for (int k = 0; k < 64; k++) kt[i * 64 + k] = K[(size_t)k * ld + i];
    return;
  }
  const __m512i rows = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32((int)ld));
  for (int b = 0; b < 4; b++) {
    const float *Kb = K + (size_t)16 * b * ld;
    for (int i = 0; i < dh; i++)
      _mm512_store_ps(kt + (size_t)i * 64 + 16 * b, _mm512_i32gather_ps(rows, Kb + i, 4));
  }
}

const cf_cpu_attention_math cf_avx512_attention_math = {
    .scores_pair = scores_pair,
    .finish_scores = finish,
    .weighted_values_pair = weighted_values_pair,
    .dot_rpe = dot_rpe,
    .transpose_keys = transpose_keys,
    .scores_file = scores_file,
};
