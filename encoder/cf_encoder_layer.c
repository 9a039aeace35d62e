/* cf_encoder_layer.c: one post-norm DeepNorm encoder layer (NETWORK.md
 * section 5):
 *   Q, K, V = X Wq^T + bq, X Wk^T + bk, X Wv^T + bv   (one fused linear)
 *   O = attention(Q, K, V; RPE q/k/v; smolgen bias)
 *   Y1 = Norm1(X + alpha (O Wd^T + bd))
 *   Y2 = Norm2(Y1 + alpha FFN(Y1)) */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encoder/cf_encoder_internal.h"

/* The q, k, v projections stacked into one [3dm][d] matrix (and [3dm]
 * bias), so a backend runs them as a single matrix product. An absent bias
 * becomes zeros: adding 0.0f changes nothing. */
static cf_status upload_qkv(cf_backend *be, const cf_mha_weights *m, int d, int dm,
                            const char *what, cf_layer *l, cf_error *err) {
  const cf_tensor *w[3] = {&m->q_w, &m->k_w, &m->v_w};
  const cf_tensor *b[3] = {&m->q_b, &m->k_b, &m->v_b};
  size_t wn = (size_t)dm * d;
  for (int i = 0; i < 3; i++) {
    if (w[i]->n != wn)
      return cf_error_set(err, CF_ERR_FORMAT, "%s: %c_w has %zu values, expected %d x %d", what,
                          "qkv"[i], w[i] -> n, dm, d);
    if (cf_tensor_present(b[i]) && b[i]->n != (size_t)dm)
      return cf_error_set(err, CF_ERR_FORMAT, "%s: %c_b has %zu values, expected %d", what,
                          "qkv"[i], b[i] -> n, dm);
  }
  bool any_bias = cf_tensor_present(b[0]) || cf_tensor_present(b[1]) || cf_tensor_present(b[2]);
  float *wcat = malloc(3 * wn * sizeof(float));        /* [3dm][d] */
  float *bcat = calloc((size_t)3 * dm, sizeof(float)); /* [3dm] */
  if (!wcat || !bcat) {
    free(wcat);
    free(bcat);
    return cf_error_set(err, CF_ERR_NOMEM, "%s: out of memory", what);
  }
  for (int i = 0; i < 3; i++) {
    memcpy(wcat + i * wn, w[i]->data, wn * sizeof(float));
    if (cf_tensor_present(b[i])) memcpy(bcat + (size_t)i * dm, b[i]->data, dm * sizeof(float));
  }
  cf_status st = cf_op_weight(be, CF_WEIGHT_MATRIX, 3 * dm, d, wcat, &l->qkv_w, err);
  if (st == CF_OK && any_bias)
    st = cf_op_weight(be, CF_WEIGHT_VECTOR, 1, 3 * dm, bcat, &l->qkv_b, err);
  free(wcat);
  free(bcat);
  return st;
}

cf_status cf_layer_upload(cf_backend *be, const cf_encoder_layer_weights *w, const cf_net_arch *a,
                          int index, cf_layer *l, cf_error *err) {
  char what[64];
  snprintf(what, sizeof what, "encoder layer %d", index + 1);
  const int d = a->d, dm = a->dm;
  const cf_mha_weights *m = &w->mha;
  CF_TRY(upload_qkv(be, m, d, dm, what, l, err));
  const int H = a->heads;
  CF_TRY(cf_enc_weight_heads(be, CF_WEIGHT_RPE_Q, H, 225, dm, &m->rpe_q, what, &l->rpe_q, err));
  CF_TRY(cf_enc_weight_heads(be, CF_WEIGHT_RPE_K, H, 225, dm, &m->rpe_k, what, &l->rpe_k, err));
  CF_TRY(cf_enc_weight_heads(be, CF_WEIGHT_RPE_V, H, 225, dm, &m->rpe_v, what, &l->rpe_v, err));
  CF_TRY(cf_enc_weight(be, CF_WEIGHT_MATRIX, d, dm, &m->dense_w, what, &l->dense_w, err));
  CF_TRY(cf_enc_weight(be, CF_WEIGHT_VECTOR, 1, d, &m->dense_b, what, &l->dense_b, err));
  if (!l->dense_w) return cf_error_set(err, CF_ERR_FORMAT, "%s: mha dense_w is missing", what);
  l->has_smolgen = m->has_smolgen;
  if (l->has_smolgen) CF_TRY(cf_smolgen_upload(be, &m->smolgen, a, what, &l->smolgen, err));
  float eps1 =
      cf_encoder_norm_eps(a, cf_tensor_present(&w->ln1_betas) ? CF_NORM_LAYER : CF_NORM_RMS);
  float eps2 =
      cf_encoder_norm_eps(a, cf_tensor_present(&w->ln2_betas) ? CF_NORM_LAYER : CF_NORM_RMS);
  CF_TRY(cf_norm_upload(be, &w->ln1_gammas, &w->ln1_betas, d, eps1, what, &l->ln1, err));
  CF_TRY(cf_ffn_upload(be, &w->ffn, d, (cf_op_act)a->ffn_act, what, &l->ffn, err));
  return cf_norm_upload(be, &w->ln2_gammas, &w->ln2_betas, d, eps2, what, &l->ln2, err);
}

void cf_layer_release(cf_backend *be, cf_layer *l) {
  cf_op_weight_free(be, l->qkv_w);
  cf_op_weight_free(be, l->qkv_b);
  cf_op_weight_free(be, l->rpe_q);
  cf_op_weight_free(be, l->rpe_k);
  cf_op_weight_free(be, l->rpe_v);
  cf_op_weight_free(be, l->dense_w);
  cf_op_weight_free(be, l->dense_b);
  if (l->has_smolgen) cf_smolgen_release(be, &l->smolgen);
  cf_norm_release(be, &l->ln1);
  cf_ffn_release(be, &l->ffn);
  cf_norm_release(be, &l->ln2);
}

/* A projection whose input (xb) and output (yb) are bf16 or float32;
 * with bf16 activations always through linear_bf16, so that the backend
 * knows a layer's projection (its output may be bf16 at another batch
 * size: q, k, v where the attention takes bf16 there). */
static void project(cf_backend *be, bool bf16, int rows, int in, int out, const void *x, bool xb,
                    const cf_bweight *w, const cf_bweight *b, float *y, bool yb) {
  if (bf16) cf_op_linear_bf16(be, rows, in, out, x, xb, w, b, CF_OP_ACT_NONE, y, yb);
  else cf_op_linear(be, rows, in, out, x, w, b, CF_OP_ACT_NONE, y);
}

/* Norm(skip + alpha x) into y, and into yb in bf16 where yb is given. */
static void norm_to(cf_backend *be, const cf_norm *n, int rows, const float *x, float alpha,
                    float *skip_y, cf_bf16 *yb) {
  if (yb) cf_norm_forward_bf16(be, n, rows, x, alpha, skip_y, skip_y, yb);
  else cf_norm_forward(be, n, rows, x, alpha, skip_y, skip_y);
}

/* The layer on `batch` positions whose residual stream starts at x (a view
 * into ws.x) and its bf16 copy at xb (a view into ws.xb; NULL without bf16
 * activations); the scratch buffers are used from their start. With bf16
 * activations the matmuls read bf16 the op before wrote (the norms' copy,
 * the FFN's hidden layer; and the attention reads q, k, v and writes its
 * output in bf16 where the backend takes them so), where float32 went
 * through memory and was converted by the matmul; each value is rounded
 * the same way at the same point, so the layer computes the same values. */
static void layer_chunk(cf_encoder *enc, const cf_layer *l, int batch, float *x, cf_bf16 *xb,
                        bool xb_in, bool xb_out) {
  cf_backend *be = enc->be;
  cf_encoder_ws chunk_ws = enc->ws;
  cf_encoder_ws *ws = &chunk_ws;
  ws->x = x;
  const int rows = batch * 64, d = enc->arch.d, dm = enc->arch.dm;
  const bool bf16 = xb != NULL;

  /* qkv[rows][3dm] = x [Wq; Wk; Wv]^T + [bq; bk; bv] */
  const bool qkv_bf16 = bf16 && cf_backend_attention_takes_bf16(be, batch, enc->arch.dh);
  project(be, bf16, rows, d, 3 * dm, xb_in ? (const void *)xb : ws->x, xb_in, l->qkv_w, l->qkv_b,
          ws->qkv, qkv_bf16);

  /* sg_bias[batch][H][64][64], when the layer has smolgen */
  if (l->has_smolgen)
    cf_smolgen_forward(be, &l->smolgen, enc->smolgen_w, enc->smolgen_b, batch, d, enc->arch.heads,
                       ws->x, ws);

  /* attn[rows][dm] = softmax(S) V (+ RPE v) */
  cf_attention_args args = {
      .batch = batch,
      .heads = enc->arch.heads,
      .depth = enc->arch.dh,
      .qkv = ws->qkv,
      .qkv_bf16 = qkv_bf16,
      .rpe_q = l->rpe_q,
      .rpe_k = l->rpe_k,
      .rpe_v = l->rpe_v,
      .bias = l->has_smolgen ? ws->sg_bias : NULL,
      .scale = 1.0f / sqrtf((float)enc->arch.dh),
      .out = ws->attn,
      .out_bf16 = qkv_bf16,
  };
  cf_op_attention(be, &args);

  /* t[rows][d] = attn Wd^T + bd;  x = Norm1(x + alpha t) */
  project(be, bf16, rows, dm, d, ws->attn, qkv_bf16, l->dense_w, l->dense_b, ws->t, false);
  norm_to(be, &l->ln1, rows, ws->t, enc->alpha, ws->x, xb);

  /* t[rows][d] = FFN(x);  x = Norm2(x + alpha t) */
  if (bf16) cf_ffn_forward_bf16(be, &l->ffn, rows, xb, (cf_bf16 *)ws->hidden, ws->t);
  else cf_ffn_forward(be, &l->ffn, rows, ws->x, ws->hidden, ws->t);
  norm_to(be, &l->ln2, rows, ws->t, enc->alpha, ws->x, xb_out ? xb : NULL);
}

int cf_layer_chunk_positions(const cf_net_arch *a, size_t chunk_bytes) {
  if (chunk_bytes == 0) return INT_MAX;
  /* A position's activations in one layer: x, t, attn (d, d, dm), q/k/v
   * (3 dm) and the FFN's hidden layer (dff; the smolgen buffers are
   * smaller), 64 tokens of floats. */
  const size_t per_position =
      (size_t)64 * sizeof(float) * ((size_t)2 * a->d + 4 * (size_t)a->dm + (size_t)a->dff);
  size_t n = chunk_bytes / per_position;
  /* Whole 16s where 16 fit: kernels that batch positions (AMX tiles take
   * 16 rows) then see full groups. */
  if (n >= 16) n -= n % 16;
  return n < 1 ? 1 : n > INT_MAX ? INT_MAX : (int)n;
}

/* Large batches run the layer a chunk of positions at a time, every op
 * of the layer on one chunk before the next: the chunk's q/k/v, attention
 * output, FFN hidden layer and residual rows stay in the caches from the
 * op that writes them to the op that reads them, where a whole batch's
 * (50 MB of q/k/v alone at batch 256 for CF-6M) went to DRAM and back
 * between ops. The weights (a few MB per layer) stay cached across the
 * chunks. Each row's arithmetic is the same either way (up to the GEMM
 * kernels' blocking, which may differ per row count). Measured on
 * CF-6M, one thread (docs/BACKENDS.md): about 5% more evals/s at batch
 * 256, level at 32. */
void cf_layer_forward(cf_encoder *enc, const cf_layer *l, int batch, bool xb_in, bool xb_out) {
  const int chunk = enc->chunk_positions;
  for (int b0 = 0; b0 < batch; b0 += chunk) {
    const int n = batch - b0 < chunk ? batch - b0 : chunk;
    const size_t at = (size_t)b0 * 64 * enc->arch.d;
    layer_chunk(enc, l, n, enc->ws.x + at, enc->bf16 ? enc->ws.xb + at : NULL,
                enc->bf16 && xb_in, xb_out);
  }
}
