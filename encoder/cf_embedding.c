/* cf_embedding.c: from 112 input planes to d-wide tokens (NETWORK.md
 * section 4).
 *   PE_MAP / "old": x[t] = 112 features (+ Lc0's 64 positional channels when
 *     F = 176); e[t] = act(W x[t] + b).
 *   PE_DENSE: pre = W_pre (piece planes 0..11 as [64][12]) + b_pre, viewed as
 *     [64][s]; x[t] = 112 features | pre[t]; e = Norm(act(W x + b)).
 *   Then gating, and for PE_DENSE e = Norm(e + alpha FFN(e)). */
#include <string.h>

#include "encoder/cf_encoder_internal.h"
#include "encoder/cf_pos_table.h"

#define PIECE_PLANES 12

cf_status cf_embedding_upload(cf_backend *be, const cf_weights *w, cf_embedding *e, cf_error *err) {
  const cf_net_arch *a = &w->arch;
  const int d = a->d;
  e->inputs = a->emb_inputs;
  e->dense_s = a->emb_dense_s;
  e->act = (cf_op_act)a->default_act;
  if (e->inputs != CF_PLANE_COUNT + e->dense_s &&
      !(e->dense_s == 0 && e->inputs == CF_PLANE_COUNT + CF_POS_TABLE_CHANNELS))
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "embedding: %d inputs per square (expected 112, 176 or 112 + %d)",
                        e->inputs, e->dense_s);
  if (e->dense_s > 0) {
    CF_TRY(cf_enc_weight_embedding(be, 64 * e->dense_s, 64 * PIECE_PLANES, &w->ip_emb_preproc_w,
                                   "ip_emb_preproc_w", &e->pre_w, err));
    CF_TRY(cf_enc_weight(be, CF_WEIGHT_VECTOR, 1, 64 * e->dense_s, &w->ip_emb_preproc_b,
                         "ip_emb_preproc_b", &e->pre_b, err));
  }
  /* The projections reading the input planes are the embedding's use
   * (a backend may keep them float32: fractional planes such as the
   * 50-move counter get few steps in int8); its FFN is a body weight. */
  CF_TRY(cf_enc_weight_embedding(be, d, e->inputs, &w->ip_emb_w, "ip_emb_w", &e->w, err));
  CF_TRY(cf_enc_weight(be, CF_WEIGHT_VECTOR, 1, d, &w->ip_emb_b, "ip_emb_b", &e->b, err));
  e->has_norm = cf_tensor_present(&w->ip_emb_ln_gammas);
  if (e->has_norm) {
    cf_norm_kind k = cf_tensor_present(&w->ip_emb_ln_betas) ? CF_NORM_LAYER : CF_NORM_RMS;
    CF_TRY(cf_norm_upload(be, &w->ip_emb_ln_gammas, &w->ip_emb_ln_betas, d,
                          cf_encoder_norm_eps(a, k), "ip_emb_ln", &e->norm, err));
  }
  CF_TRY(cf_enc_weight(be, CF_WEIGHT_GATE, d, 64, &w->ip_mult_gate, "ip_mult_gate", &e->mult_gate,
                       err));
  CF_TRY(
      cf_enc_weight(be, CF_WEIGHT_GATE, d, 64, &w->ip_add_gate, "ip_add_gate", &e->add_gate, err));
  e->has_ffn = cf_tensor_present(&w->ip_emb_ffn.dense1_w);
  if (e->has_ffn) {
    CF_TRY(cf_ffn_upload(be, &w->ip_emb_ffn, d, (cf_op_act)a->ffn_act, "ip_emb_ffn", &e->ffn, err));
    cf_norm_kind k = cf_tensor_present(&w->ip_emb_ffn_ln_betas) ? CF_NORM_LAYER : CF_NORM_RMS;
    CF_TRY(cf_norm_upload(be, &w->ip_emb_ffn_ln_gammas, &w->ip_emb_ffn_ln_betas, d,
                          cf_encoder_norm_eps(a, k), "ip_emb_ffn_ln", &e->ffn_norm, err));
  }
  return CF_OK;
}

void cf_embedding_release(cf_backend *be, cf_embedding *e) {
  cf_op_weight_free(be, e->pre_w);
  cf_op_weight_free(be, e->pre_b);
  cf_op_weight_free(be, e->w);
  cf_op_weight_free(be, e->b);
  if (e->has_norm) cf_norm_release(be, &e->norm);
  cf_op_weight_free(be, e->mult_gate);
  cf_op_weight_free(be, e->add_gate);
  if (e->has_ffn) {
    cf_ffn_release(be, &e->ffn);
    cf_norm_release(be, &e->ffn_norm);
  }
}

/* tokens[64][F] of one position: feature j < 112 of token t = plane j at
 * square t; with F = 176 the positional table fills features 112..175;
 * PE_DENSE columns 112.. stay zero here and are filled on the backend. */
static void fill_tokens(const cf_planes *p, int F, bool pos_table, float *tokens) {
  memset(tokens, 0, (size_t)64 * F * sizeof(float));
  /* Only the set squares: most planes are sparse (a piece type, a
   * history board) and the whole 64 x 112 scan cost as much as a small
   * network's layers. */
  for (int j = 0; j < CF_PLANE_COUNT; j++)
    for (uint64_t m = p->mask[j]; m; m &= m - 1)
      tokens[__builtin_ctzll(m) * F + j] = p->value[j];
  if (pos_table)
    for (int t = 0; t < 64; t++)
      for (int c = 0; c < CF_POS_TABLE_CHANNELS; c++)
        tokens[t * F + CF_PLANE_COUNT + c] = cf_pos_table_at(t, c);
}

/* pieces[64][12] of one position: the current board's 12 piece planes,
 * token-major (input index t*12 + plane), values as fed (0 or 1). */
static void fill_pieces(const cf_planes *p, float *pieces) {
  for (int t = 0; t < 64; t++)
    for (int j = 0; j < PIECE_PLANES; j++)
      pieces[t * PIECE_PLANES + j] = ((p->mask[j] >> t) & 1) ? p->value[j] : 0.0f;
}

void cf_embedding_forward(cf_encoder *enc, int batch, const cf_planes *planes) {
  cf_backend *be = enc->be;
  const cf_embedding *e = &enc->emb;
  cf_encoder_ws *ws = &enc->ws;
  const int F = e->inputs, d = enc->arch.d, rows = batch * 64, s = e->dense_s;

  /* tokens[batch*64][F] on the host, then on the backend */
  for (int b = 0; b < batch; b++)
    fill_tokens(&planes[b], F, s == 0 && F > CF_PLANE_COUNT, enc->host_tokens + (size_t)b * 64 * F);
  cf_op_upload(be, ws->tokens, enc->host_tokens, (size_t)rows * F);

  if (s > 0) {
    /* pre[batch][64*s] = pieces[batch][768] W_pre^T + b_pre */
    for (int b = 0; b < batch; b++)
      fill_pieces(&planes[b], enc->host_pieces + (size_t)b * 64 * PIECE_PLANES);
    cf_op_upload(be, ws->pieces, enc->host_pieces, (size_t)batch * 64 * PIECE_PLANES);
    cf_op_linear_positions(be, batch, 1, 64 * PIECE_PLANES, 64 * s, ws->pieces, e->pre_w,
                           e->pre_b, CF_OP_ACT_NONE, ws->pre);
    /* tokens[:, 112:112+s] = pre viewed as [batch*64][s] */
    cf_op_copy_2d(be, rows, s, ws->pre, s, ws->tokens + CF_PLANE_COUNT, F);
  }

  /* x[rows][d] = act(tokens W^T + b) */
  cf_op_linear(be, rows, F, d, ws->tokens, e->w, e->b, e->act, ws->x);
  if (e->has_norm) cf_norm_forward(be, &e->norm, rows, ws->x, 1.0f, NULL, ws->x);
  if (e->mult_gate || e->add_gate) cf_op_gate(be, batch, d, ws->x, e->mult_gate, e->add_gate);
  if (e->has_ffn) {
    /* x = Norm(x + alpha FFN(x)) */
    cf_ffn_forward(be, &e->ffn, rows, ws->x, ws->hidden, ws->t);
    cf_norm_forward(be, &e->ffn_norm, rows, ws->t, enc->alpha, ws->x, ws->x);
  }
}
