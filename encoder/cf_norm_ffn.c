/* cf_norm_ffn.c: the small building blocks: weight upload with a size
 * check, norms and the two-layer FFN. */
#include <stddef.h>

#include "encoder/cf_encoder_internal.h"

static cf_status upload(cf_backend *be, cf_weight_use use, cf_weight_role role, int heads,
                        int rows, int cols, const cf_tensor *t, const char *what,
                        cf_bweight **out, cf_error *err) {
  *out = NULL;
  if (!cf_tensor_present(t)) return CF_OK;
  if (t->n != (size_t)rows * (size_t)cols)
    return cf_error_set(err, CF_ERR_FORMAT, "%s has %zu values, expected %d x %d", what, t->n, rows,
                        cols);
  if (cf_weight_role_is_rpe(role))
    return cf_op_weight_rpe(be, role, heads, rows, cols, t->data, out, err);
  return cf_op_weight_use(be, use, role, rows, cols, t->data, out, err);
}

cf_status cf_enc_weight_heads(cf_backend *be, cf_weight_role role, int heads, int rows, int cols,
                              const cf_tensor *t, const char *what, cf_bweight **out,
                              cf_error *err) {
  return upload(be, CF_WEIGHT_USE_BODY, role, heads, rows, cols, t, what, out, err);
}

cf_status cf_enc_weight_embedding(cf_backend *be, int rows, int cols, const cf_tensor *t,
                                  const char *what, cf_bweight **out, cf_error *err) {
  return upload(be, CF_WEIGHT_USE_INPUT_EMBEDDING, CF_WEIGHT_MATRIX, 0, rows, cols, t, what, out,
                err);
}

cf_status cf_enc_weight(cf_backend *be, cf_weight_role role, int rows, int cols, const cf_tensor *t,
                        const char *what, cf_bweight **out, cf_error *err) {
  return cf_enc_weight_heads(be, role, 0, rows, cols, t, what, out, err);
}

cf_status cf_norm_upload(cf_backend *be, const cf_tensor *gammas, const cf_tensor *betas, int width,
                         float eps, const char *what, cf_norm *n, cf_error *err) {
  n->kind = cf_tensor_present(betas) ? CF_NORM_LAYER : CF_NORM_RMS;
  n->width = width;
  n->eps = eps;
  if (!cf_tensor_present(gammas))
    return cf_error_set(err, CF_ERR_FORMAT, "%s: norm gammas are missing", what);
  CF_TRY(cf_enc_weight(be, CF_WEIGHT_VECTOR, 1, width, gammas, what, &n->gamma, err));
  return cf_enc_weight(be, CF_WEIGHT_VECTOR, 1, width, betas, what, &n->beta, err);
}

void cf_norm_forward(cf_backend *be, const cf_norm *n, int rows, const float *x, float alpha,
                     const float *skip, float *y) {
  cf_op_norm(be, n->kind, rows, n->width, x, alpha, skip, n->gamma, n->beta, n->eps, y);
}

void cf_norm_forward_bf16(cf_backend *be, const cf_norm *n, int rows, const float *x,
                          float alpha, const float *skip, float *y, cf_bf16 *yb) {
  cf_op_norm_bf16(be, n->kind, rows, n->width, x, alpha, skip, n->gamma, n->beta, n->eps, y, yb);
}

void cf_norm_release(cf_backend *be, cf_norm *n) {
  cf_op_weight_free(be, n->gamma);
  cf_op_weight_free(be, n->beta);
  n->gamma = n->beta = NULL;
}

cf_status cf_ffn_upload(cf_backend *be, const cf_ffn_weights *w, int d, cf_op_act act,
                        const char *what, cf_ffn *f, cf_error *err) {
  f->d = d;
  f->dff = (int)(w->dense1_w.n / (size_t)d);
  f->act = act;
  if (f->dff <= 0) return cf_error_set(err, CF_ERR_FORMAT, "%s: dense1_w is missing", what);
  CF_TRY(cf_enc_weight(be, CF_WEIGHT_MATRIX, f->dff, d, &w->dense1_w, what, &f->w1, err));
  CF_TRY(cf_enc_weight(be, CF_WEIGHT_VECTOR, 1, f->dff, &w->dense1_b, what, &f->b1, err));
  CF_TRY(cf_enc_weight(be, CF_WEIGHT_MATRIX, d, f->dff, &w->dense2_w, what, &f->w2, err));
  CF_TRY(cf_enc_weight(be, CF_WEIGHT_VECTOR, 1, d, &w->dense2_b, what, &f->b2, err));
  if (!f->w2) return cf_error_set(err, CF_ERR_FORMAT, "%s: dense2_w is missing", what);
  return CF_OK;
}

void cf_ffn_forward(cf_backend *be, const cf_ffn *f, int rows, const float *x, float *hidden,
                    float *y) {
  /* hidden[rows][dff] = act(x W1^T + b1) */
  cf_op_linear(be, rows, f->d, f->dff, x, f->w1, f->b1, f->act, hidden);
  /* y[rows][d] = hidden W2^T + b2 */
  cf_op_linear(be, rows, f->dff, f->d, hidden, f->w2, f->b2, CF_OP_ACT_NONE, y);
}

void cf_ffn_forward_bf16(cf_backend *be, const cf_ffn *f, int rows, const cf_bf16 *x,
                         cf_bf16 *hidden, float *y) {
  cf_op_linear_bf16(be, rows, f->d, f->dff, x, true, f->w1, f->b1, f->act, hidden, true);
  cf_op_linear_bf16(be, rows, f->dff, f->d, hidden, true, f->w2, f->b2, CF_OP_ACT_NONE, y, false);
}

void cf_ffn_release(cf_backend *be, cf_ffn *f) {
  cf_op_weight_free(be, f->w1);
  cf_op_weight_free(be, f->b1);
  cf_op_weight_free(be, f->w2);
  cf_op_weight_free(be, f->b2);
  f->w1 = f->b1 = f->w2 = f->b2 = NULL;
}
