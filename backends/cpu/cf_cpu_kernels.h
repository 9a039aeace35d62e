/* cf_cpu_kernels.h: the seam between the CPU backends' drivers and their
 * instruction-set specific inner kernels.
 *
 * The drivers (cf_cpu_rowops.c, cf_cpu_attention.c: threading, the loops
 * of each task, prefetching) are plain C built for the baseline of the
 * target; a kernel set brings only arithmetic.
 * Everything that wants wider vectors than the baseline sits behind one
 * table of function pointers per kernel set, each set in its own
 * translation units built with its own flags (backends/meson.build). A
 * backend instance picks one table when it is created (cf_cpu_kernels_select)
 * and reaches every kernel through it, so no instruction outside the
 * baseline runs on a CPU that lacks it.
 *
 * Adding a set: its kernels in their own files and static library with
 * its flags, one table, one line in the candidate list of
 * cf_cpu_dispatch.c. The drivers do not change. */
#ifndef CF_CPU_KERNELS_H
#define CF_CPU_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/cf_backend.h"

/* The arithmetic of the attention core (NETWORK.md section 5 steps 2-4)
 * that a kernel set brings. The loops around it, written once in
 * cf_cpu_attention.c, run one (position, head) task: transpose the head's
 * keys, make every query's 64 scores (queries in pairs on one file, q0 and
 * q0 + 8, one half of the keys at a time, prefetching the next task's rows
 * and tables meanwhile), finish each score row, and weigh the values.
 * Depths beyond CF_CPU_MAX_FAST_DEPTH take a plain path (a dot product
 * per query and key, queries in pairs q, q + 1). Indexing in
 * cf_cpu_attention_layout.h. A new number format (bf16 or int8 q/k/v)
 * is another table of these. */
typedef struct cf_cpu_attention_math {
  /* s0[32 half .. +32], s1[32 half .. +32] = q.k + q.Eq[p] + k.Ek[p] over
   * depth dh, for the queries Q0 (q0) and Q1 (q0 + 8) against the keys of
   * ranks 4 half .. 4 half + 3. kt: the head's keys transposed [dh][64],
   * 64-byte aligned; eq, ek: reversed tables [dh][225] already offset by
   * c(q0) (q0 + 8's offset is 15 less), or NULL when that term is absent.
   * s0, s1: rows of a 64-byte aligned score block. */
  void (*scores_pair)(int dh, const float *Q0, const float *Q1, const float *kt, const float *eq,
                      const float *ek, int half, float *s0, float *s1);

  /* s[64] = softmax(s * scale + bias), bias a row of 64 or NULL; s 64-byte
   * aligned. */
  void (*finish_scores)(float *s, float scale, const float *bias);

  /* o0[dh], o1[dh] = sum_k a[k] (v_k + ev[p(q, k)]) for two queries with
   * weights a0, a1 and displacement bases base0, base1: v rows at stride
   * ld, ev the head's rows table [225][dh] (NULL: no value term). */
  void (*weighted_values_pair)(int dh, const float *a0, const float *a1, const float *v,
                               size_t ld, const float *ev, int base0, int base1, float *o0,
                               float *o1);

  /* The plain path's score before scaling: sum_i Q[i] (K[i] + eq[i]) +
   * K[i] ek[i] over any depth; eq, ek: the displacement's rows of dh, or
   * NULL when absent. */
  float (*dot_rpe)(int dh, const float *Q, const float *K, const float *eq, const float *ek);

  /* Optional (NULL: the set has no joined form, and the driver calls
   * scores_pair): the scores of the 8 queries of file f (q = f + 8 rank)
   * against all 64 keys into rows q of the block S ([64][64], 64-byte
   * aligned), each bit for bit what scores_pair makes for the pairs
   * (f + 16 m, f + 16 m + 8) and both halves. Q: the head's query rows (row
   * q at Q + q * ld); kt as scores_pair; jq, jk: file f's blocks of the
   * joined tables (cf_cpu_attention_layout.h, [dh][14][16], 64-byte
   * aligned), or NULL when that term is absent. dh <=
   * CF_CPU_JOINED_MAX_DEPTH. */
  void (*scores_file)(int dh, int f, const float *Q, size_t ld, const float *kt, const float *jq,
                      const float *jk, float *S);

  /* Optional (NULL: the driver's scalar loop): the head's keys transposed,
   * kt[i * 64 + k] = K[k * ld + i] for depth i < dh and key k < 64; kt
   * 64-byte aligned. */
  void (*transpose_keys)(int dh, const float *K, size_t ld, float *kt);
} cf_cpu_attention_math;

/* The attention core in bfloat16 (the oneDNN backend's precision=bf16):
 * q, k, v, the RPE tables and the softmax weights rounded to bf16 (nearest
 * even), every product accumulated in float32; the softmax itself stays
 * float32. Same tasks and loops as the float32 core (depth <= 
 * CF_CPU_MAX_FAST_DEPTH; deeper heads keep the float32 plain path), the
 * driver in cf_cpu_attention_bf16.c. Data go in pairs of bf16 packed in a
 * 32-bit word (low half first), the operand of a bf16 dot-product
 * instruction (AVX512_BF16 vdpbf16ps: lane += a.lo b.lo + a.hi b.hi):
 * scores pair depths (2j, 2j + 1), weighted values pair keys (2m, 2m + 1).
 * An odd depth is padded with a zero. */
typedef struct cf_cpu_attention_bf16_math {
  const char *name; /* what the backend's variant shows: "avx512_bf16", "portable" */

  /* s0[32 half .. +32], s1[...] = q.k + q.Eq[p] + k.Ek[p] as in
   * scores_pair over dp = (dh + 1) / 2 depth pairs. Q0, Q1: the queries'
   * bf16 rows (2 dp values, the pad 0); kt: the keys as pairs transposed
   * [dp][64], 64-byte aligned; eq, ek: reversed pair tables [dp][225]
   * already offset by c(q0), or NULL. */
  void (*scores_pair)(int dp, const uint16_t *Q0, const uint16_t *Q1, const uint32_t *kt,
                      const uint32_t *eq, const uint32_t *ek, int half, float *s0, float *s1);

  /* The head's q, k and v (64 rows each of dh floats at stride ld) rounded
   * to bf16 as to_bf16_row and packed: qb the queries' rows of 2 dp values
   * (the pad of an odd depth 0); kt the keys' depth pairs transposed
   * [dp][64]; vp the values' key pairs [32][dh] (word (m, i) = v[2m][i],
   * v[2m + 1][i]). */
  void (*pack_qkv)(int dh, const float *q, const float *k, const float *v, size_t ld,
                   uint16_t *qb, uint32_t *kt, uint32_t *vp);

  /* A score row's softmax straight to bf16 weights, unnormalised: v = s *
   * scale + bias (bias a row of 64, or NULL), w[k] = bf16(exp(v[k] - max
   * v)) (the largest 1); returns 1 / sum_k exp(v[k] - max v), the scale
   * weighted_values_pair applies to its sums. The float32 core's
   * finish_scores and a conversion pass in one, without the normalisation.
   * s is 64-byte aligned and left as it was or overwritten. */
  float (*softmax_to_bf16)(float *s, float scale, const float *bias, uint16_t *w);

  /* o0[dh], o1[dh] = sa0 sum_k a0[k] (v_k + ev[p(q0, k)]), o1 likewise, as
   * weighted_values_pair with a0, a1 the bf16 weights [64] and sa0, sa1
   * their scales (softmax_to_bf16's); vp: the values as key pairs
   * [32][dh] (word (m, i) = v[2m][i], v[2m + 1][i]); ev: the head's pair
   * rows [225][dh] (word (p, i) = ev[p][i], ev[p - 1][i]; key 2m + 1 is
   * one displacement below key 2m) or NULL. */
  void (*weighted_values_pair)(int dh, const uint16_t *a0, const uint16_t *a1, float sa0,
                               float sa1, const uint32_t *vp, const uint32_t *ev, int base0,
                               int base1, float *o0, float *o1);
} cf_cpu_attention_bf16_math;

/* A bf16 set's table, `const cf_cpu_attention_bf16_math var`, from its
 * file's static functions, each named as its slot. */
#define CF_CPU_ATTENTION_BF16_MATH(var, set_name)                                       \
  const cf_cpu_attention_bf16_math var = {                                              \
      .name = set_name, .scores_pair = scores_pair, .pack_qkv = pack_qkv,               \
      .softmax_to_bf16 = softmax_to_bf16, .weighted_values_pair = weighted_values_pair}

/* The attention core in int8 (the oneDNN backend's precision=int8), the
 * integer parts and their conversion; the driver (cf_cpu_attention_int8.c)
 * quantizes q, k and v per call, the RPE tables are quantized once at
 * upload (cf_cpu_memory.c). Scores: q and k symmetric int8 per token row
 * (kernel set's quantize_row). VNNI's vpdpbusd multiplies u8 by s8, four
 * bytes per 32-bit lane; the queries go as u8 q + 128 and each key's sum
 * 128 sum_i k[i] is subtracted afterwards, exact in int32 (|acc| < 2^23 at
 * depth 128). This keeps four depths per instruction; vpdpwssd on s16
 * would need no correction but does only two. Depths go in quads
 * (4j .. 4j + 3), an odd depth padded with q 128, k 0. Values: the
 * softmax weights as u8 (one scale per query row, max a / 255: they are
 * in [0, 1], so unsigned needs no offset), v int8 with one scale per
 * depth column over the head's 64 keys (a scale must not depend on the
 * key, the index summed over, to come out of the sum). Keys go in quads
 * (4m .. 4m + 3) per 32-bit word. Every sum is an exact int32, converted
 * as (float)sum * (row scale * column scale).
 *
 * The RPE terms are integer sums of the same kind, each with its own
 * accumulator and scales (cf_cpu_int8_rpe). q.Eq[p]: the u8 queries
 * against the table's s8 depth quads, one scale per displacement (the
 * lane's, as a key's), the table's 128 sum_i Eq[p][i] taken out. k.Ek[p]:
 * the table as u8 (Ek + 128) against the keys' s8 quads, so the keys'
 * correction kc serves again. Value term: the u8 weights against the
 * table's s8 quads of four displacements p, p - 1, p - 2, p - 3 (the
 * four keys of a key quad sit one displacement apart), one scale per
 * depth column over the 225 displacements. A table scale is max / 127
 * over what it covers (1 when all zero). Converted and added in float32
 * in this order: s = qk + q term + k term, o = v + value term, each term
 * (float)sum * (scale * scale). */
typedef struct cf_cpu_int8_rpe {
  /* Query side, each offset by c(q0) as the float32 tables (NULL: no q
   * term): eq the reversed s8 quads [dq][225] (word (j, jj) = depths
   * 4j .. 4j + 3 of displacement 224 - jj), eqc[225] the corrections
   * 128 sum_i Eq, eqs[225] the scales. */
  const uint32_t *eq;
  const int32_t *eqc;
  const float *eqs;
  /* Key side likewise (NULL: no k term): ek the u8 quads (value + 128),
   * eks[225] the scales. */
  const uint32_t *ek;
  const float *eks;
} cf_cpu_int8_rpe;

typedef struct cf_cpu_attention_int8_math {
  const char *name; /* what the backend's variant shows: "avx512_vnni", "portable" */

  /* s0[32 half .. +32] = (float)(Q0 . kt_k - kc[k]) * (sq0 * sk[k]) plus
   * the RPE terms of t (NULL, or a field NULL: without that term), s1
   * likewise for Q1 (q0 + 8, its tables 15 entries before q0's), over the
   * keys of ranks 4 half .. 4 half + 3 and dq depth quads. Q0, Q1: u8 rows
   * (4 dq bytes, q + 128); kt: the keys' s8 quads transposed [dq][64]
   * 64-byte aligned; kc[64]: 128 sum_i k[i]; sk[64]: the key rows'
   * scales. */
  void (*scores_pair)(int dq, const uint8_t *Q0, const uint8_t *Q1, float sq0, float sq1,
                      const uint32_t *kt, const int32_t *kc, const float *sk,
                      const cf_cpu_int8_rpe *t, int half, float *s0, float *s1);

  /* Optional (NULL: the driver calls scores_pair for every pair): the
   * scores of the 8 queries of file f (q = f + 8 rank) into rows q of S
   * ([64][64], 64-byte aligned), each bit for bit what scores_pair makes
   * for the pairs (f + 16 m, f + 16 m + 8) and both halves. qb: the 64 u8
   * query rows (4 dq bytes each); sq[64] their scales; kt, kc, sk as
   * scores_pair; head: the head's tables, not offset by a query's c (its
   * quads eq, ek are not read); jq, jk: file f's blocks of the joined
   * quads (cf_cpu_attention_layout.h, [dq][14][16], 64-byte aligned), NULL
   * exactly where head's eq, ek are. dq <= (CF_CPU_JOINED_MAX_DEPTH + 3) / 4. */
  void (*scores_file)(int dq, int f, const uint8_t *qb, const float *sq, const uint32_t *kt,
                      const int32_t *kc, const float *sk, const cf_cpu_int8_rpe *head,
                      const uint32_t *jq, const uint32_t *jk, float *S);

  /* o0[dh] = (float)(sum_k a0[k] v[k][i]) * (sa0 * sv[i]) plus the value
   * term, o1 likewise: a0, a1 the u8 weights [64]; vq: the values' s8 key
   * quads [16][dh] (word (m, i) = v[4m .. 4m + 3][i]); sv[dh]: the column
   * scales; ev: the head's value table [225][dh] (word (p, i) = Ev[p][i],
   * Ev[p - 1][i], Ev[p - 2][i], Ev[p - 3][i]; key quad m reads row
   * base - off(4m)) with evs[dh] its column scales, or NULL; base0,
   * base1: the queries' displacement bases. */
  void (*weighted_values_pair)(int dh, const uint8_t *a0, const uint8_t *a1, float sa0, float sa1,
                               const uint32_t *vq, const float *sv, const uint32_t *ev,
                               const float *evs, int base0, int base1, float *o0, float *o1);

  /* A score row's softmax straight to u8 weights: v = s * scale + bias
   * (bias a row of 64, or NULL), e[k] = exp(v[k] - max v), w[k] =
   * (int)(e[k] * 255 + 0.5) (each step rounded; e <= 1, the largest 1, so
   * the largest weight is 255); returns the weights' scale 1 / (255 sum e),
   * so w[k] times it is the softmax. The float32 core's finish_scores then
   * a quantization pass in one, without the normalisation (the scale takes
   * it). s is 64-byte aligned and left as it was or overwritten. The sets'
   * exp differ in the last bits, so a weight may differ from another
   * set's by one step. */
  float (*softmax_to_u8)(float *s, float scale, const float *bias, uint8_t *w);

  /* The head's queries and keys (64 rows each of dh floats at stride ld)
   * quantized per row with quantize_row's arithmetic: sq[r], sk[r] the
   * rows' scales; qb the queries as u8 (q + 128) rows of 4 dq bytes, the
   * pad 128; kt the keys' s8 quads transposed [dq][64] (word (j, r) =
   * depths 4j .. 4j + 3 of key r, the pad 0); kc[r] = 128 sum_i k[r][i]. */
  void (*quantize_qk)(int dh, const float *q, const float *k, size_t ld, uint8_t *qb,
                      uint32_t *kt, float *sq, float *sk, int32_t *kc);

  /* The head's values v[64][dh] (rows at stride ld) per depth column:
   * sv[i] = max_k |v[k][i]| / 127 (1 for a zero column) and the word
   * (m, i) of vq [16][dh] the quad v[4m .. 4m + 3][i] * (1 / sv[i]), each
   * rounded to nearest even (quantize_row's arithmetic). */
  void (*quantize_values)(int dh, const float *v, size_t ld, uint32_t *vq, float *sv);
} cf_cpu_attention_int8_math;

/* An int8 set's table, `const cf_cpu_attention_int8_math var`, from its
 * file's static functions, each named as its slot. */
#define CF_CPU_ATTENTION_INT8_MATH(var, set_name)                                     \
  const cf_cpu_attention_int8_math var = {                                            \
      .name = set_name, .scores_pair = scores_pair, .softmax_to_u8 = softmax_to_u8,   \
      .weighted_values_pair = weighted_values_pair, .quantize_qk = quantize_qk,       \
      .quantize_values = quantize_values}
/* The same with the set's scores_file. */
#define CF_CPU_ATTENTION_INT8_MATH_FILE(var, set_name)                                \
  const cf_cpu_attention_int8_math var = {                                            \
      .name = set_name, .scores_pair = scores_pair, .scores_file = scores_file,       \
      .softmax_to_u8 = softmax_to_u8, .weighted_values_pair = weighted_values_pair,   \
      .quantize_qk = quantize_qk, .quantize_values = quantize_values}

typedef struct cf_cpu_kernels {
  /* The set's name: the value of CFORMER_CPU_KERNELS that forces it, and
   * what a backend shows ("avx512", "avx2", "portable"). */
  const char *name;

  /* y[n] = act(y + bias) in place; bias NULL = none. */
  void (*bias_act_row)(int n, float *y, const float *bias, cf_op_act act);

  /* One row of cf_backend_iface.norm: y[w] = Norm(skip + alpha x) with
   * gamma (and beta for LayerNorm; NULL for RMSNorm). y may alias x or
   * skip. */
  void (*norm_row)(cf_norm_kind kind, int w, const float *x, float alpha, const float *skip,
                   const float *gamma, const float *beta, float eps, float *y);

  /* One token of cf_backend_iface.gate: x[n] = x * mult + add in place;
   * mult or add NULL = that part absent. */
  void (*gate_row)(int n, float *x, const float *mult, const float *add);

  /* The attention core's arithmetic (the loops are the driver's). */
  const cf_cpu_attention_math *attention;

  /* c[m][n] = scale * sum_i a[m][i] b[n][i]: row-major a [m][k] and b
   * [n][k] (b's rows are c's columns, the BLAS "NT" product), c at stride
   * n. Optional (NULL): the backends on a BLAS (openblas, onednn) bring
   * their own; the backend without one (backends/wasm) runs this. */
  void (*gemm_nt)(int m, int n, int k, float scale, const float *a, const float *b, float *c);

  /* c[m][n] = a[m][k] W^T for a weight W [n][k] in panels of
   * CF_CPU_GEMM_PANEL columns (cf_cpu_internal.h, cf_cpu_gemm_panels),
   * each output its own chain of fused multiply-adds over k in order from
   * 0, so a row's
   * outputs are the same bits whatever m and the rows beside it. onednn
   * runs the layers with one row a position on it in float32
   * (cf_backend_iface.linear_positions), where a BLAS rounds a row
   * differently with the row count. Optional (NULL: onednn calls oneDNN
   * one position at a time); the avx2 and avx512 sets have it. */
  void (*gemm_rows)(int m, int n, int k, const float *a, const float *bp, float *c);

  /* The reduced-precision projections' row ops (the oneDNN backend's
   * precision=bf16|int8, backends/onednn/cf_onednn_precision.h). Every set
   * gives bit-identical results to the portable one (activations aside,
   * which differ between sets as in bias_act_row). */

  /* y[n] = the bfloat16 bits of x rounded to nearest even (a NaN stays a
   * quiet NaN of its sign; denormals round like any value). */
  void (*to_bf16_row)(int n, const float *x, uint16_t *y);

  /* Symmetric int8 of one row: returns scale = max|x| / 127 (1 for an
   * all-zero row) and writes q[i] = x[i] * (1 / scale) rounded to nearest
   * even. x finite. */
  float (*quantize_row)(int n, const float *x, int8_t *q);

  /* quantize_row's scale and values with 128 added, as bytes 1 to 255:
   * VNNI (and AMX) multiply unsigned by signed bytes, so the int8
   * projections feed their input as u8 and take 128 times each weight
   * column's sum off the products (dequant_bias_act_row's offset). */
  float (*quantize_row_u8)(int n, const float *x, uint8_t *q);

  /* The int8 projections' epilogue in one pass: y[i] = act((acc[i] -
   * offset[i]) * (row_scale * col_scale[i]) + bias[i]), the difference
   * exact in int32 and converted to float rounding to nearest even, the
   * product and the sum each rounded (no fused multiply-add), the
   * activation as bias_act_row's; bias NULL = none. */
  void (*dequant_bias_act_row)(int n, const int32_t *acc, const int32_t *offset,
                               float row_scale, const float *col_scale, const float *bias,
                               cf_op_act act, float *y);
} cf_cpu_kernels;

/* A set's table is made of its functions, named cf_<set>_<slot> (its
 * attention core cf_<set>_attention_math), so each slot is wired in one
 * place: CF_CPU_KERNEL_ROW_OPS(set) fills name, the row ops and the
 * attention core; CF_CPU_KERNEL_LOWP_OPS(set) the reduced-precision row
 * ops, which a set may take from another (wasm takes the portable ones). */
#define CF_CPU_KERNEL_ROW_OPS(set)                                                       \
  .name = #set, .bias_act_row = cf_##set##_bias_act_row, .norm_row = cf_##set##_norm_row, \
  .gate_row = cf_##set##_gate_row, .attention = &cf_##set##_attention_math
#define CF_CPU_KERNEL_LOWP_OPS(set)                                                       \
  .to_bf16_row = cf_##set##_to_bf16_row, .quantize_row = cf_##set##_quantize_row,         \
  .quantize_row_u8 = cf_##set##_quantize_row_u8,                                          \
  .dequant_bias_act_row = cf_##set##_dequant_bias_act_row

/* gemm_rows's weight layout: W [n][k] as ceil(n / 16) panels of 16
 * columns, panel p = [k][16] with element (i, j) = W[16 p + j][i], the
 * columns past n zero; 64-byte aligned (cf_cpu_alloc). Each step of the
 * product reads one 64-byte row of a panel, in order. */
enum { CF_CPU_GEMM_PANEL = 16 };
static inline size_t cf_cpu_gemm_panels_floats(int n, int k) {
  return (size_t)(n + CF_CPU_GEMM_PANEL - 1) / CF_CPU_GEMM_PANEL * CF_CPU_GEMM_PANEL * (size_t)k;
}

/* The body of a set's gemm_rows: its always-inlined rows(R, n, k, a, bp,
 * c) kernel over blocks of four rows, then the last one to three rows with
 * R a constant too. */
#define CF_CPU_GEMM_ROWS_BY_FOUR(rows, m, n, k, a, bp, c)                          \
  do {                                                                             \
    int r_ = 0;                                                                    \
    for (; r_ + 4 <= (m); r_ += 4)                                                 \
      rows(4, n, k, (a) + (size_t)r_ * (k), bp, (c) + (size_t)r_ * (n));           \
    const float *ar_ = (a) + (size_t)r_ * (k);                                     \
    float *cr_ = (c) + (size_t)r_ * (n);                                           \
    if ((m) - r_ == 3) rows(3, n, k, ar_, bp, cr_);                                \
    else if ((m) - r_ == 2) rows(2, n, k, ar_, bp, cr_);                           \
    else if ((m) - r_ == 1) rows(1, n, k, ar_, bp, cr_);                           \
  } while (0)

/* Largest head depth the fast path takes (its key buffer is on the stack). */
enum { CF_CPU_MAX_FAST_DEPTH = 128 };

/* Plain C, auto-vectorised for whatever the target's baseline is; runs
 * everywhere. */
extern const cf_cpu_kernels cf_cpu_kernels_portable;

#ifdef CF_CPU_HAVE_AVX2
/* AVX2 + FMA (+ F16C) intrinsics; x86 only, built with -mavx2 -mfma
 * -mf16c. Call only after cf_cpu_kernels_select chose it. */
extern const cf_cpu_kernels cf_cpu_kernels_avx2;
#endif

#ifdef CF_CPU_HAVE_WASM
/* WebAssembly SIMD128 intrinsics (wasm_simd128.h); the WebAssembly build
 * only, built with -msimd128. No check at run time: a browser without
 * SIMD128 refuses the whole module when it loads. */
extern const cf_cpu_kernels cf_cpu_kernels_wasm;
#endif

#ifdef CF_CPU_HAVE_AVX512
/* AVX-512 F/DQ/BW/VL + FMA intrinsics; x86-64 only, built with
 * -mavx512f -mavx512dq -mavx512bw -mavx512vl -mfma. Call only after
 * cf_cpu_kernels_select chose it (CPU and OS checked). */
extern const cf_cpu_kernels cf_cpu_kernels_avx512;
#endif

/* The bf16 attention core: portable C everywhere, the twin of the
 * portable float32 one, and the test oracle of the others. */
extern const cf_cpu_attention_bf16_math cf_cpu_attention_bf16_portable;

#ifdef CF_CPU_HAVE_AVX512BF16
/* AVX512_BF16 dot products (vdpbf16ps) on the avx512 set's loops; built
 * with the avx512 flags and -mavx512bf16. Only through
 * cf_cpu_attention_bf16_select. */
extern const cf_cpu_attention_bf16_math cf_cpu_attention_bf16_avx512;
#endif

/* The bf16 attention core for kernel set k: the avx512 one when k is the
 * avx512 set and this CPU has AVX512_BF16, else the portable one. */
const cf_cpu_attention_bf16_math *cf_cpu_attention_bf16_select(const cf_cpu_kernels *k);

/* The int8 attention core: portable C (the oracle of the others; runs
 * only where the portable set is forced or the only one) and AVX512_VNNI. */
extern const cf_cpu_attention_int8_math cf_cpu_attention_int8_portable;

#ifdef CF_CPU_HAVE_AVX512VNNI
/* vpdpbusd on the avx512 set's loops; built with the avx512 flags and
 * -mavx512vnni. Only through cf_cpu_attention_int8_select. */
extern const cf_cpu_attention_int8_math cf_cpu_attention_int8_avx512;
#endif

/* The int8 attention core for kernel set k: the avx512 one when k is the
 * avx512 set and this CPU has AVX512_VNNI, the portable one when k is the
 * portable set, else NULL (the float32 attention runs: no fast integer
 * dot product on this set). */
const cf_cpu_attention_int8_math *cf_cpu_attention_int8_select(const cf_cpu_kernels *k);

/* The kernel set for a new backend instance: the one CFORMER_CPU_KERNELS
 * names if set (failing, with a message naming what this CPU lacks, when
 * it cannot run it or the name is unknown), else the fastest this CPU
 * runs. */
cf_status cf_cpu_kernels_select(const cf_cpu_kernels **out, cf_error *err);

#endif /* CF_CPU_KERNELS_H */
