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
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/amx/cf_amx_tiles.h"
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


/* One task, a block of 16 queries at a time, so that the scores, weights
 * and outputs of all slots take a quarter of the scratch (a whole head's
 * were a megabyte; no change in speed measured); nc depth chunks and nd
 * value blocks of D. */
static inline __attribute__((always_inline)) void run(const cf_attention_args *a, int h, int b0,
                                                      int n, const uint16_t *eq,
                                                      const uint16_t *ek, const uint16_t *ev,
                                                      const scratch *s, int D, int nc, int nd) {
  const size_t qk_slot = s->qk * 2, s_slot = s->sr * 4, w_slot = s->ws * 2, o_slot = s->os * 4;
  for (int b = 0; b < n; b++)
    amx_pack(a, h, b0 + b, b + 1 < n, D, s->qb + b * s->qk, s->kb + b * s->qk,
             s->kv + (size_t)b * (D / 2) * 64, s->vv + (size_t)b * 32 * D);
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
      amx_softmax_block(a, h, b0 + b, q0, S, s->rt + b * s->sr, ek != NULL, W);
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
      for (int r = 0; r < 16; r++)
        amx_store_out(a, s->o + b * s->os + (size_t)r * D,
                      ((size_t)(b0 + b) * 64 + (size_t)(q0 + r)) * dm + (size_t)h * dh);
  }
}

void cf_amx_attention_group(const cf_attention_args *a, int h, int b0, int n, const uint16_t *eq,
                            const uint16_t *ek, const uint16_t *ev, void *scratch_base) {
  const int D = cf_amx_depth_pad(a->depth);
  const scratch s = carve(scratch_base, D);
  amx_configure();
  if (D == 32) run(a, h, b0, n, eq, ek, ev, &s, 32, 1, 2);
  else run(a, h, b0, n, eq, ek, ev, &s, 64, 2, 4);
  _tile_release();
}
