/* cf_cpu_attention_int8.c: the attention op in int8 (cf_cpu_kernels.h,
 * cf_cpu_attention_int8_math), the oneDNN backend's precision=int8. The
 * same (position, head) tasks, head-major with RPE, as the float32 and
 * bf16 drivers (cf_cpu_attention_tasks). Per task: the head's q and k rows
 * quantized per token (the kernel set's quantize_row, the projections'
 * int8), v per depth column (the int8 core's quantize_values), packed in
 * quads; then the integer scores (the set's int8 core), the
 * RPE q and k terms added in float32 (the float32 core's rpe_scores_pair,
 * on the unquantized q and k and the float32 tables: a table entry is
 * added, not multiplied into a sum of many, so its rounding would not be
 * shared out), the float32 softmax (finish_scores), the weights quantized
 * per row to u8, the integer weighted values, and the RPE value term in
 * float32 (the float32 core's rpe_values_pair, on the float32 weights).
 * Those float32 terms cost as many FMAs as in the float32 core, so with
 * the key term (which also needs the keys transposed in float32) the op
 * is slower than the float32 one: such calls are taken only when the
 * backend asks (c->attention_int8_rpe_k). Plain C: every vector
 * instruction is in the kernel sets. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_attention_task.h"
#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_kernels.h"

enum { MAXD = CF_CPU_MAX_FAST_DEPTH, MAXQ = MAXD / 4 };

/* What every task of one call shares: the float32 RPE tables (NULL: the
 * term is absent), q and k reversed [H][dh][225], v rows [H][225][dh]. */
typedef struct int8_env {
  const cf_cpu_kernels *kern;
  const cf_cpu_attention_int8_math *m;
  const float *eq, *ek, *ev;
} int8_env;

static inline uint32_t quad(const int8_t *x) {
  uint32_t w;
  memcpy(&w, x, sizeof w);
  return w;
}

/* 64 rows of dh floats at stride ld quantized (per row) into rows of
 * `width` bytes, the pad 0, with their scales; sums[r] = 128 sum_i x[r][i]
 * when sums is given. */
static void quantize_rows(const cf_cpu_kernels *kern, int dh, const float *x, size_t ld,
                          int8_t *y, int width, float *scale, int32_t *sums) {
  for (int r = 0; r < 64; r++) {
    int8_t *row = y + (size_t)r * width;
    scale[r] = kern->quantize_row(dh, x + (size_t)r * ld, row);
    memset(row + dh, 0, (size_t)(width - dh));
    if (sums) {
      int32_t s = 0;
      for (int i = 0; i < dh; i++) s += row[i];
      sums[r] = 128 * s;
    }
  }
}

/* One (b, h) task (a cf_cpu_task_fn; next_h, next as the float32
 * driver's). */
static void attend(const void *env, const cf_attention_args *a, cf_cpu_task task, int next_h,
                   bool cold, cf_cpu_task next) {
  (void)cold;
  const int8_env *e = env;
  const cf_cpu_kernels *kern = e->kern;
  const cf_cpu_attention_math *f = kern->attention;
  const int b = task.b, h = task.h, H = a->heads, dh = a->depth, dq = (dh + 3) / 4;
  const int dm = H * dh, ld = 3 * dm;
  const float *tok = a->qkv + (size_t)b * 64 * ld + (size_t)h * dh;
  float *out = a->out + (size_t)b * 64 * dm + (size_t)h * dh;
  const float *eq = cf_cpu_head_table(e->eq, h, dh), *ek = cf_cpu_head_table(e->ek, h, dh);
  const float *ev = cf_cpu_head_table(e->ev, h, dh);
  const float *bias = a->bias ? a->bias + ((size_t)b * H + h) * 64 * 64 : NULL;
  const cf_cpu_row_prefetch pf = cf_cpu_row_prefetch_for(a->qkv, a->out, H, dh, next.b, next.h);

  /* Queries as u8 (q + 128), keys as s8 quads transposed. */
  _Alignas(64) int8_t x8[64 * 4 * MAXQ];
  _Alignas(64) uint8_t qb[64 * 4 * MAXQ];
  _Alignas(64) uint32_t kt[MAXQ * 64];
  float sq[64], sk[64];
  int32_t kc[64];
  quantize_rows(kern, dh, tok, (size_t)ld, x8, 4 * dq, sq, NULL);
  for (int i = 0; i < 64 * 4 * dq; i++) qb[i] = (uint8_t)(x8[i] + 128);
  quantize_rows(kern, dh, tok + dm, (size_t)ld, x8, 4 * dq, sk, kc);
  for (int j = 0; j < dq; j++)
    for (int k = 0; k < 64; k++) kt[j * 64 + k] = quad(x8 + k * 4 * dq + 4 * j);
  /* float32 keys transposed [dh][64] for the RPE key term (the q term
   * alone does not read them), through a compact copy: the 64 rows sit
   * 3 dm floats apart, a stride at which they share a few L1 sets, and
   * the transpose's strided loads missed (a fifth of the op at dh 32). */
  _Alignas(64) float kf[MAXD * 64], rows[64 * MAXD];
  if (ek) {
    for (int k = 0; k < 64; k++)
      memcpy(rows + k * dh, tok + dm + (size_t)k * ld, (size_t)dh * sizeof(float));
    for (int i = 0; i < dh; i++)
      for (int k = 0; k < 64; k++) kf[i * 64 + k] = rows[k * dh + i];
  }

  _Alignas(64) float S[64 * 64];
  int step = 0;
  for (int half = 0; half < 2; half++)
    for (int q = 0; q < 64; q = (q & 7) == 7 ? q + 9 : q + 1, step++) { /* ranks 0, 2, 4, 6 */
      if (next_h >= 0) {
        cf_cpu_prefetch_part(e->eq, next_h, dh, step, 64);
        cf_cpu_prefetch_part(e->ek, next_h, dh, step, 64);
        cf_cpu_prefetch_part(e->ev, next_h, dh, step, 64);
      }
      if (pf.qkv) cf_cpu_prefetch_token(&pf, step);
      float *s0 = S + q * 64, *s1 = S + (q + 8) * 64;
      e->m->scores_pair(dq, qb + q * 4 * dq, qb + (q + 8) * 4 * dq, sq[q], sq[q + 8], kt, kc, sk,
                        half, s0, s1);
      if (eq || ek) {
        const int c = CF_CPU_RPE_TABLE - 1 - cf_cpu_query_base(q); /* q + 8 is at c - 15 */
        f->rpe_scores_pair(dh, tok + (size_t)q * ld, tok + (size_t)(q + 8) * ld, kf,
                           eq ? eq + c : NULL, ek ? ek + c : NULL, half, s0, s1);
      }
    }

  /* Values per depth column, in key quads [16][dh]. */
  _Alignas(64) uint32_t vq[16 * MAXD];
  float sv[MAXD];
  e->m->quantize_values(dh, tok + 2 * dm, (size_t)ld, vq, sv);

  _Alignas(64) uint8_t w[2][64];
  float sa[2];
  for (int q = 0; q < 64; q = (q & 7) == 7 ? q + 9 : q + 1) {
    float *o0 = out + (size_t)q * dm, *o1 = out + (size_t)(q + 8) * dm;
    for (int u = 0; u < 2; u++) {
      float *s = S + (q + 8 * u) * 64;
      f->finish_scores(s, a->scale, bias ? bias + (q + 8 * u) * 64 : NULL);
      sa[u] = e->m->weights_to_u8(s, w[u]);
    }
    e->m->weighted_values_pair(dh, w[0], w[1], sa[0], sa[1], vq, sv, o0, o1);
    if (ev)
      f->rpe_values_pair(dh, S + q * 64, S + (q + 8) * 64, ev, cf_cpu_query_base(q),
                         cf_cpu_query_base(q + 8), o0, o1);
  }
}

bool cf_cpu_attention_int8(cf_cpu_ctx *c, const cf_attention_args *a) {
  int8_env e = {c->kernels, c->attention_int8, NULL, NULL, NULL};
  const cf_cpu_attention_math *f = c->kernels->attention;
  if (!e.m || a->depth > MAXD || (a->rpe_k && !c->attention_int8_rpe_k) ||
      !f->rpe_scores_pair || !f->rpe_values_pair ||
      !cf_cpu_rpe_table_of(a->rpe_q, a, true, &e.eq) ||
      !cf_cpu_rpe_table_of(a->rpe_k, a, true, &e.ek) ||
      !cf_cpu_rpe_table_of(a->rpe_v, a, false, &e.ev))
    return false;
  cf_cpu_attention_tasks(c->threads, a, attend, &e);
  return true;
}
