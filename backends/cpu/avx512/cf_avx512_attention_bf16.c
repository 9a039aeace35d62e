/* cf_avx512_attention_bf16.c: the bf16 attention core
 * (cf_cpu_attention_bf16_math) with AVX512_BF16: vdpbf16ps takes 16 lanes
 * of bf16 pairs and adds both products of each pair to a float32 lane, so
 * one instruction does two depths (scores) or two keys (values) of the
 * float32 core's FMA (cf_avx512_attention.c), whose loop structure it
 * keeps: queries in pairs on one file sharing each key and table load,
 * a table vector two runs of 8 words joined, keys in halves so the
 * tables stay in L1. Built with the avx512 flags plus -mavx512bf16; chosen
 * only by cf_cpu_attention_bf16_select on a CPU with AVX512_BF16. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/cpu/avx512/cf_avx512_math.h"
#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_kernels.h"

enum { TABLE = CF_CPU_RPE_TABLE };

static inline __m512bh bh(__m512i x) { return (__m512bh)x; }

/* A bf16 pair of a row (x[0], x[1]) in every lane. */
static inline __m512bh bcast(const uint16_t *x) { return bh(cf_bcast32(x)); }

/* Lanes 0..7 from lo, 8..15 from hi. */
static inline __m512i join(__m256i lo, __m256i hi) {
  return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

/* The scores of the queries q0 and q0 + 8 against one key half, as the
 * float32 core's scores2 with depth pairs for depths: tq[j], tk[j] are
 * the runs of key rank j - 1 of the half for q0; q0 + 8 takes the runs
 * one rank lower. Each term sums into its own accumulators, added at the
 * end: with one accumulator per query and rank the three dot products of
 * a depth pair waited on each other (vdpbf16ps's latency, several cycles,
 * three times per step). Inlined with constant use_q / use_k. */
static inline __attribute__((always_inline)) void scores2(int dp, const uint16_t *Q0,
                                                          const uint16_t *Q1, const uint32_t *kt,
                                                          const uint32_t *eq, const uint32_t *ek,
                                                          int use_q, int use_k, int half,
                                                          float *s0, float *s1) {
  __m512 a0[2], a1[2], b0[2], b1[2], c0[2], c1[2]; /* terms q.k, q.Eq, k.Ek */
  for (int r = 0; r < 2; r++)
    a0[r] = a1[r] = b0[r] = b1[r] = c0[r] = c1[r] = _mm512_setzero_ps();
  for (int j = 0; j < dp; j++) {
    const __m512bh q0 = bcast(Q0 + 2 * j), q1 = bcast(Q1 + 2 * j);
    const uint32_t *kr = kt + (size_t)j * 64 + 32 * half;
    const size_t row = (size_t)j * TABLE + 60 * half;
    __m256i tq[5], tk[5];
    for (int t = 0; t < 5; t++) { /* each run loaded once (cf_load256_kept) */
      if (use_q) tq[t] = cf_load256_kept(eq + row + 15 * t - 15);
      if (use_k) tk[t] = cf_load256_kept(ek + row + 15 * t - 15);
    }
    for (int r = 0; r < 2; r++) { /* key ranks 2r, 2r + 1 of the half */
      const __m512bh kv = bh(_mm512_load_si512(kr + 16 * r));
      a0[r] = _mm512_dpbf16_ps(a0[r], q0, kv);
      a1[r] = _mm512_dpbf16_ps(a1[r], q1, kv);
      if (use_q) {
        b0[r] = _mm512_dpbf16_ps(b0[r], q0, bh(join(tq[2 * r + 1], tq[2 * r + 2])));
        b1[r] = _mm512_dpbf16_ps(b1[r], q1, bh(join(tq[2 * r], tq[2 * r + 1])));
      }
      if (use_k) {
        c0[r] = _mm512_dpbf16_ps(c0[r], kv, bh(join(tk[2 * r + 1], tk[2 * r + 2])));
        c1[r] = _mm512_dpbf16_ps(c1[r], kv, bh(join(tk[2 * r], tk[2 * r + 1])));
      }
    }
  }
  for (int r = 0; r < 2; r++) {
    if (use_q) a0[r] = _mm512_add_ps(a0[r], b0[r]), a1[r] = _mm512_add_ps(a1[r], b1[r]);
    if (use_k) a0[r] = _mm512_add_ps(a0[r], c0[r]), a1[r] = _mm512_add_ps(a1[r], c1[r]);
    _mm512_store_ps(s0 + 32 * half + 16 * r, a0[r]);
    _mm512_store_ps(s1 + 32 * half + 16 * r, a1[r]);
  }
}

CF_CPU_DEFINE_SCORES_PAIR(scores2, uint16_t, uint32_t)

/* One run of up to 32 depths (nv vectors of 16) of weighted_values_pair,
 * nv and use_ev constant so that the accumulators stay in registers (with
 * a run-time count the compiler kept them on the stack). Even and odd key
 * pairs, values and table, sum into separate accumulators (16 in all),
 * so no dot product waits on the one before it. */
static inline __attribute__((always_inline)) void values_run(
    int dh, int i0, int nv, int use_ev, const uint16_t *a0, const uint16_t *a1, __m512 s0,
    __m512 s1, const uint32_t *vp, const uint32_t *ev, int base0, int base1, float *o0,
    float *o1) {
  const __mmask16 m[2] = {cf_tail16(dh - i0), cf_tail16(dh - i0 - 16)};
  __m512 c0[2][2], c1[2][2], e0[2][2], e1[2][2]; /* [pair parity][depth vector] */
  for (int u = 0; u < 2; u++)
    for (int j = 0; j < 2; j++)
      c0[u][j] = c1[u][j] = e0[u][j] = e1[u][j] = _mm512_setzero_ps();
  /* not unrolled: the unrolled loop's addresses took the registers */
#pragma GCC unroll 1
  for (int mm = 0; mm < 32; mm += 2) {
    for (int u = 0; u < 2; u++) {
      const int kp = mm + u, off = cf_cpu_key_off(2 * kp);
      const __m512bh w0 = bcast(a0 + 2 * kp), w1 = bcast(a1 + 2 * kp);
      const uint32_t *vk = vp + (size_t)kp * dh + i0;
      const uint32_t *t0 = use_ev ? ev + (size_t)(base0 - off) * dh + i0 : NULL;
      const uint32_t *t1 = use_ev ? ev + (size_t)(base1 - off) * dh + i0 : NULL;
      for (int j = 0; j < nv; j++) {
        const __m512bh x = bh(_mm512_maskz_loadu_epi32(m[j], vk + 16 * j));
        c0[u][j] = _mm512_dpbf16_ps(c0[u][j], w0, x);
        c1[u][j] = _mm512_dpbf16_ps(c1[u][j], w1, x);
        if (use_ev) {
          e0[u][j] = _mm512_dpbf16_ps(e0[u][j], w0,
                                      bh(_mm512_maskz_loadu_epi32(m[j], t0 + 16 * j)));
          e1[u][j] = _mm512_dpbf16_ps(e1[u][j], w1,
                                      bh(_mm512_maskz_loadu_epi32(m[j], t1 + 16 * j)));
        }
      }
    }
  }
  for (int j = 0; j < nv; j++) {
    __m512 r0 = _mm512_add_ps(c0[0][j], c0[1][j]), r1 = _mm512_add_ps(c1[0][j], c1[1][j]);
    if (use_ev) {
      r0 = _mm512_add_ps(r0, _mm512_add_ps(e0[0][j], e0[1][j]));
      r1 = _mm512_add_ps(r1, _mm512_add_ps(e1[0][j], e1[1][j]));
    }
    _mm512_mask_storeu_ps(o0 + i0 + 16 * j, m[j], _mm512_mul_ps(r0, s0));
    _mm512_mask_storeu_ps(o1 + i0 + 16 * j, m[j], _mm512_mul_ps(r1, s1));
  }
}

/* o0, o1 = sum over key pairs of a pair's weights times its value pair
 * (and table pair), 32 depths per run, the last masked (its second
 * vector skipped when empty). */
static void weighted_values_pair(int dh, const uint16_t *a0, const uint16_t *a1, float sa0,
                                 float sa1, const uint32_t *vp, const uint32_t *ev, int base0,
                                 int base1, float *o0, float *o1) {
  const __m512 s0 = _mm512_set1_ps(sa0), s1 = _mm512_set1_ps(sa1);
  CF_CPU_VALUES_RUNS(values_run, dh, ev != NULL, a0, a1, s0, s1, vp, ev, base0, base1, o0, o1);
}

/* Each row rounded in registers (cf_avx512_bf16_bits); a key row's 16-bit
 * values narrowed in one step are already its depth pairs, a value pair's
 * two rows merged by a shift and an or. */
static void pack_qkv(int dh, const float *q, const float *k, const float *v, size_t ld,
                     uint16_t *qb, uint32_t *kt, uint32_t *vp) {
  const int dp = (dh + 1) / 2, nv = (dh + 15) / 16, width = 2 * dp;
  for (int r = 0; r < 64; r++) {
    const float *qr = q + (size_t)r * ld, *kr = k + (size_t)r * ld;
    for (int i = 0; i < nv; i++) {
      const __mmask16 m = cf_tail16(dh - 16 * i);
      const int n = width - 16 * i < 16 ? width - 16 * i : 16; /* pad included */
      _mm256_mask_storeu_epi16(qb + (size_t)r * width + 16 * i, (__mmask16)((1u << n) - 1u),
                               _mm512_cvtepi32_epi16(cf_avx512_bf16_bits(
                                   _mm512_maskz_loadu_ps(m, qr + 16 * i))));
      uint32_t w[8];
      _mm256_storeu_si256((__m256i *)(void *)w, _mm512_cvtepi32_epi16(cf_avx512_bf16_bits(
                                                     _mm512_maskz_loadu_ps(m, kr + 16 * i))));
      for (int u = 0; u < n / 2; u++) kt[(size_t)(8 * i + u) * 64 + r] = w[u];
    }
  }
  for (int mm = 0; mm < 32; mm++) {
    const float *v0 = v + (size_t)(2 * mm) * ld, *v1 = v0 + ld;
    for (int i = 0; i < dh; i += 16) {
      const __mmask16 m = cf_tail16(dh - i);
      const __m512i lo = cf_avx512_bf16_bits(_mm512_maskz_loadu_ps(m, v0 + i));
      const __m512i hi = cf_avx512_bf16_bits(_mm512_maskz_loadu_ps(m, v1 + i));
      _mm512_mask_storeu_epi32(vp + (size_t)mm * dh + i, m,
                               _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
    }
  }
}

/* In registers: one load of the row, the exponentials rounded to bf16 as
 * the kernel set's to_bf16_row (cf_avx512_bf16_bits) and stored. */
static float softmax_to_bf16(float *s, float scale, const float *bias, uint16_t *w) {
  __m512 e[4];
  const float sum = cf_softmax_exp512(s, scale, bias, e);
  for (int j = 0; j < 4; j++)
    _mm256_storeu_si256((__m256i *)(void *)(w + 16 * j),
                        _mm512_cvtepi32_epi16(cf_avx512_bf16_bits(e[j])));
  return 1.0f / sum;
}

CF_CPU_ATTENTION_BF16_MATH(cf_cpu_attention_bf16_avx512, "avx512_bf16");
