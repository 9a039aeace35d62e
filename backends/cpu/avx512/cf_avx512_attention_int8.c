/* cf_avx512_attention_int8.c: the int8 attention core
 * (cf_cpu_attention_int8_math) with AVX512_VNNI: vpdpbusd adds to each
 * int32 lane the four products of an u8 quad and an s8 quad, so one
 * instruction does four depths (scores) or four keys (values) of the
 * float32 core's FMA. Queries go in pairs sharing each key load, keys in
 * vectors of 16 lanes (two ranks); values 32 depths a step with even and
 * odd key quads in separate accumulators, as the float32 and bf16 cores.
 * The RPE terms have accumulators of their own (their scales differ) and
 * read the tables as the float32 core does (cf_avx512_attention.c): the
 * 16 lanes of two key ranks are two runs of 8 words 15 apart, joined.
 * Built with the avx512 flags plus -mavx512vnni; chosen only by
 * cf_cpu_attention_int8_select on a CPU with AVX512_VNNI. The integer
 * sums equal the portable core's exactly (int32 adds wrap, in any order);
 * the conversion is the same two float32 products. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/cpu/avx512/cf_avx512_math.h"
#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_kernels.h"

/* Lanes 0..7 from lo, 8..15 from hi. */
static inline __m512i join(__m256i lo, __m256i hi) {
  return _mm512_inserti32x8(_mm512_castsi256_si512(lo), hi, 1);
}
static inline __m256i run8(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
/* The 16 lanes of key ranks r, r + 1 from a per-displacement array whose
 * rank-r run starts at p. */
static inline __m512i lanes_i(const int32_t *p) { return join(run8(p), run8(p + 15)); }
static inline __m512 lanes_f(const float *p) {
  return _mm512_castsi512_ps(lanes_i((const int32_t *)(const void *)p));
}

/* One term's sum converted and scaled: (float)(acc - corr) * (a * b). */
static inline __m512 scaled(__m512i acc, __m512i corr, __m512 a, __m512 b) {
  return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(acc, corr)), _mm512_mul_ps(a, b));
}

/* The sums of a query pair's scores (q.k, q term, k term; two key-rank
 * pairs each) converted, scaled and stored, the pair's tables offset by
 * c(q0) in t: (float)(sum - correction) * (scale * scale), added in the
 * order q.k, q term, k term. */
static inline __attribute__((always_inline)) void store2(
    const __m512i a0[2], const __m512i a1[2], const __m512i g0[2], const __m512i g1[2],
    const __m512i h0[2], const __m512i h1[2], float sq0, float sq1, const int32_t *kc,
    const float *sk, const cf_cpu_int8_rpe *t, int use_q, int use_k, int half, float *s0,
    float *s1) {
  const int off = 60 * half; /* 15 * 4: the half's first key rank */
  const __m512 v0 = _mm512_set1_ps(sq0), v1 = _mm512_set1_ps(sq1);
  for (int r = 0; r < 2; r++) {
    const int k = 32 * half + 16 * r, p0 = off + 30 * r, p1 = p0 - 15; /* lanes' displacements */
    const __m512i c = _mm512_loadu_si512(kc + k);
    const __m512 s = _mm512_loadu_ps(sk + k);
    __m512 x0 = scaled(a0[r], c, v0, s), x1 = scaled(a1[r], c, v1, s);
    if (use_q) {
      x0 = _mm512_add_ps(x0, scaled(g0[r], lanes_i(t->eqc + p0), v0, lanes_f(t->eqs + p0)));
      x1 = _mm512_add_ps(x1, scaled(g1[r], lanes_i(t->eqc + p1), v1, lanes_f(t->eqs + p1)));
    }
    if (use_k) {
      x0 = _mm512_add_ps(x0, scaled(h0[r], c, s, lanes_f(t->eks + p0)));
      x1 = _mm512_add_ps(x1, scaled(h1[r], c, s, lanes_f(t->eks + p1)));
    }
    _mm512_store_ps(s0 + k, x0);
    _mm512_store_ps(s1 + k, x1);
  }
}

/* scores_pair with the terms present as constants use_q, use_k (each
 * combination its own branch-free loop). Per depth quad the table runs of
 * key ranks -1..3 of the half are loaded once (t[j]: rank j - 1 for q0):
 * q0 takes ranks (0,1), (2,3), q0 + 8 ranks (-1,0), (1,2). */
static inline __attribute__((always_inline)) void scores2(
    int dq, const uint8_t *Q0, const uint8_t *Q1, float sq0, float sq1, const uint32_t *kt,
    const int32_t *kc, const float *sk, const cf_cpu_int8_rpe *t, int use_q, int use_k,
    int half, float *s0, float *s1) {
  __m512i a0[2], a1[2], g0[2], g1[2], h0[2], h1[2]; /* q.k, q term, k term */
  for (int r = 0; r < 2; r++)
    a0[r] = a1[r] = g0[r] = g1[r] = h0[r] = h1[r] = _mm512_setzero_si512();
  const int off = 60 * half; /* 15 * 4: the half's first key rank */
  for (int j = 0; j < dq; j++) {
    const __m512i q0 = cf_bcast32(Q0 + 4 * j), q1 = cf_bcast32(Q1 + 4 * j);
    const uint32_t *kr = kt + (size_t)j * 64 + 32 * half;
    const size_t row = (size_t)j * CF_CPU_RPE_TABLE + off;
    __m256i tq[5], tk[5];
    for (int x = 0; x < 5; x++) {
      if (use_q) tq[x] = cf_load256_kept(t->eq + row + 15 * x - 15);
      if (use_k) tk[x] = cf_load256_kept(t->ek + row + 15 * x - 15);
    }
    for (int r = 0; r < 2; r++) {
      const __m512i kv = _mm512_load_si512(kr + 16 * r);
      a0[r] = _mm512_dpbusd_epi32(a0[r], q0, kv);
      a1[r] = _mm512_dpbusd_epi32(a1[r], q1, kv);
      if (use_q) {
        g0[r] = _mm512_dpbusd_epi32(g0[r], q0, join(tq[2 * r + 1], tq[2 * r + 2]));
        g1[r] = _mm512_dpbusd_epi32(g1[r], q1, join(tq[2 * r], tq[2 * r + 1]));
      }
      if (use_k) {
        h0[r] = _mm512_dpbusd_epi32(h0[r], join(tk[2 * r + 1], tk[2 * r + 2]), kv);
        h1[r] = _mm512_dpbusd_epi32(h1[r], join(tk[2 * r], tk[2 * r + 1]), kv);
      }
    }
  }
  store2(a0, a1, g0, g1, h0, h1, sq0, sq1, kc, sk, t, use_q, use_k, half, s0, s1);
}

static void scores_pair(int dq, const uint8_t *Q0, const uint8_t *Q1, float sq0, float sq1,
                        const uint32_t *kt, const int32_t *kc, const float *sk,
                        const cf_cpu_int8_rpe *t, int half, float *s0, float *s1) {
  const bool use_q = t && t->eq, use_k = t && t->ek;
  if (use_q && use_k) scores2(dq, Q0, Q1, sq0, sq1, kt, kc, sk, t, 1, 1, half, s0, s1);
  else if (use_q) scores2(dq, Q0, Q1, sq0, sq1, kt, kc, sk, t, 1, 0, half, s0, s1);
  else if (use_k) scores2(dq, Q0, Q1, sq0, sq1, kt, kc, sk, t, 0, 1, half, s0, s1);
  else scores2(dq, Q0, Q1, sq0, sq1, kt, kc, sk, t, 0, 0, half, s0, s1);
}

/* scores2 on a file's joined quads (jq, jk: [dq][14][16] words, or
 * unused): the same sums and the same conversion, one aligned load where
 * scores2 joins two runs. t: the tables offset by c(q0), for the
 * per-displacement corrections and scales; x0: the block index of q0's
 * first key rank pair (4 half - rank q0 + 7), q0 + 8's one less, the
 * second pair two more. */
static inline __attribute__((always_inline)) void scores2_joined(
    int dq, const uint8_t *Q0, const uint8_t *Q1, float sq0, float sq1, const uint32_t *kt,
    const int32_t *kc, const float *sk, const cf_cpu_int8_rpe *t, const uint32_t *jq,
    const uint32_t *jk, int use_q, int use_k, int half, int x0, float *s0, float *s1) {
  __m512i a0[2], a1[2], g0[2], g1[2], h0[2], h1[2]; /* q.k, q term, k term */
  for (int r = 0; r < 2; r++)
    a0[r] = a1[r] = g0[r] = g1[r] = h0[r] = h1[r] = _mm512_setzero_si512();
  for (int j = 0; j < dq; j++) {
    const __m512i q0 = cf_bcast32(Q0 + 4 * j), q1 = cf_bcast32(Q1 + 4 * j);
    const uint32_t *kr = kt + (size_t)j * 64 + 32 * half;
    for (int r = 0; r < 2; r++) {
      const __m512i kv = _mm512_load_si512(kr + 16 * r);
      const size_t j0 = ((size_t)j * CF_CPU_JOINED + (size_t)(x0 + 2 * r)) * 16, j1 = j0 - 16;
      a0[r] = _mm512_dpbusd_epi32(a0[r], q0, kv);
      a1[r] = _mm512_dpbusd_epi32(a1[r], q1, kv);
      if (use_q) {
        g0[r] = _mm512_dpbusd_epi32(g0[r], q0, _mm512_load_si512(jq + j0));
        g1[r] = _mm512_dpbusd_epi32(g1[r], q1, _mm512_load_si512(jq + j1));
      }
      if (use_k) {
        h0[r] = _mm512_dpbusd_epi32(h0[r], _mm512_load_si512(jk + j0), kv);
        h1[r] = _mm512_dpbusd_epi32(h1[r], _mm512_load_si512(jk + j1), kv);
      }
    }
  }
  store2(a0, a1, g0, g1, h0, h1, sq0, sq1, kc, sk, t, use_q, use_k, half, s0, s1);
}

/* scores2_joined over the file's four query pairs and both halves, with
 * the terms present as constants. */
static inline __attribute__((always_inline)) void file_joined(
    int dq, int f, const uint8_t *qb, const float *sq, const uint32_t *kt, const int32_t *kc,
    const float *sk, const cf_cpu_int8_rpe *head, const uint32_t *jq, const uint32_t *jk,
    int use_q, int use_k, float *S) {
  for (int half = 0; half < 2; half++)
    for (int rank = 0; rank < 8; rank += 2) {
      const int q = 8 * rank + f;
      const int c = CF_CPU_RPE_TABLE - 1 - cf_cpu_query_base(q);
      cf_cpu_int8_rpe t = *head;
      if (use_q) t.eqc += c, t.eqs += c;
      if (use_k) t.eks += c;
      scores2_joined(dq, qb + (size_t)q * 4 * dq, qb + (size_t)(q + 8) * 4 * dq, sq[q], sq[q + 8],
                     kt, kc, sk, &t, jq, jk, use_q, use_k, half, 4 * half - rank + 7,
                     S + 64 * q, S + 64 * (q + 8));
    }
}

/* cf_cpu_attention_int8_math.scores_file: no joins in the loop, the
 * file's joined blocks (7 KB for both sides at 4 quads) staying in L1 for
 * its eight queries. */
static void scores_file(int dq, int f, const uint8_t *qb, const float *sq, const uint32_t *kt,
                        const int32_t *kc, const float *sk, const cf_cpu_int8_rpe *head,
                        const uint32_t *jq, const uint32_t *jk, float *S) {
  if (jq && jk) file_joined(dq, f, qb, sq, kt, kc, sk, head, jq, jk, 1, 1, S);
  else if (jq) file_joined(dq, f, qb, sq, kt, kc, sk, head, jq, NULL, 1, 0, S);
  else if (jk) file_joined(dq, f, qb, sq, kt, kc, sk, head, NULL, jk, 0, 1, S);
  else file_joined(dq, f, qb, sq, kt, kc, sk, head, NULL, NULL, 0, 0, S);
}

/* One run of up to 32 depths (nv vectors of 16) of weighted_values_pair,
 * nv and the value term's presence use_e constant so that the
 * accumulators stay in registers (with a run-time count the compiler kept
 * them on the stack). Key quad m's table row is base - off(4m): rows walk
 * down 4 per quad within a rank and 11 more to the next rank. */
static inline __attribute__((always_inline)) void values_run(
    int dh, int i0, int nv, int use_e, const uint8_t *a0, const uint8_t *a1, __m512 w0,
    __m512 w1, const uint32_t *vq, const float *sv, const uint32_t *ev, const float *evs,
    int base0, int base1, float *o0, float *o1) {
  const __mmask16 m[2] = {cf_tail16(dh - i0), cf_tail16(dh - i0 - 16)};
  __m512i c0[2][2], c1[2][2], e0[2][2], e1[2][2]; /* [quad parity][depth half] */
  for (int u = 0; u < 2; u++)
    for (int j = 0; j < 2; j++)
      c0[u][j] = c1[u][j] = e0[u][j] = e1[u][j] = _mm512_setzero_si512();
  /* not unrolled: the unrolled loop's addresses took the registers */
#pragma GCC unroll 1
  for (int mm = 0; mm < 16; mm += 2)
    for (int u = 0; u < 2; u++) {
      const __m512i x0 = cf_bcast32(a0 + 4 * (mm + u)), x1 = cf_bcast32(a1 + 4 * (mm + u));
      const uint32_t *vk = vq + (size_t)(mm + u) * dh + i0;
      const int off = cf_cpu_key_off(4 * (mm + u));
      const uint32_t *r0 = use_e ? ev + (size_t)(base0 - off) * dh + i0 : NULL;
      const uint32_t *r1 = use_e ? ev + (size_t)(base1 - off) * dh + i0 : NULL;
      for (int j = 0; j < nv; j++) {
        const __m512i v = _mm512_maskz_loadu_epi32(m[j], vk + 16 * j);
        c0[u][j] = _mm512_dpbusd_epi32(c0[u][j], x0, v);
        c1[u][j] = _mm512_dpbusd_epi32(c1[u][j], x1, v);
        if (use_e) {
          e0[u][j] =
              _mm512_dpbusd_epi32(e0[u][j], x0, _mm512_maskz_loadu_epi32(m[j], r0 + 16 * j));
          e1[u][j] =
              _mm512_dpbusd_epi32(e1[u][j], x1, _mm512_maskz_loadu_epi32(m[j], r1 + 16 * j));
        }
      }
    }
  for (int j = 0; j < nv; j++) {
    const __m512 s = _mm512_maskz_loadu_ps(m[j], sv + i0 + 16 * j);
    const __m512 f0 = _mm512_cvtepi32_ps(_mm512_add_epi32(c0[0][j], c0[1][j]));
    const __m512 f1 = _mm512_cvtepi32_ps(_mm512_add_epi32(c1[0][j], c1[1][j]));
    __m512 y0 = _mm512_mul_ps(f0, _mm512_mul_ps(w0, s));
    __m512 y1 = _mm512_mul_ps(f1, _mm512_mul_ps(w1, s));
    if (use_e) {
      const __m512 es = _mm512_maskz_loadu_ps(m[j], evs + i0 + 16 * j);
      const __m512 g0 = _mm512_cvtepi32_ps(_mm512_add_epi32(e0[0][j], e0[1][j]));
      const __m512 g1 = _mm512_cvtepi32_ps(_mm512_add_epi32(e1[0][j], e1[1][j]));
      y0 = _mm512_add_ps(y0, _mm512_mul_ps(g0, _mm512_mul_ps(w0, es)));
      y1 = _mm512_add_ps(y1, _mm512_mul_ps(g1, _mm512_mul_ps(w1, es)));
    }
    _mm512_mask_storeu_ps(o0 + i0 + 16 * j, m[j], y0);
    _mm512_mask_storeu_ps(o1 + i0 + 16 * j, m[j], y1);
  }
}

static void weighted_values_pair(int dh, const uint8_t *a0, const uint8_t *a1, float sa0,
                                 float sa1, const uint32_t *vq, const float *sv,
                                 const uint32_t *ev, const float *evs, int base0, int base1,
                                 float *o0, float *o1) {
  const __m512 w0 = _mm512_set1_ps(sa0), w1 = _mm512_set1_ps(sa1);
  CF_CPU_VALUES_RUNS(values_run, dh, ev != NULL, a0, a1, w0, w1, vq, sv, ev, evs, base0, base1,
                     o0, o1);
}

/* In registers: one load of the row, no store. */
static float softmax_to_u8(float *s, float scale, const float *bias, uint8_t *w) {
  __m512 e[4];
  const float sum = cf_softmax_exp512(s, scale, bias, e);
  const __m512 k255 = _mm512_set1_ps(255.0f), half = _mm512_set1_ps(0.5f);
  for (int j = 0; j < 4; j++)
    _mm_storeu_si128((__m128i *)(w + 16 * j), /* truncating: the portable (int) cast */
                     _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(
                         _mm512_add_ps(_mm512_mul_ps(e[j], k255), half))));
  return 1.0f / (255.0f * sum);
}

/* Per row as cf_avx512_quantize_row (max |x| over the row, its scale, each
 * value times the inverse rounded to nearest even and narrowed), the row
 * held in registers; the queries' bytes offset by 128 (an xor of the sign
 * bit), the keys' summed and their quads stored transposed. */
static void quantize_qk(int dh, const float *q, const float *k, size_t ld, uint8_t *qb,
                        uint32_t *kt, float *sq, float *sk, int32_t *kc) {
  const int dq = (dh + 3) / 4, nv = (dh + 15) / 16, width = 4 * dq;
  const __m128i flip = _mm_set1_epi8((char)0x80);
  for (int side = 0; side < 2; side++) {
    const float *x = side ? k : q;
    for (int r = 0; r < 64; r++) {
      const float *row = x + (size_t)r * ld;
      __m512 v[CF_CPU_MAX_FAST_DEPTH / 16];
      __m512 mx = _mm512_setzero_ps();
      for (int i = 0; i < nv; i++) {
        v[i] = _mm512_maskz_loadu_ps(cf_tail16(dh - 16 * i), row + 16 * i);
        mx = _mm512_max_ps(mx, _mm512_abs_ps(v[i]));
      }
      const float amax = _mm512_reduce_max_ps(mx);
      const float s = amax > 0 ? amax / 127.0f : 1.0f;
      const __m512 inv = _mm512_set1_ps(1.0f / s);
      __m512i sum = _mm512_setzero_si512();
      for (int i = 0; i < nv; i++) {
        const __m512i n = _mm512_cvtps_epi32(_mm512_mul_ps(v[i], inv));
        const __m128i b = _mm512_cvtsepi32_epi8(n);
        const int bytes = width - 16 * i < 16 ? width - 16 * i : 16; /* the row's, pad included */
        if (side == 0) {
          const __mmask16 m = (__mmask16)((1u << bytes) - 1u);
          _mm_mask_storeu_epi8(qb + (size_t)r * width + 16 * i, m, _mm_xor_si128(b, flip));
        } else {
          sum = _mm512_add_epi32(sum, n);
          uint32_t w[4];
          _mm_storeu_si128((__m128i *)(void *)w, b);
          for (int u = 0; u < bytes / 4; u++) kt[(size_t)(4 * i + u) * 64 + r] = w[u];
        }
      }
      if (side == 0) sq[r] = s;
      else sk[r] = s, kc[r] = 128 * _mm512_reduce_add_epi32(sum);
    }
  }
}

/* Column maxima over the 64 rows, then each quad of rows rounded (vcvtps2dq:
 * nearest even) and its four low bytes merged into the words of 16
 * depths. */
static void quantize_values(int dh, const float *v, size_t ld, uint32_t *vq, float *sv) {
  for (int i0 = 0; i0 < dh; i0 += 16) {
    const __mmask16 m = cf_tail16(dh - i0);
    __m512 mx[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
    for (int k = 0; k < 64; k++)
      mx[k & 1] = _mm512_max_ps(mx[k & 1],
                                _mm512_abs_ps(_mm512_maskz_loadu_ps(m, v + (size_t)k * ld + i0)));
    const __m512 amax = _mm512_max_ps(mx[0], mx[1]);
    const __m512 s = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(amax, _mm512_setzero_ps(), _CMP_GT_OQ),
                                          _mm512_set1_ps(1.0f),
                                          _mm512_div_ps(amax, _mm512_set1_ps(127.0f)));
    const __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.0f), s);
    _mm512_mask_storeu_ps(sv + i0, m, s);
    for (int mm = 0; mm < 16; mm++) {
      __m512i w = _mm512_setzero_si512();
      for (int b = 0; b < 4; b++) {
        const __m512 x = _mm512_maskz_loadu_ps(m, v + (size_t)(4 * mm + b) * ld + i0);
        const __m512i q = _mm512_and_si512(_mm512_cvtps_epi32(_mm512_mul_ps(x, inv)),
                                           _mm512_set1_epi32(0xFF));
        w = _mm512_or_si512(w, _mm512_slli_epi32(q, 8 * b));
      }
      _mm512_mask_storeu_epi32(vq + (size_t)mm * dh + i0, m, w);
    }
  }
}

CF_CPU_ATTENTION_INT8_MATH_FILE(cf_cpu_attention_int8_avx512, "avx512_vnni");
