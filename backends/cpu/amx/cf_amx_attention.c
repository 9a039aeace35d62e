/* cf_amx_attention.c: one task of the attention op on AMX tiles (see
 * cf_cpu_amx.h for the products and why a task is a head and a group of
 * positions). The only code built with -mamx-tile -mamx-bf16; called only
 * where cf_amx_usable() said yes. Tiles 0-3 accumulate, 4 holds the left
 * operand (rows of bf16 pairs), 5-7 right ones (pairs of rows interleaved,
 * the tiles' layout); the row loops between the products (packing to
 * bf16, the softmax, transposes) are AVX-512.
 *
 * Layouts, D the padded depth, nc = D / 32 depth chunks, nd = D / 16,
 * blocks numbered by cf_amx_q_block, cf_amx_k_block, cf_amx_v_block:
 *   eq [block of q, kb][ch nc][16 depth pairs][16 keys][2]  (keys 16 kb + 0..15)
 *   ek [block of k, qb][ch nc][16 depth pairs][16 queries][2]
 *   ev [block of q, kc][db nd][16 key pairs][16 depths][2]   (keys 32 kc + 0..31)
 * Consecutive key blocks of a query are 16 blocks apart (lower), query
 * blocks of a key 16 apart (higher).
 * Scratch, per group slot b (16 slots):
 *   Qb, Kb [b][64][D] bf16; KV [b][D/2][64] pair words (K transposed);
 *   VV [b][32][D] pair words (key pairs); S, RT [b][64][64] float32 (RT
 *   keys by queries); W [b][64][64] bf16; O [b][64][D] float32. */
#include <immintrin.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/avx512/cf_avx512_math.h"
#include "backends/cpu/cf_cpu_amx.h"

enum { G = CF_AMX_GROUP };

typedef struct scratch {
  uint16_t *qb, *kb, *w;
  uint32_t *kv, *vv;
  float *s, *rt, *o;
  /* Elements from one slot to the next in qb/kb, s/rt, w and o: a whole
   * number of cache lines that is not a multiple of 4 KB, so that the 16
   * rows of a tile loaded across slots fall in different L1 sets. */
  size_t qk, sr, ws, os;
} scratch;

static scratch carve(void *base, int D) {
  char *p = base;
  scratch s = {.qk = (size_t)64 * D + 32, .sr = 1024 + 16, .ws = 1024 + 32,
               .os = (size_t)16 * D + 16};
  s.qb = (uint16_t *)(void *)p, p += G * s.qk * 2;
  s.kb = (uint16_t *)(void *)p, p += G * s.qk * 2;
  s.kv = (uint32_t *)(void *)p, p += (size_t)G * 64 * D * 2;
  s.vv = (uint32_t *)(void *)p, p += (size_t)G * 64 * D * 2;
  s.s = (float *)(void *)p, p += G * s.sr * 4;
  s.rt = (float *)(void *)p, p += G * s.sr * 4;
  s.w = (uint16_t *)(void *)p, p += G * s.ws * 2;
  s.o = (float *)(void *)p;
  return s;
}

size_t cf_amx_scratch_bytes(int dh) {
  const size_t D = (size_t)cf_amx_depth_pad(dh);
  return (size_t)G * (2 * (64 * D + 32) * 2 + 2 * 64 * D * 2 + 2 * (1024 + 16) * 4 +
                      (1024 + 32) * 2 + (16 * D + 16) * 4);
}

/* The tile configuration: palette 1, tiles 0-7 of 16 rows of 64 bytes. */
typedef struct __attribute__((packed)) tile_config {
  uint8_t palette, start_row, reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
} tile_config;

static void configure(void) {
  _Alignas(64) tile_config c;
  memset(&c, 0, sizeof c);
  c.palette = 1;
  for (int t = 0; t < 8; t++) c.colsb[t] = 64, c.rows[t] = 16;
  _tile_loadconfig(&c);
}

/* r[0..15] (rows of 16 words) transposed in place: 4 x 4 blocks within
 * each 128-bit lane, then the lanes. */
static inline void transpose16(__m512i r[16]) {
  __m512i u[16];
  for (int g = 0; g < 4; g++) {
    const __m512i t0 = _mm512_unpacklo_epi32(r[4 * g], r[4 * g + 1]);
    const __m512i t1 = _mm512_unpackhi_epi32(r[4 * g], r[4 * g + 1]);
    const __m512i t2 = _mm512_unpacklo_epi32(r[4 * g + 2], r[4 * g + 3]);
    const __m512i t3 = _mm512_unpackhi_epi32(r[4 * g + 2], r[4 * g + 3]);
    u[4 * g] = _mm512_unpacklo_epi64(t0, t2);
    u[4 * g + 1] = _mm512_unpackhi_epi64(t0, t2);
    u[4 * g + 2] = _mm512_unpacklo_epi64(t1, t3);
    u[4 * g + 3] = _mm512_unpackhi_epi64(t1, t3);
  }
  /* u[4g + k], lane L: rows 4g..4g+3 at column 4L + k. */
  for (int k = 0; k < 4; k++) {
    const __m512i a0 = _mm512_shuffle_i32x4(u[k], u[4 + k], 0x44);
    const __m512i a1 = _mm512_shuffle_i32x4(u[k], u[4 + k], 0xEE);
    const __m512i a2 = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0x44);
    const __m512i a3 = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0xEE);
    r[k] = _mm512_shuffle_i32x4(a0, a2, 0x88);
    r[4 + k] = _mm512_shuffle_i32x4(a0, a2, 0xDD);
    r[8 + k] = _mm512_shuffle_i32x4(a1, a3, 0x88);
    r[12 + k] = _mm512_shuffle_i32x4(a1, a3, 0xDD);
  }
}

/* 32 floats (x[0..n), zeros past n) as 32 bf16, rounded to nearest even. */
static inline __m512i bf16_32(const float *x, int n) {
  const __m512 lo = _mm512_maskz_loadu_ps(cf_tail16(n), x);
  const __m512 hi = _mm512_maskz_loadu_ps(cf_tail16(n - 16), x + 16);
  return (__m512i)_mm512_cvtne2ps_pbh(hi, lo);
}

/* 32 values of q, k or v at element o of the call's qkv as bf16 (zeros
 * past n): loaded where the projection wrote bf16 (qkv_bf16), else
 * rounded from float32. */
static inline __m512i qkv_32(const cf_attention_args *a, size_t o, int n) {
  if (!a->qkv_bf16) return bf16_32(a->qkv + o, n);
  const __mmask32 m = n >= 32 ? 0xffffffffu : n <= 0 ? 0 : (__mmask32)((1u << n) - 1);
  return _mm512_maskz_loadu_epi16(m, (const cf_bf16 *)(const void *)a->qkv + o);
}

/* The same for 16 values. */
static inline __m256i qkv_16(const cf_attention_args *a, size_t o, int n) {
  if (!a->qkv_bf16) return (__m256i)_mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(cf_tail16(n),
                                                                             a->qkv + o));
  return _mm256_maskz_loadu_epi16(cf_tail16(n), (const cf_bf16 *)(const void *)a->qkv + o);
}

/* Prefetches the head's q, k and v runs of token t of the position whose
 * rows start at element tok of the call's qkv (`more` false: none). A
 * position's rows are a stride of 3 dm values apart, a run every few KB,
 * which the hardware prefetchers do not follow (as the cores' row
 * prefetch, cf_cpu_attention_task.h). */
static inline void prefetch_token(const cf_attention_args *a, bool more, size_t tok, int t,
                                  int ld, int dm, int dh) {
  if (!more) return;
  const size_t size = a->qkv_bf16 ? sizeof(cf_bf16) : sizeof(float);
  const char *base = (const char *)a->qkv;
  for (int side = 0; side < 3; side++)
    for (int c = 0; c < dh; c += 16)
      _mm_prefetch(base + (tok + (size_t)t * ld + (size_t)side * dm + c) * size, _MM_HINT_T0);
}

/* Slot b's q, k, v rows of head h (position pb) into Qb, Kb (bf16 rows),
 * KV (Kb's pair words transposed) and VV (key pairs interleaved), with
 * the next slot's rows (position pb + 1, when `more`) prefetched. */
static void pack(const cf_attention_args *a, int h, int pb, int b, bool more, int D,
                 const scratch *s) {
  const int dh = a->depth, dm = a->heads * dh, ld = 3 * dm, dw = D / 2;
  const size_t tok = (size_t)pb * 64 * ld + (size_t)h * dh, next = tok + (size_t)64 * ld;
  uint16_t *qb = s->qb + b * s->qk, *kb = s->kb + b * s->qk;
  for (int t = 0; t < 64; t++) {
    prefetch_token(a, more, next, t, ld, dm, dh);
    for (int c = 0; c < D; c += 32) {
      _mm512_store_si512(qb + (size_t)t * D + c, qkv_32(a, tok + (size_t)t * ld + c, dh - c));
      _mm512_store_si512(kb + (size_t)t * D + c,
                         qkv_32(a, tok + (size_t)t * ld + dm + c, dh - c));
    }
  }
  /* KV[w][j] = Kb[j] word w: 16 x 16 blocks. */
  const uint32_t *kw = (const uint32_t *)(const void *)kb;
  uint32_t *kv = s->kv + (size_t)b * dw * 64;
  for (int j0 = 0; j0 < 64; j0 += 16)
    for (int w0 = 0; w0 < dw; w0 += 16) {
      __m512i r[16];
      for (int j = 0; j < 16; j++) r[j] = _mm512_load_si512(kw + (size_t)(j0 + j) * dw + w0);
      transpose16(r);
      for (int w = 0; w < 16; w++) _mm512_store_si512(kv + (size_t)(w0 + w) * 64 + j0, r[w]);
    }
  /* VV[m][c] = v[2m][c] | v[2m + 1][c] << 16. */
  uint32_t *vv = s->vv + (size_t)b * 32 * D;
  const size_t v = tok + 2 * (size_t)dm;
  for (int m = 0; m < 32; m++)
    for (int c = 0; c < D; c += 16) {
      const __m256i lo = qkv_16(a, v + (size_t)(2 * m) * ld + c, dh - c);
      const __m256i hi = qkv_16(a, v + (size_t)(2 * m + 1) * ld + c, dh - c);
      _mm512_store_si512(vv + (size_t)m * D + c,
                         _mm512_or_si512(_mm512_cvtepu16_epi32(lo),
                                         _mm512_slli_epi32(_mm512_cvtepu16_epi32(hi), 16)));
    }
}

/* C tiles 0..3 += A (tile 4, loaded from a, stride sa) times four right
 * operands (from b + i * bstep bytes, stride sb, i = 0..3) loaded into
 * tiles 5, 6, 7, 5, so that a load need not wait for the multiply before
 * it to free the one tile (no change measured on the Xeon; kept as the
 * safer schedule). */
#define DP4(a, sa, b, bstep, sb)                                   \
  do {                                                             \
    _tile_loadd(4, (a), (sa));                                     \
    _tile_loadd(5, (const char *)(b), (sb));                       \
    _tile_loadd(6, (const char *)(b) + (bstep), (sb));             \
    _tile_loadd(7, (const char *)(b) + 2 * (ptrdiff_t)(bstep), (sb)); \
    _tile_dpbf16ps(0, 4, 5);                                       \
    _tile_dpbf16ps(1, 4, 6);                                       \
    _tile_loadd(5, (const char *)(b) + 3 * (ptrdiff_t)(bstep), (sb)); \
    _tile_dpbf16ps(2, 4, 7);                                       \
    _tile_dpbf16ps(3, 4, 5);                                       \
  } while (0)

#define LOAD4(p, step, stride)                                        \
  do {                                                                \
    _tile_loadd(0, (const char *)(p), (stride));                      \
    _tile_loadd(1, (const char *)(p) + (step), (stride));             \
    _tile_loadd(2, (const char *)(p) + 2 * (size_t)(step), (stride)); \
    _tile_loadd(3, (const char *)(p) + 3 * (size_t)(step), (stride)); \
  } while (0)

#define STORE4(p, step, stride)                                 \
  do {                                                          \
    _tile_stored(0, (char *)(p), (stride));                     \
    _tile_stored(1, (char *)(p) + (step), (stride));            \
    _tile_stored(2, (char *)(p) + 2 * (size_t)(step), (stride)); \
    _tile_stored(3, (char *)(p) + 3 * (size_t)(step), (stride)); \
  } while (0)

#define ZERO4()     \
  do {              \
    _tile_zero(0);  \
    _tile_zero(1);  \
    _tile_zero(2);  \
    _tile_zero(3);  \
  } while (0)

/* Depth blocks of 16 (nd = 2 or 4) as 2 or 4 accumulators: the value
 * products use tiles 0..nd-1. */
#define DPN(nd, a, sa, b, bstep, sb)                                   \
  do {                                                                 \
    if ((nd) == 4) {                                                   \
      DP4(a, sa, b, bstep, sb);                                        \
    } else {                                                           \
      _tile_loadd(4, (a), (sa));                                       \
      _tile_loadd(5, (const char *)(b), (sb));                         \
      _tile_loadd(6, (const char *)(b) + (bstep), (sb));               \
      _tile_dpbf16ps(0, 4, 5);                                         \
      _tile_dpbf16ps(1, 4, 6);                                         \
    }                                                                  \
  } while (0)

#define LOADN(nd, p, step, stride)                                      \
  do {                                                                  \
    _tile_loadd(0, (const char *)(p), (stride));                        \
    _tile_loadd(1, (const char *)(p) + (step), (stride));               \
    if ((nd) == 4) {                                                    \
      _tile_loadd(2, (const char *)(p) + 2 * (size_t)(step), (stride)); \
      _tile_loadd(3, (const char *)(p) + 3 * (size_t)(step), (stride)); \
    }                                                                   \
  } while (0)

#define STOREN(nd, p, step, stride)                                 \
  do {                                                              \
    _tile_stored(0, (char *)(p), (stride));                         \
    _tile_stored(1, (char *)(p) + (step), (stride));                \
    if ((nd) == 4) {                                                \
      _tile_stored(2, (char *)(p) + 2 * (size_t)(step), (stride)); \
      _tile_stored(3, (char *)(p) + 3 * (size_t)(step), (stride)); \
    }                                                               \
  } while (0)

/* Lane q: the maximum (max) or sum of the lanes of v[q], q = 0..15, by
 * one transpose and 15 vertical steps instead of 16 horizontal ones. */
static inline __m512 lanes_reduce(__m512 v[16], bool max) {
  __m512i r[16];
  for (int q = 0; q < 16; q++) r[q] = _mm512_castps_si512(v[q]);
  transpose16(r);
  __m512 x = _mm512_castsi512_ps(r[0]);
  for (int i = 1; i < 16; i++)
    x = max ? _mm512_max_ps(x, _mm512_castsi512_ps(r[i]))
            : _mm512_add_ps(x, _mm512_castsi512_ps(r[i]));
  return x;
}

/* Query rows q0 .. q0 + 15 of slot b (position pb): their scores S[r][.]
 * plus the key terms R[k][r] transposed, scaled, with the bias, through
 * the softmax, normalised and rounded into W[r][.]. The 16 rows go
 * through each step together, their maxima and sums reduced across rows
 * (lanes_reduce): row by row, each row's chain of reductions, exp and
 * division left the core waiting (about 100 cycles a row). */
static void softmax_block(const cf_attention_args *a, int h, int pb, int q0, float *S,
                          const float *R, bool rk, uint16_t *W) {
  if (rk)
    for (int kb = 0; kb < 64; kb += 16) {
      __m512i r[16];
      for (int k = 0; k < 16; k++) r[k] = _mm512_load_si512(R + (size_t)(kb + k) * 16);
      transpose16(r);
      for (int q = 0; q < 16; q++) {
        float *row = S + (size_t)q * 64 + kb;
        _mm512_store_ps(row, _mm512_add_ps(_mm512_load_ps(row), _mm512_castsi512_ps(r[q])));
      }
    }
  const float *bias =
      a->bias ? a->bias + (((size_t)pb * a->heads + (size_t)h) * 64 + (size_t)q0) * 64 : NULL;
  const __m512 scale = _mm512_set1_ps(a->scale);
  __m512 acc[16];
  for (int q = 0; q < 16; q++) { /* scaled, with the bias, in place; each row's maxima */
    float *row = S + (size_t)q * 64;
    __m512 m = _mm512_set1_ps(-INFINITY);
    for (int j = 0; j < 4; j++) {
      __m512 v = _mm512_mul_ps(_mm512_load_ps(row + 16 * j), scale);
      if (bias) v = _mm512_add_ps(v, _mm512_loadu_ps(bias + q * 64 + 16 * j));
      _mm512_store_ps(row + 16 * j, v);
      m = _mm512_max_ps(m, v);
    }
    acc[q] = m;
  }
  const __m512 mx = lanes_reduce(acc, true);
  for (int q = 0; q < 16; q++) { /* e = exp(s - max), in place; each row's sums */
    float *row = S + (size_t)q * 64;
    const __m512 m = _mm512_permutexvar_ps(_mm512_set1_epi32(q), mx);
    __m512 sum = _mm512_setzero_ps();
    for (int j = 0; j < 4; j++) {
      const __m512 e = cf_exp512(_mm512_sub_ps(_mm512_load_ps(row + 16 * j), m));
      _mm512_store_ps(row + 16 * j, e);
      sum = _mm512_add_ps(sum, e);
    }
    acc[q] = sum;
  }
  const __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.0f), lanes_reduce(acc, false));
  for (int q = 0; q < 16; q++) {
    const __m512 f = _mm512_permutexvar_ps(_mm512_set1_epi32(q), inv);
    for (int j = 0; j < 4; j++)
      _mm256_store_si256((__m256i *)(void *)(W + (size_t)q * 64 + 16 * j),
                         (__m256i)_mm512_cvtneps_pbh(
                             _mm512_mul_ps(_mm512_load_ps(S + (size_t)q * 64 + 16 * j), f)));
  }
}

/* One task, a block of 16 queries at a time, so that the scores, weights
 * and outputs of all slots take a quarter of the scratch (a whole head's
 * were a megabyte; no change in speed measured); nc depth chunks and nd
 * value blocks of D. */
static inline __attribute__((always_inline)) void run(const cf_attention_args *a, int h, int b0,
                                                      int n, const uint16_t *eq,
                                                      const uint16_t *ek, const uint16_t *ev,
                                                      const scratch *s, int D, int nc, int nd) {
  const size_t qk_slot = s->qk * 2, s_slot = s->sr * 4, w_slot = s->ws * 2, o_slot = s->os * 4;
  for (int b = 0; b < n; b++) pack(a, h, b0 + b, b, b + 1 < n, D, s);
  if (n < G) { /* padded slots: finite rows whose results are dropped */
    memset(s->qb + n * s->qk, 0, (size_t)(G - n) * qk_slot);
    memset(s->kb + n * s->qk, 0, (size_t)(G - n) * qk_slot);
    memset(s->w + n * s->ws, 0, (size_t)(G - n) * w_slot);
    memset(s->o + n * s->os, 0, (size_t)(G - n) * o_slot);
  }
  const int dh = a->depth, dm = a->heads * dh;
  for (int q0 = 0; q0 < 64; q0 += 16) {
    /* S[r] = Q_q Eq[q]^T per query q = q0 + r (slots as rows). */
    for (int r = 0; r < 16 && eq; r++) {
      const int q = q0 + r;
      ZERO4();
      for (int ch = 0; ch < nc; ch++)
        DP4((const char *)(s->qb + (size_t)q * D + 32 * ch), qk_slot,
            eq + ((size_t)cf_amx_q_block(q, 0) * nc + ch) * 512, -16 * nc * 1024, 64);
      STORE4(s->s + (size_t)r * 64, 64, s_slot);
    }
    /* R[k] = K_k Ek[.][k]^T for this block's queries, two keys at a
     * time (tiles 4, 5 and 6, 7 their operands). */
    for (int k = 0; k < 64 && ek; k += 2) {
      _tile_zero(0);
      _tile_zero(1);
      for (int ch = 0; ch < nc; ch++) {
        _tile_loadd(4, s->kb + (size_t)k * D + 32 * ch, qk_slot);
        _tile_loadd(5, ek + ((size_t)cf_amx_k_block(k, q0 / 16) * nc + ch) * 512, 64);
        _tile_loadd(6, s->kb + (size_t)(k + 1) * D + 32 * ch, qk_slot);
        _tile_loadd(7, ek + ((size_t)cf_amx_k_block(k + 1, q0 / 16) * nc + ch) * 512, 64);
        _tile_dpbf16ps(0, 4, 5);
        _tile_dpbf16ps(1, 6, 7);
      }
      _tile_stored(0, s->rt + (size_t)k * 16, s_slot);
      _tile_stored(1, s->rt + (size_t)(k + 1) * 16, s_slot);
    }
    for (int b = 0; b < n; b++) {
      /* S += Q K^T. */
      float *S = s->s + b * s->sr;
      const uint16_t *Q = s->qb + b * s->qk + (size_t)q0 * D;
      const uint32_t *KV = s->kv + (size_t)b * (D / 2) * 64;
      if (eq) LOAD4(S, 64, 256);
      else ZERO4();
      for (int ch = 0; ch < nc; ch++)
        DP4((const char *)(Q + 32 * ch), D * 2, KV + (size_t)16 * ch * 64, 64, 256);
      STORE4(S, 64, 256);
      uint16_t *W = s->w + b * s->ws;
      softmax_block(a, h, b0 + b, q0, S, s->rt + b * s->sr, ek != NULL, W);
      /* O = A V. */
      const uint32_t *VV = s->vv + (size_t)b * 32 * D;
      float *O = s->o + b * s->os;
      ZERO4();
      for (int kc = 0; kc < 2; kc++)
        DPN(nd, (const char *)(W + 32 * kc), 128, VV + (size_t)16 * kc * D, 64, D * 4);
      STOREN(nd, O, 64, D * 4);
    }
    /* O += A_q Ev[q] per query. */
    for (int r = 0; r < 16 && ev; r++) {
      float *o = s->o + (size_t)r * D;
      LOADN(nd, o, 64, o_slot);
      for (int kc = 0; kc < 2; kc++)
        DPN(nd, (const char *)(s->w + (size_t)r * 64 + 32 * kc), w_slot,
            ev + (size_t)cf_amx_v_block(q0 + r, kc) * nd * 512, 1024, 64);
      STOREN(nd, o, 64, o_slot);
    }
    for (int b = 0; b < n; b++)
      for (int r = 0; r < 16; r++) {
        const float *o = s->o + b * s->os + (size_t)r * D;
        const size_t at = ((size_t)(b0 + b) * 64 + (size_t)(q0 + r)) * dm + (size_t)h * dh;
        if (a->out_bf16) /* rounded as the kernel set's to_bf16_row */
          for (int c = 0; c < dh; c += 16)
            _mm256_mask_storeu_epi16((cf_bf16 *)a->out + at + c, cf_tail16(dh - c),
                                     _mm512_cvtepi32_epi16(cf_avx512_bf16_bits(
                                         _mm512_load_ps(o + c))));
        else
          for (int c = 0; c < dh; c += 16)
            _mm512_mask_storeu_ps(a->out + at + c, cf_tail16(dh - c), _mm512_load_ps(o + c));
      }
  }
}

void cf_amx_attention_group(const cf_attention_args *a, int h, int b0, int n, const uint16_t *eq,
                            const uint16_t *ek, const uint16_t *ev, void *scratch_base) {
  const int D = cf_amx_depth_pad(a->depth);
  const scratch s = carve(scratch_base, D);
  configure();
  if (D == 32) run(a, h, b0, n, eq, ek, ev, &s, 32, 1, 2);
  else run(a, h, b0, n, eq, ek, ev, &s, 64, 2, 4);
  _tile_release();
}
