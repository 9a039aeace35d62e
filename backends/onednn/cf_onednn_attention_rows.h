/* cf_onednn_attention_rows.h: the row loops of the oneDNN attention path
 * (cf_onednn_attention.h): converting rows to the products' precision,
 * the RPE tables built at upload, and one query's gathers and softmax. */
#ifndef CF_ONEDNN_ATTENTION_ROWS_H
#define CF_ONEDNN_ATTENTION_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "backends/cf_backend.h"

enum { CF_ONEDNN_RPE_T = 225 }; /* displacements, 15 x 15 */

/* Bytes per value of precision p (4, 2, 1). */
static inline size_t cf_onednn_attn_size(cf_precision p) {
  return p == CF_PRECISION_F32 ? 4 : p == CF_PRECISION_BF16 ? 2 : 1;
}

/* dst[0..n) = x[0..n) in precision p; *scale = the int8 row scale
 * (max |x| / 127, 1 for a zero row), 1 otherwise. */
void cf_onednn_attn_row(cf_precision p, int n, const float *restrict x, void *restrict dst,
                        float *scale);

/* The cols columns of x [n <= 64 rows, leading dimension ld] as rows of
 * dst [cols][n] in precision p, scale[c] each row's (as
 * cf_onednn_attn_row): read row by row, so x's rows are read once. */
void cf_onednn_attn_columns(cf_precision p, int n, int cols, const float *x, size_t ld,
                            void *dst, float *scale);

/* An RPE weight's table for the path: rows [H][T][dh] (q and k sides) or
 * [H][dh][T] (value side), one scale per row. */
typedef struct cf_onednn_rpe {
  cf_weight_role role;
  int heads, depth;
  void *rows;
  float *scale; /* [H][T] or [H][dh] */
} cf_onednn_rpe;

/* Builds *t from data [T][dh*H]; false when a value does not survive
 * the conversion (*why says which), or out of memory (*why NULL). */
bool cf_onednn_rpe_build(cf_precision p, const cf_weight_shape *shape, const float *data,
                         cf_onednn_rpe *t, const char **why);

/* The 64 queries of one (head, position): their scores from S's rows
 * (s_qk [64][64]), Rq's rows (rq [64][T], or NULL) and Rk's rows (rk
 * [64 keys][T], or NULL), each product times its rows' scales (sq[64],
 * sk[64], seq [T], sek [T]), then scale and bias ([64][64], NULL: none),
 * softmax (the portable set's exp), and the weights out in precision p
 * (under int8 as u8, scale max / 255): a [64][64], and where ap is not
 * NULL the same scattered to their displacements, ap [64][T] (zeros
 * elsewhere); sa[64] their scales. */
void cf_onednn_attn_task(cf_precision p, const float *s_qk, const float *sq, const float *sk,
                         const float *rq, const float *seq, const float *rk, const float *sek,
                         float scale, const float *bias, void *a, void *ap, float *sa);

#endif /* CF_ONEDNN_ATTENTION_ROWS_H */
