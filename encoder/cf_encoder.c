/* cf_encoder.c: the body's lifetime (upload, workspace) and its forward
 * pass: embedding, then every layer in order. */
#include "encoder/cf_encoder.h"

#include <math.h>
#include <stdlib.h>

#include "encoder/cf_encoder_internal.h"

/* cf_op_act takes the file's ActivationFunction numbers unchanged. */
_Static_assert((int)CF_OP_ACT_MISH == (int)CF_ACT_MISH && (int)CF_OP_ACT_RELU == (int)CF_ACT_RELU &&
                   (int)CF_OP_ACT_NONE == (int)CF_ACT_NONE &&
                   (int)CF_OP_ACT_TANH == (int)CF_ACT_TANH &&
                   (int)CF_OP_ACT_SIGMOID == (int)CF_ACT_SIGMOID &&
                   (int)CF_OP_ACT_SELU == (int)CF_ACT_SELU &&
                   (int)CF_OP_ACT_SWISH == (int)CF_ACT_SWISH &&
                   (int)CF_OP_ACT_RELU2 == (int)CF_ACT_RELU2,
               "cf_op_act must mirror cf_activation");

float cf_encoder_alpha(int layers) { return (float)pow(2.0 * layers, -0.25); }

float cf_encoder_norm_eps(const cf_net_arch *arch, cf_norm_kind kind) {
  if (kind == CF_NORM_RMS) return 1e-5f;
  bool rpe = arch->rpe_q || arch->rpe_k || arch->rpe_v;
  /* Lc0 runs such nets itself and uses 1e-6; the training code's Keras
   * default 1e-3 holds everywhere else (parity README, "Epsilon rule"). */
  return !rpe && arch->input_embedding != 2 ? 1e-6f : 1e-3f;
}

void cf_encoder_requirements(const cf_net_arch *arch, unsigned *features, unsigned *activations) {
  unsigned f = 0, acts = 1u << CF_OP_ACT_NONE;
  if (arch->rpe_q) f |= CF_FEAT_RPE_Q;
  if (arch->rpe_k) f |= CF_FEAT_RPE_K;
  if (arch->rpe_v) f |= CF_FEAT_RPE_V;
  if (arch->smolgen) f |= CF_FEAT_SMOLGEN;
  if (arch->rms_norm) f |= CF_FEAT_RMS_NORM;
  if (arch->gating) f |= CF_FEAT_GATING;
  if (cf_op_act_valid(arch->default_act)) acts |= 1u << arch->default_act;
  if (cf_op_act_valid(arch->ffn_act)) acts |= 1u << arch->ffn_act;
  if (arch->smolgen && cf_op_act_valid(arch->smolgen_act)) acts |= 1u << arch->smolgen_act;
  *features = f;
  *activations = acts;
}

static cf_status check_activations(const cf_net_arch *a, cf_error *err) {
  struct {
    const char *what;
    int act;
    bool used;
  } acts[] = {
      {"default_activation", a->default_act, true},
      {"ffn_activation", a->ffn_act, true},
      {"smolgen_activation", a->smolgen_act, a->smolgen},
  };
  for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
    if (acts[i].used && !cf_op_act_valid(acts[i].act))
      return cf_error_set(err, CF_ERR_UNSUPPORTED, "%s %d cannot be used inside the network",
                          acts[i].what, acts[i].act);
  return CF_OK;
}

static size_t max_sz(size_t a, size_t b) { return a > b ? a : b; }

static cf_status alloc_workspace(cf_encoder *enc, cf_error *err) {
  cf_backend *be = enc->be;
  const cf_net_arch *a = &enc->arch;
  const size_t B = (size_t)enc->max_batch, rows = B * 64;
  const size_t F = (size_t)enc->emb.inputs, s = (size_t)enc->emb.dense_s;
  size_t dff = (size_t)a->dff;
  if (enc->emb.has_ffn) dff = max_sz(dff, (size_t)enc->emb.ffn.dff);
  cf_encoder_ws *ws = &enc->ws;
  struct {
    float **p;
    size_t n;
  } bufs[] = {
      {&ws->tokens, rows * F},
      {&ws->pieces, s ? B * 64 * 12 : 0},
      {&ws->pre, B * 64 * s},
      {&ws->x, rows * a->d},
      {&ws->t, rows * a->d},
      {&ws->qkv, rows * 3 * a->dm},
      {&ws->attn, rows * a->dm},
      {&ws->hidden, rows * dff},
      {&ws->sg_c, a->smolgen ? rows * a->smolgen_hc : 0},
      {&ws->sg_h1, a->smolgen ? B * a->smolgen_hs : 0},
      {&ws->sg_h2, a->smolgen ? B * a->heads * a->smolgen_gs : 0},
      {&ws->sg_bias, a->smolgen ? B * a->heads * 64 * 64 : 0},
  };
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
    if (!bufs[i].n) continue;
    CF_TRY(cf_op_buffer(be, bufs[i].n, "encoder activations", bufs[i].p, err));
  }
  if (enc->bf16) { /* two bf16 values a float */
    float *xb;
    CF_TRY(cf_op_buffer(be, (rows * a->d + 1) / 2, "encoder activations", &xb, err));
    ws->xb = (cf_bf16 *)xb;
  }
  enc->host_tokens = malloc(rows * F * sizeof(float));
  enc->host_pieces = malloc(max_sz(B * 64 * 12, 1) * sizeof(float));
  if (!enc->host_tokens || !enc->host_pieces)
    return cf_error_set(err, CF_ERR_NOMEM, "encoder: out of memory");
  return CF_OK;
}

cf_status cf_encoder_create(const cf_weights *w, cf_backend *be, int max_batch, cf_encoder **out,
                            cf_error *err) {
  *out = NULL;
  const cf_net_arch *a = &w->arch;
  if (a->layers < 1 || a->d < 1 || a->heads < 1 || a->dh * a->heads != a->dm)
    return cf_error_set(err, CF_ERR_FORMAT, "encoder: inconsistent shape (L %d, d %d, H %d, dm %d)",
                        a->layers, a->d, a->heads, a->dm);
  CF_TRY(check_activations(a, err));
  cf_encoder *enc = calloc(1, sizeof *enc);
  if (!enc) return cf_error_set(err, CF_ERR_NOMEM, "encoder: out of memory");
  enc->be = be;
  enc->arch = *a;
  enc->max_batch = max_batch;
  enc->chunk_positions = cf_layer_chunk_positions(a, cf_backend_layer_chunk_bytes(be));
  enc->alpha = cf_encoder_alpha(a->layers);
  cf_status st = CF_OK;
  enc->layers = calloc((size_t)a->layers, sizeof *enc->layers);
  if (!enc->layers) st = cf_error_set(err, CF_ERR_NOMEM, "encoder: out of memory");
  if (st == CF_OK) st = cf_embedding_upload(be, w, &enc->emb, err);
  for (int i = 0; st == CF_OK && i < a->layers; i++)
    st = cf_layer_upload(be, &w->layers[i], a, i, &enc->layers[i], err);
  if (st == CF_OK && a->smolgen) {
    st = cf_enc_weight(be, CF_WEIGHT_MATRIX, 64 * 64, a->smolgen_gs, &w->smolgen_w, "smolgen_w",
                       &enc->smolgen_w, err);
    if (st == CF_OK)
      st = cf_enc_weight(be, CF_WEIGHT_VECTOR, 1, 64 * 64, &w->smolgen_b, "smolgen_b",
                         &enc->smolgen_b, err);
    if (st == CF_OK && !enc->smolgen_w)
      st = cf_error_set(err, CF_ERR_FORMAT, "smolgen layers but no global smolgen_w");
  }
  /* After the uploads: a backend may keep a matrix float32 for its values. */
  if (st == CF_OK) enc->bf16 = cf_backend_bf16_activations(be);
  if (st == CF_OK) st = alloc_workspace(enc, err);
  if (st != CF_OK) {
    cf_encoder_free(enc);
    return st;
  }
  *out = enc;
  return CF_OK;
}

void cf_encoder_free(cf_encoder *enc) {
  if (!enc) return;
  cf_backend *be = enc->be;
  cf_embedding_release(be, &enc->emb);
  if (enc->layers)
    for (int i = 0; i < enc->arch.layers; i++) cf_layer_release(be, &enc->layers[i]);
  free(enc->layers);
  cf_op_weight_free(be, enc->smolgen_w);
  cf_op_weight_free(be, enc->smolgen_b);
  cf_op_free(be, (float *)enc->ws.xb);
  float *bufs[] = {enc->ws.tokens, enc->ws.pieces, enc->ws.pre,   enc->ws.x,
                   enc->ws.t,      enc->ws.qkv,    enc->ws.attn,  enc->ws.hidden,
                   enc->ws.sg_c,   enc->ws.sg_h1,  enc->ws.sg_h2, enc->ws.sg_bias};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) cf_op_free(be, bufs[i]);
  free(enc->host_tokens);
  free(enc->host_pieces);
  free(enc);
}

const float *cf_encoder_forward(cf_encoder *enc, int batch, const cf_planes *planes) {
  cf_embedding_forward(enc, batch, planes);
  const int n = enc->arch.layers;
  for (int i = 0; i < n; i++) cf_layer_forward(enc, &enc->layers[i], batch, i > 0, i + 1 < n);
  return enc->ws.x;
}
