/* cf_smolgen.c: smolgen, the per-position attention bias (NETWORK.md
 * section 5): the board is compressed to a small vector, which generates,
 * through one matrix shared by all layers, an additive 64x64 score bias per
 * head. */
#include "encoder/cf_encoder_internal.h"

cf_status cf_smolgen_upload(cf_backend *be, const cf_smolgen_weights *w, const cf_net_arch *a,
                            const char *what, cf_smolgen *s, cf_error *err) {
  const int d = a->d, H = a->heads;
  s->hc = a->smolgen_hc;
  s->hs = a->smolgen_hs;
  s->gs = a->smolgen_gs;
  s->act = (cf_op_act)a->smolgen_act;
  CF_TRY(cf_enc_weight(be, CF_WEIGHT_MATRIX, s->hc, d, &w->compress, what, &s->compress, err));
  CF_TRY(cf_enc_weight(be, CF_WEIGHT_MATRIX, s->hs, 64 * s->hc, &w->dense1_w, what, &s->w1, err));
  CF_TRY(cf_enc_weight(be, CF_WEIGHT_VECTOR, 1, s->hs, &w->dense1_b, what, &s->b1, err));
  CF_TRY(cf_norm_upload(be, &w->ln1_gammas, &w->ln1_betas, s->hs, CF_SMOLGEN_NORM_EPS, what,
                        &s->ln1, err));
  CF_TRY(cf_enc_weight(be, CF_WEIGHT_MATRIX, H * s->gs, s->hs, &w->dense2_w, what, &s->w2, err));
  CF_TRY(cf_enc_weight(be, CF_WEIGHT_VECTOR, 1, H * s->gs, &w->dense2_b, what, &s->b2, err));
  CF_TRY(cf_norm_upload(be, &w->ln2_gammas, &w->ln2_betas, H * s->gs, CF_SMOLGEN_NORM_EPS, what,
                        &s->ln2, err));
  if (!s->compress || !s->w1 || !s->w2)
    return cf_error_set(err, CF_ERR_FORMAT, "%s: smolgen weights are incomplete", what);
  return CF_OK;
}

void cf_smolgen_forward(cf_backend *be, const cf_smolgen *s, const cf_bweight *global,
                        const cf_bweight *gb, int batch, int d, int heads, const float *x,
                        cf_encoder_ws *ws) {
  /* c[batch*64][hc] = x compress^T (no bias), read as [batch][64*hc] */
  cf_op_linear(be, batch * 64, d, s->hc, x, s->compress, NULL, CF_OP_ACT_NONE, ws->sg_c);
  /* h1[batch][hs] = LN(act(c W1^T + b1)) */
  cf_op_linear_positions(be, batch, 1, 64 * s->hc, s->hs, ws->sg_c, s->w1, s->b1, s->act,
                         ws->sg_h1);
  cf_norm_forward(be, &s->ln1, batch, ws->sg_h1, 1.0f, NULL, ws->sg_h1);
  /* h2[batch][H*gs] = LN(act(h1 W2^T + b2)), read as [batch*H][gs] */
  cf_op_linear_positions(be, batch, 1, s->hs, heads * s->gs, ws->sg_h1, s->w2, s->b2, s->act,
                         ws->sg_h2);
  cf_norm_forward(be, &s->ln2, batch, ws->sg_h2, 1.0f, NULL, ws->sg_h2);
  /* bias[batch*H][64*64] = h2 global^T: G[h][q*64 + k] */
  cf_op_linear_positions(be, batch, heads, s->gs, 64 * 64, ws->sg_h2, global, gb, CF_OP_ACT_NONE,
                         ws->sg_bias);
}

void cf_smolgen_release(cf_backend *be, cf_smolgen *s) {
  cf_op_weight_free(be, s->compress);
  cf_op_weight_free(be, s->w1);
  cf_op_weight_free(be, s->b1);
  cf_norm_release(be, &s->ln1);
  cf_op_weight_free(be, s->w2);
  cf_op_weight_free(be, s->b2);
  cf_norm_release(be, &s->ln2);
  s->compress = s->w1 = s->b1 = s->w2 = s->b2 = NULL;
}
