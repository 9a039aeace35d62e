/* cf_amx_attention_position.c: one (position, head) task of the attention
 * op on AMX tiles, against the head's 225-row tables laid out by
 * displacement (cf_cpu_amx.h, "one position"). Built with -mamx-tile
 * -mamx-bf16 like the group task; the products are tile multiplies (bf16
 * pairs, float32 sums), the gathers, scatter and softmax AVX-512.
 *
 * A displacement d = q - k is (dr, df): dr = rank(q) - rank(k) + 7 and a
 * file offset, both 0..14. The tables hold 16 rank rows (the last zero)
 * of 16 columns (the last zero), so a tile of products covers one rank
 * row. A block of 16 queries (two ranks) meets 9 rank rows, as does a
 * block of 16 keys, so each relative product is 9 tiles a block:
 *   P = Q Eq'^T   [16 queries][9 x 16], column j of row dr: displacement
 *                 (dr, 14 - j), so that a key rank's 8 keys are 8
 *                 consecutive columns (file(k) - file(q) + 7);
 *   R = K Ek'^T   [16 keys][9 x 16], column j: (dr, j), a query rank's 8
 *                 queries consecutive;
 *   W' = the softmax's weights scattered to P's columns, 10 rank rows
 *                 (5 pairs) a query block, and O += W' Ev'.
 * S starts as P gathered at each (q, k), the tiles add Q K^T to it, then R
 * gathered and transposed is added: the order of the group task's sums,
 * so S and the weights are the same bits; O's relative term pairs keys
 * differently (neighbouring displacements, not neighbouring keys).
 *
 * Layouts, D the padded depth, nc = D / 32, nd = D / 16:
 *   eq, ek [dr 16][ch nc][16 depth pairs][16 columns][2]
 *   ev     [rank-row pair 8][db nd][16 column pairs][16 depths][2]
 * Scratch (cf_amx_position_scratch_bytes): Qb, Kb [64][D] bf16; KV
 * [D/2][64] and VV [32][D] pair words (amx_pack); RT [4][64][16] float32
 * (R gathered: query block, key, query); B [16][144] float32 (a block's P
 * or R); S [16][64] float32; W [16][64] and W' [16][160] bf16; O [16][D]
 * float32. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/amx/cf_amx_tiles.h"
#include "backends/cpu/cf_cpu_amx.h"

enum {
  ROWS = 9,         /* rank rows a block of 16 queries or keys meets */
  WIDTH = 16 * ROWS, /* B's columns */
  WPAIRS = 5,       /* pairs of rank rows W' covers (the last half zero) */
  WCOLS = 32 * WPAIRS,
};

typedef struct scratch {
  uint16_t *qb, *kb, *w, *wp;
  uint32_t *kv, *vv;
  float *rt, *b, *s, *o;
} scratch;

static size_t bytes_of(int D) {
  return (size_t)2 * 64 * D * 2 + (size_t)2 * 64 * D * 2 + 4 * 64 * 16 * 4 + 16 * WIDTH * 4 +
         16 * 64 * 4 + 16 * 64 * 2 + 16 * WCOLS * 2 + (size_t)16 * D * 4;
}

size_t cf_amx_position_scratch_bytes(int dh) { return bytes_of(cf_amx_depth_pad(dh)); }

/* Every part a multiple of 64 bytes from a 64-byte aligned base. */
static scratch carve(void *base, int D) {
  char *p = base;
  scratch s;
  s.qb = (uint16_t *)(void *)p, p += (size_t)64 * D * 2;
  s.kb = (uint16_t *)(void *)p, p += (size_t)64 * D * 2;
  s.kv = (uint32_t *)(void *)p, p += (size_t)64 * D * 2;
  s.vv = (uint32_t *)(void *)p, p += (size_t)64 * D * 2;
  s.rt = (float *)(void *)p, p += 4 * 64 * 16 * 4;
  s.b = (float *)(void *)p, p += 16 * WIDTH * 4;
  s.s = (float *)(void *)p, p += 16 * 64 * 4;
  s.w = (uint16_t *)(void *)p, p += 16 * 64 * 2;
  s.wp = (uint16_t *)(void *)p, p += 16 * WCOLS * 2;
  s.o = (float *)(void *)p;
  return s;
}

/* B[16][WIDTH] = the 16 rows at `rows` (`stride` bytes apart) times the
 * table's rank rows dr0 .. dr0 + 8: tiles of 4, 4 and 1 accumulators. */
static inline __attribute__((always_inline)) void relative_block(const uint16_t *rows,
                                                                  size_t stride,
                                                                  const uint16_t *table, int dr0,
                                                                  float *B, int nc) {
  const size_t row_step = (size_t)nc * 1024; /* bytes from one rank row's tiles to the next */
  for (int t0 = 0; t0 < 8; t0 += 4) {
    ZERO4();
    for (int ch = 0; ch < nc; ch++)
      DP4((const char *)(rows + 32 * ch), stride, table + ((size_t)(dr0 + t0) * nc + ch) * 512,
          row_step, 64);
    STORE4(B + 16 * t0, 64, WIDTH * 4);
  }
  _tile_zero(0);
  for (int ch = 0; ch < nc; ch++) {
    _tile_loadd(4, rows + 32 * ch, stride);
    _tile_loadd(5, table + ((size_t)(dr0 + 8) * nc + ch) * 512, 64);
    _tile_dpbf16ps(0, 4, 5);
  }
  _tile_stored(0, B + 16 * 8, WIDTH * 4);
}

/* RT[qb][k][r] = R[k][p(16 qb + r, k)] for every key k and query block
 * qb: per block of 16 keys its R, then each (key, query rank) run of 8
 * consecutive columns. */
static inline __attribute__((always_inline)) void key_terms(const uint16_t *K, size_t ks,
                                                             const uint16_t *ek,
                                                             const scratch *s, int nc) {
  for (int kb = 0; kb < 4; kb++) {
    const int dr0 = 6 - 2 * kb; /* rank(q) - rank(k) + 7 is dr0 .. dr0 + 8 */
    relative_block(K + 16 * kb * ks, ks * 2, ek, dr0, s->b, nc);
    for (int kk = 0; kk < 16; kk++) {
      const int k = 16 * kb + kk, rk = k >> 3, fk = k & 7;
      const float *row = s->b + (size_t)kk * WIDTH + 7 - fk;
      for (int rq = 0; rq < 8; rq++)
        _mm256_store_ps(s->rt + ((size_t)(rq >> 1) * 64 + k) * 16 + 8 * (rq & 1),
                        _mm256_loadu_ps(row + 16 * (rq - rk + 7 - dr0)));
    }
  }
}

/* One task, a block of 16 queries at a time. */
static inline __attribute__((always_inline)) void run(const cf_attention_args *a, int h, int pb,
                                                      bool more, const uint16_t *eq,
                                                      const uint16_t *ek, const uint16_t *ev,
                                                      const scratch *s, int D, int nc, int nd) {
  const int dh = a->depth, dm = a->heads * dh;
  /* Q and K rows (qs elements apart): where the projection wrote them, or
   * packed. */
  const bool direct = amx_direct_qk(a);
  const uint16_t *Q = s->qb, *K = s->kb;
  size_t qs = (size_t)D;
  if (direct) {
    Q = (const cf_bf16 *)(const void *)a->qkv + (size_t)pb * 64 * 3 * dm + (size_t)h * dh;
    K = Q + dm;
    qs = (size_t)3 * dm;
  }
  amx_pack(a, h, pb, more, D, direct ? NULL : s->qb, direct ? NULL : s->kb, s->kv, s->vv);
  if (ek) key_terms(K, qs, ek, s, nc);
  for (int qb = 0; qb < 4; qb++) {
    const int q0 = 16 * qb;
    /* S = P gathered (or zeros), then Q K^T added on the tiles. */
    if (eq) {
      relative_block(Q + q0 * qs, qs * 2, eq, 2 * qb, s->b, nc);
      for (int r = 0; r < 16; r++) {
        /* rank(q) - rank(k) + 7 - 2 qb = r / 8 - rank(k) + 7; column
         * file(k) - file(q) + 7 of that rank row. */
        const float *row = s->b + (size_t)r * WIDTH + 7 - (r & 7);
        for (int rk = 0; rk < 8; rk++)
          _mm256_store_ps(s->s + (size_t)r * 64 + 8 * rk,
                          _mm256_loadu_ps(row + 16 * ((r >> 3) - rk + 7)));
      }
      LOAD4(s->s, 64, 256);
    } else {
      ZERO4();
    }
    for (int ch = 0; ch < nc; ch++)
      DP4((const char *)(Q + q0 * qs + 32 * ch), qs * 2, s->kv + (size_t)16 * ch * 64, 64, 256);
    STORE4(s->s, 64, 256);
    amx_softmax_block(a, h, pb, q0, s->s, s->rt + (size_t)qb * 64 * 16, ek != NULL, s->w);
    /* O = W V. */
    ZERO4();
    for (int kc = 0; kc < 2; kc++)
      DPN(nd, (const char *)(s->w + 32 * kc), 128, s->vv + (size_t)16 * kc * D, 64, D * 4);
    if (ev) {
      /* W'[r][16 (r / 8 - rank(k) + 7) + file(k) - file(q) + 7] = W[r][k];
       * pairs of rank rows qb .. qb + 4 of the table. */
      const __m512i zero = _mm512_setzero_si512();
      for (int r = 0; r < 16; r++) {
        uint16_t *row = s->wp + (size_t)r * WCOLS;
        for (int c = 0; c < WCOLS; c += 32) _mm512_store_si512(row + c, zero);
        for (int rk = 0; rk < 8; rk++)
          _mm_storeu_si128((__m128i *)(void *)(row + 16 * ((r >> 3) - rk + 7) + 7 - (r & 7)),
                           _mm_load_si128((const __m128i *)(const void *)(s->w + r * 64 + 8 * rk)));
      }
      for (int c = 0; c < WPAIRS; c++)
        DPN(nd, (const char *)(s->wp + 32 * c), WCOLS * 2,
            ev + (size_t)(qb + c) * (D / 16) * 512, 1024, 64);
    }
    STOREN(nd, s->o, 64, D * 4);
    for (int r = 0; r < 16; r++)
      amx_store_out(a, s->o + (size_t)r * D,
                    ((size_t)pb * 64 + (size_t)(q0 + r)) * dm + (size_t)h * dh);
  }
}

void cf_amx_attention_position(const cf_attention_args *a, int h, int pb, bool more,
                               const uint16_t *eq, const uint16_t *ek, const uint16_t *ev,
                               void *scratch_base) {
  const int D = cf_amx_depth_pad(a->depth);
  const scratch s = carve(scratch_base, D);
  amx_configure();
  /* Heads of 16 or fewer need one block of output depths (the padding to
   * 32 is for the products over depth). */
  if (a->depth <= 16) run(a, h, pb, more, eq, ek, ev, &s, 32, 1, 1);
  else if (D == 32) run(a, h, pb, more, eq, ek, ev, &s, 32, 1, 2);
  else run(a, h, pb, more, eq, ek, ev, &s, 64, 2, 4);
  _tile_release();
}
