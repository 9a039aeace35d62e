/* cf_wasm_attention.c: the attention core's arithmetic in SIMD128, on the
 * shared tables (cf_cpu_attention_layout.h). Where the portable set takes
 * the pair of queries the driver hands it one at a time, this takes both
 * at once, so each key and table row loaded serves two queries: scores a
 * key rank (8 keys, two vectors) per step over depth, weighted values 4
 * depths of both outputs per step over the 64 keys. Every lane adds in the
 * portable set's order (SIMD128 has no fused multiply-add), so the results
 * equal the portable set's bit for bit, the softmax too (cf_wasm_math.h). */
#include <stddef.h>
#include <wasm_simd128.h>

#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/portable/cf_portable.h"
#include "backends/cpu/wasm/cf_wasm.h"
#include "backends/cpu/wasm/cf_wasm_math.h"

enum { TABLE = CF_CPU_RPE_TABLE };

#define LD(p) wasm_v128_load(p)
#define ADD wasm_f32x4_add
#define MUL wasm_f32x4_mul

/* s0 (query Q0, tables at eq/ek) and s1 (Q1, tables 15 entries before)
 * for the keys of ranks 4 half .. 4 half + 3, over depth dh; use_q, use_k
 * constant after inlining (CF_CPU_DEFINE_SCORES_PAIR). */
static inline __attribute__((always_inline)) void scores2(int dh, const float *Q0,
                                                          const float *Q1, const float *kt,
                                                          const float *eq, const float *ek,
                                                          int use_q, int use_k, int half,
                                                          float *s0, float *s1) {
  for (int r = 4 * half; r < 4 * half + 4; r++) {
    v128_t a0 = wasm_f32x4_splat(0.0f), a1 = a0, b0 = a0, b1 = a0; /* a: Q0, b: Q1 */
    for (int i = 0; i < dh; i++) {
      const float *kr = kt + (size_t)i * 64 + 8 * r;
      const v128_t k0 = LD(kr), k1 = LD(kr + 4);
      const v128_t q0 = wasm_f32x4_splat(Q0[i]), q1 = wasm_f32x4_splat(Q1[i]);
      const size_t at = (size_t)i * TABLE + 15 * r;
      if (use_q) {
        const float *e = eq + at;
        a0 = ADD(a0, MUL(q0, ADD(k0, LD(e))));
        a1 = ADD(a1, MUL(q0, ADD(k1, LD(e + 4))));
        b0 = ADD(b0, MUL(q1, ADD(k0, LD(e - 15))));
        b1 = ADD(b1, MUL(q1, ADD(k1, LD(e - 11))));
      } else {
        a0 = ADD(a0, MUL(q0, k0));
        a1 = ADD(a1, MUL(q0, k1));
        b0 = ADD(b0, MUL(q1, k0));
        b1 = ADD(b1, MUL(q1, k1));
      }
      if (use_k) {
        const float *e = ek + at;
        a0 = ADD(a0, MUL(k0, LD(e)));
        a1 = ADD(a1, MUL(k1, LD(e + 4)));
        b0 = ADD(b0, MUL(k0, LD(e - 15)));
        b1 = ADD(b1, MUL(k1, LD(e - 11)));
      }
    }
    wasm_v128_store(s0 + 8 * r, a0);
    wasm_v128_store(s0 + 8 * r + 4, a1);
    wasm_v128_store(s1 + 8 * r, b0);
    wasm_v128_store(s1 + 8 * r + 4, b1);
  }
}

CF_CPU_DEFINE_SCORES_PAIR(scores2, float, float)

/* As the portable set: scale, add the bias row (or NULL), softmax; four
 * lanes at a time, each rounded as the portable code rounds it. */
static void finish_scores(float *s, float scale, const float *bias) {
  const v128_t vs = wasm_f32x4_splat(scale);
  for (int k = 0; k < 64; k += 4) {
    v128_t v = MUL(LD(s + k), vs);
    if (bias) v = ADD(v, LD(bias + k));
    wasm_v128_store(s + k, v);
  }
  const v128_t inv = wasm_f32x4_splat(1.0f / cf_wasm_softmax_exp(s));
  for (int k = 0; k < 64; k += 4) wasm_v128_store(s + k, MUL(LD(s + k), inv));
}

/* o0[dh] = sum_k a0[k] (v_k + ev[base0 - off(k)]), o1 likewise, 4 depths
 * of both at a time (the sums stay in registers over the 64 keys). */
static void weighted_values_pair(int dh, const float *a0, const float *a1, const float *v,
                                 size_t ld, const float *ev, int base0, int base1, float *o0,
                                 float *o1) {
  int i = 0;
  for (; i + 4 <= dh; i += 4) {
    v128_t x = wasm_f32x4_splat(0.0f), y = x;
    for (int k = 0; k < 64; k++) {
      const v128_t vk = LD(v + (size_t)k * ld + i);
      const v128_t w0 = wasm_f32x4_splat(a0[k]), w1 = wasm_f32x4_splat(a1[k]);
      if (ev) {
        const int off = cf_cpu_key_off(k);
        x = ADD(x, MUL(w0, ADD(vk, LD(ev + (size_t)(base0 - off) * dh + i))));
        y = ADD(y, MUL(w1, ADD(vk, LD(ev + (size_t)(base1 - off) * dh + i))));
      } else {
        x = ADD(x, MUL(w0, vk));
        y = ADD(y, MUL(w1, vk));
      }
    }
    wasm_v128_store(o0 + i, x);
    wasm_v128_store(o1 + i, y);
  }
  for (; i < dh; i++) {
    float x = 0.0f, y = 0.0f;
    for (int k = 0; k < 64; k++) {
      const float vk = v[(size_t)k * ld + i];
      if (ev) {
        const int off = cf_cpu_key_off(k);
        x += a0[k] * (vk + ev[(size_t)(base0 - off) * dh + i]);
        y += a1[k] * (vk + ev[(size_t)(base1 - off) * dh + i]);
      } else {
        x += a0[k] * vk;
        y += a1[k] * vk;
      }
    }
    o0[i] = x;
    o1[i] = y;
  }
}

const cf_cpu_attention_math cf_wasm_attention_math = {
    .scores_pair = scores_pair,
    .finish_scores = finish_scores,
    .weighted_values_pair = weighted_values_pair,
    .dot_rpe = cf_portable_dot_rpe, /* the plain path: a scalar sum */
};
