/* cf_onednn_precision.h: the oneDNN backend's reduced precisions (bf16,
 * int8): whether this CPU runs them, converting a weight once at load, and
 * converting a projection's input on each call.
 *
 * bf16: weights and inputs rounded to bfloat16 (nearest even), products
 * accumulated and written in float32. int8: weights symmetric s8 with one
 * scale per output channel (w ~ q * scale, |q| <= 127), inputs s8 with one
 * scale per row computed on each call (x ~ q * scale), int32 accumulation,
 * float32 output. The inputs go to the matmul as u8, q + 128, as VNNI and
 * AMX multiply unsigned by signed bytes, and 128 times each weight row's
 * sum is taken off the products after: the same integers as s8 x s8, for
 * which oneDNN would add and compensate the 128 itself, slower. With bf16 the attention core runs in bf16 too
 * (backends/cpu/cf_cpu_attention_bf16.c: q, k, v, the RPE tables and the
 * softmax weights rounded, float32 accumulation and softmax; an RPE table
 * with a value beyond bf16's range keeps its calls in float32). Norms,
 * activations and everything else stay float32.
 *
 * A weight that does not survive the conversion (a value that overflows
 * bf16; a non-finite value; int8 rounding error above
 * CF_ONEDNN_INT8_MAX_REL_ERR of the weight's norm, as one outlier makes
 * every other value of its channel round to 0) is kept in float32, with the
 * reason, and counted in the backend's variant string. */
#ifndef CF_ONEDNN_PRECISION_H
#define CF_ONEDNN_PRECISION_H

#include <stddef.h>
#include <stdint.h>

#include "backends/cf_backend.h"
#include "backends/cpu/cf_cpu_internal.h"
#include "common/cf_status.h"

/* Largest ||W - Q*scale|| / ||W|| (Frobenius) an int8 weight may have;
 * per-channel int8 of trained or random weights is near 0.01. */
#define CF_ONEDNN_INT8_MAX_REL_ERR 0.05

/* CF_OK when oneDNN can run p with the ISA it uses on this CPU (which
 * ONEDNN_MAX_CPU_ISA may lower); otherwise an error naming the missing ISA
 * and what oneDNN runs here. F32 always passes. */
cf_status cf_onednn_precision_check(cf_precision p, cf_error *err);

/* One MATRIX weight [out][in] converted to a precision. */
typedef struct cf_onednn_lowp {
  cf_precision precision; /* F32: kept in float32 (see why) */
  void *plain;            /* [out][in]: bf16 bits (uint16_t) or int8_t; NULL for F32 */
  float *scales;          /* int8: [out], w[o][i] ~ plain[o][i] * scales[o] */
  int32_t *u8_offset;     /* int8: [out], 128 sum_i plain[o][i] (inputs fed as u8) */
  const char *why;        /* F32 only: the reason, a static string */
} cf_onednn_lowp;

/* Converts w to p (BF16 or INT8) into *l, or keeps it in F32 with the
 * reason. CF_ERR_NOMEM only when out of memory. */
cf_status cf_onednn_lowp_make(cf_precision p, int out, int in, const float *w,
                              cf_onednn_lowp *l, cf_error *err);
void cf_onednn_lowp_free(cf_onednn_lowp *l);

/* Why f32_roles keeps a weight of this use in float32: "input embedding
 * kept in float32 (f32_roles)", "head kept in float32 (f32_roles)". */
const char *cf_onednn_role_kept_why(cf_weight_use use);

/* The MATRIX weights an instance converted and kept, for its variant
 * string: counts and each distinct reason a weight was kept for. */
enum { CF_ONEDNN_KEPT_REASONS = 6 };
typedef struct cf_onednn_tally {
  int n_lowp, n_kept;
  int n_why;
  const char *why[CF_ONEDNN_KEPT_REASONS]; /* static strings, in first-seen order */
} cf_onednn_tally;

/* Counts one weight: converted (l->precision != F32) or kept for l->why. */
void cf_onednn_tally_add(cf_onednn_tally *t, const cf_onednn_lowp *l);

/* Appends " (K of N matrices kept f32: why; why)" to buf (size bytes,
 * NUL-terminated) when any was kept; nothing otherwise. */
void cf_onednn_tally_text(const cf_onednn_tally *t, char *buf, size_t size);

/* The per-call conversions, each a row op of the context's kernel set
 * (backends/cpu/cf_cpu_kernels.h), rows split across its threads. */

/* y[i] = bf16(x[i]) (nearest even) for rows*cols values. */
void cf_onednn_to_bf16(const cf_cpu_ctx *c, int rows, int cols, const float *x, uint16_t *y);

/* Per row r: scale[r] = max|x[r][.]| / 127 (1 for a zero row) and
 * q[r][i] = round(x[r][i] / scale[r]) + 128. */
void cf_onednn_quantize_rows(const cf_cpu_ctx *c, int rows, int cols, const float *x, uint8_t *q,
                             float *scale);

/* y[r][o] = act((acc[r][o] - offset[o]) * (row_scale[r] * col_scale[o]) +
 * bias[o]) in one pass: the integer products less the u8 inputs' offset
 * (cf_onednn_lowp.u8_offset), the int8 path's input (per row) and weight (per output
 * channel) scales, then the bias (NULL: none) and the activation. */
void cf_onednn_int8_epilogue(const cf_cpu_ctx *c, int rows, int cols, const int32_t *acc,
                             const int32_t *offset, const float *row_scale,
                             const float *col_scale, const float *bias, cf_op_act act, float *y);

#endif /* CF_ONEDNN_PRECISION_H */
