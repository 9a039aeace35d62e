/* cf_amx_tiles.h: what the AMX attention's two task shapes share (the
 * group of positions, cf_amx_attention.c; one position against the
 * displacement tables, cf_amx_attention_position.c): the tile
 * configuration, packing a head's q, k, v into the tiles' operands, the
 * tile macros and the softmax of a block of 16 query rows. Included only
 * by code built with -mamx-tile -mamx-bf16. Tiles 0-3 accumulate, 4 holds
 * the left operand (rows of bf16 pairs), 5-7 right ones (pairs of rows
 * interleaved, the tiles' layout). */
#ifndef CF_AMX_TILES_H
#define CF_AMX_TILES_H

#include <immintrin.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/avx512/cf_avx512_math.h"
#include "backends/cpu/cf_cpu_amx.h"

/* The tile configuration: palette 1, tiles 0-7 of 16 rows of 64 bytes. */
typedef struct __attribute__((packed)) tile_config {
  uint8_t palette, start_row, reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
} tile_config;

static inline void amx_configure(void) {
  _Alignas(64) tile_config c;
  memset(&c, 0, sizeof c);
  c.palette = 1;
  for (int t = 0; t < 8; t++) c.colsb[t] = 64, c.rows[t] = 16;
  /* GCC 12 does not count ldtilecfg as reading all of c: without this
   * barrier it dropped the column and row stores (every tile 0 rows, the
   * next tile instruction #UD) where the function was not inlined. */
  __asm__ volatile("" : : "r"(&c) : "memory");
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

/* Head h's q, k, v rows of position pb into qb, kb ([64][D] bf16 rows),
 * kv (kb's pair words transposed, [D / 2][64]) and vv (key pairs
 * interleaved, [32][D]), with position pb + 1's rows prefetched when
 * `more`. qb and kb NULL: the tiles read q and k where the projection
 * wrote them (bf16, dh == D; amx_direct_qk), and kv comes from there. */
static inline void amx_pack(const cf_attention_args *a, int h, int pb, bool more, int D,
                            uint16_t *qb, uint16_t *kb, uint32_t *kv, uint32_t *vv) {
  const int dh = a->depth, dm = a->heads * dh, ld = 3 * dm, dw = D / 2;
  const size_t tok = (size_t)pb * 64 * ld + (size_t)h * dh, next = tok + (size_t)64 * ld;
  for (int t = 0; t < 64 && qb; t++) {
    prefetch_token(a, more, next, t, ld, dm, dh);
    for (int c = 0; c < D; c += 32) {
      _mm512_store_si512(qb + (size_t)t * D + c, qkv_32(a, tok + (size_t)t * ld + c, dh - c));
      _mm512_store_si512(kb + (size_t)t * D + c,
                         qkv_32(a, tok + (size_t)t * ld + dm + c, dh - c));
    }
  }
  /* KV[w][j] = Kb[j] word w: 16 x 16 blocks. */
  const uint32_t *kw = (const uint32_t *)(const void *)kb;
  size_t kstride = (size_t)dw; /* words from one key's row to the next */
  if (!kb) { /* the prefetch the copy loop did */
    for (int t = 0; t < 64 && more; t++) prefetch_token(a, more, next, t, ld, dm, dh);
    kw = (const uint32_t *)(const void *)((const cf_bf16 *)(const void *)a->qkv + tok + dm);
    kstride = (size_t)ld / 2;
  }
  for (int j0 = 0; j0 < 64; j0 += 16)
    for (int w0 = 0; w0 < dw; w0 += 16) {
      __m512i r[16];
      for (int j = 0; j < 16; j++)
        r[j] = _mm512_loadu_si512(kw + (size_t)(j0 + j) * kstride + w0);
      transpose16(r);
      for (int w = 0; w < 16; w++) _mm512_store_si512(kv + (size_t)(w0 + w) * 64 + j0, r[w]);
    }
  /* VV[m][c] = v[2m][c] | v[2m + 1][c] << 16. */
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

/* Whether the tiles can read a call's q and k rows where the projection
 * wrote them: bf16, a head exactly 32 or 64 deep (no padding). */
static inline bool amx_direct_qk(const cf_attention_args *a) {
  return a->qkv_bf16 && a->depth == cf_amx_depth_pad(a->depth);
}

/* A query's output o[dh] (float32) into the call's output at element at:
 * bf16 where it takes bf16 (rounded as the kernel set's to_bf16_row). */
static inline void amx_store_out(const cf_attention_args *a, const float *o, size_t at) {
  const int dh = a->depth;
  if (a->out_bf16)
    for (int c = 0; c < dh; c += 16)
      _mm256_mask_storeu_epi16((cf_bf16 *)a->out + at + c, cf_tail16(dh - c),
                               _mm512_cvtepi32_epi16(cf_avx512_bf16_bits(_mm512_load_ps(o + c))));
  else
    for (int c = 0; c < dh; c += 16)
      _mm512_mask_storeu_ps(a->out + at + c, cf_tail16(dh - c), _mm512_load_ps(o + c));
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

/* Depth blocks of 16 (nd = 1, 2 or 4) as as many accumulators: the value
 * products use tiles 0..nd-1. */
#define DPN(nd, a, sa, b, bstep, sb)                                   \
  do {                                                                 \
    if ((nd) == 4) {                                                   \
      DP4(a, sa, b, bstep, sb);                                        \
    } else if ((nd) == 1) {                                            \
      _tile_loadd(4, (a), (sa));                                       \
      _tile_loadd(5, (const char *)(b), (sb));                         \
      _tile_dpbf16ps(0, 4, 5);                                         \
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
    if ((nd) > 1) _tile_stored(1, (char *)(p) + (step), (stride));  \
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

/* 2^t for the softmax's t <= 0 (the scores less their maximum, in units
 * of ln 2): 2^n 2^f with n = round(t), f in [-1/2, 1/2], 2^f by a
 * degree-4 polynomial fitted for relative error (3.2e-6 in float32,
 * against 1 ulp for cf_exp512: the weights are rounded to bf16, 2^-9,
 * after). Half the instructions of cf_exp512, the softmax's largest cost
 * (each score takes about 25 vector instructions, the tiles none of the
 * softmax). Below -126 it gives 2^-126, as cf_exp512 gives e^-87.3. */
static inline __m512 amx_exp2(__m512 t) {
  t = _mm512_max_ps(t, _mm512_set1_ps(-126.0f));
  const __m512 n = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 f = _mm512_sub_ps(t, n);
  __m512 p = _mm512_set1_ps(9.600402787e-03f);
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(5.591693521e-02f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(2.402371913e-01f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(6.931219697e-01f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}

/* Query rows q0 .. q0 + 15 of slot b (position pb): their scores S[r][.]
 * plus the key terms R[k][r] transposed, scaled, with the bias, through
 * the softmax, normalised and rounded into W[r][.]. The 16 rows go
 * through each step together, their maxima and sums reduced across rows
 * (lanes_reduce): row by row, each row's chain of reductions, exp and
 * division left the core waiting (about 100 cycles a row). */
static inline void amx_softmax_block(const cf_attention_args *a, int h, int pb, int q0, float *S,
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
  const __m512 log2e = _mm512_set1_ps(1.44269504088896341f);
  const __m512 mx = _mm512_mul_ps(lanes_reduce(acc, true), log2e);
  for (int q = 0; q < 16; q++) { /* e = exp(s - max), in place; each row's sums */
    float *row = S + (size_t)q * 64;
    const __m512 m = _mm512_permutexvar_ps(_mm512_set1_epi32(q), mx);
    __m512 sum = _mm512_setzero_ps();
    for (int j = 0; j < 4; j++) {
      const __m512 e = amx_exp2(_mm512_fmsub_ps(_mm512_load_ps(row + 16 * j), log2e, m));
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

#endif /* CF_AMX_TILES_H */
