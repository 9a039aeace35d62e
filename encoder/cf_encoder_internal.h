/* cf_encoder_internal.h: the parts of the encoder (norms, FFNs, smolgen,
 * layers, embedding), each a struct of uploaded weights plus a forward
 * function over backend buffers. Shared by encoder/'s files only. */
#ifndef CF_ENCODER_INTERNAL_H
#define CF_ENCODER_INTERNAL_H

#include "encoder/cf_encoder.h"

/* Uploads tensor t as a rows x cols weight; an absent tensor gives NULL.
 * Fails if a present tensor does not hold rows*cols values. */
cf_status cf_enc_weight(cf_backend *be, cf_weight_role role, int rows, int cols, const cf_tensor *t,
                        const char *what, cf_bweight **out, cf_error *err);
/* The same for a MATRIX the input embedding reads the input planes with
 * (CF_WEIGHT_USE_INPUT_EMBEDDING, so a backend may keep it float32). */
cf_status cf_enc_weight_embedding(cf_backend *be, int rows, int cols, const cf_tensor *t,
                                  const char *what, cf_bweight **out, cf_error *err);
/* The same for a relative position table (an RPE role) of `heads` heads. */
cf_status cf_enc_weight_heads(cf_backend *be, cf_weight_role role, int heads, int rows, int cols,
                              const cf_tensor *t, const char *what, cf_bweight **out,
                              cf_error *err);

/* A LayerNorm (betas present) or RMSNorm (gammas only). */
typedef struct cf_norm {
  cf_norm_kind kind;
  int width;
  float eps;
  cf_bweight *gamma, *beta; /* [width]; beta NULL for RMSNorm */
} cf_norm;

cf_status cf_norm_upload(cf_backend *be, const cf_tensor *gammas, const cf_tensor *betas, int width,
                         float eps, const char *what, cf_norm *n, cf_error *err);
/* y[rows][width] = Norm(skip + alpha x); skip may be NULL. */
void cf_norm_forward(cf_backend *be, const cf_norm *n, int rows, const float *x, float alpha,
                     const float *skip, float *y);
/* The same, also writing y in bf16 to yb (bf16 activations only). */
void cf_norm_forward_bf16(cf_backend *be, const cf_norm *n, int rows, const float *x,
                          float alpha, const float *skip, float *y, cf_bf16 *yb);
void cf_norm_release(cf_backend *be, cf_norm *n);

/* FFN(y) = W2 act(W1 y + b1) + b2. */
typedef struct cf_ffn {
  int d, dff;
  cf_op_act act;
  cf_bweight *w1, *b1; /* [dff][d], [dff] */
  cf_bweight *w2, *b2; /* [d][dff], [d] */
} cf_ffn;

cf_status cf_ffn_upload(cf_backend *be, const cf_ffn_weights *w, int d, cf_op_act act,
                        const char *what, cf_ffn *f, cf_error *err);
/* y[rows][d] = FFN(x[rows][d]); hidden is scratch [rows][dff]. */
void cf_ffn_forward(cf_backend *be, const cf_ffn *f, int rows, const float *x, float *hidden,
                    float *y);
/* The same from x in bf16, the hidden layer kept in bf16 (bf16
 * activations only). */
void cf_ffn_forward_bf16(cf_backend *be, const cf_ffn *f, int rows, const cf_bf16 *x,
                         cf_bf16 *hidden, float *y);
void cf_ffn_release(cf_backend *be, cf_ffn *f);

/* Smolgen: per-position attention biases generated from the whole board. */
typedef struct cf_smolgen {
  int hc, hs, gs; /* compress width, hidden width, per-head gen size */
  cf_op_act act;
  cf_bweight *compress; /* [hc][d], no bias */
  cf_bweight *w1, *b1;  /* [hs][64*hc], [hs] */
  cf_norm ln1;          /* [hs] */
  cf_bweight *w2, *b2;  /* [H*gs][hs], [H*gs] */
  cf_norm ln2;          /* [H*gs] */
} cf_smolgen;

/* Scratch buffers of the encoder, sized for max_batch (B). */
typedef struct cf_encoder_ws {
  float *tokens;  /* [B*64][F]   embedding input features */
  float *pieces;  /* [B][768]    PE_DENSE: current piece planes, token-major */
  float *pre;     /* [B][64*s]   PE_DENSE: preprocessed positional channels */
  float *x;       /* [B*64][d]   the residual stream */
  cf_bf16 *xb;    /* [B*64][d]   x in bf16 for the next matmul (bf16 activations only) */
  float *t;       /* [B*64][d]   a sublayer's output */
  float *qkv;     /* [B*64][3dm] */
  float *attn;    /* [B*64][dm] */
  float *hidden;  /* [B*64][max(dff, embedding dff)] */
  float *sg_c;    /* [B*64][hc]  smolgen compressed tokens = [B][64*hc] */
  float *sg_h1;   /* [B][hs] */
  float *sg_h2;   /* [B][H*gs]   = [B*H][gs] */
  float *sg_bias; /* [B][H][64][64] */
} cf_encoder_ws;

cf_status cf_smolgen_upload(cf_backend *be, const cf_smolgen_weights *w, const cf_net_arch *a,
                            const char *what, cf_smolgen *s, cf_error *err);
/* bias[batch][H][64][64] from x[batch*64][d]; global is smolgen_w [4096][gs]
 * (gb its optional bias). */
void cf_smolgen_forward(cf_backend *be, const cf_smolgen *s, const cf_bweight *global,
                        const cf_bweight *gb, int batch, int d, int heads, const float *x,
                        cf_encoder_ws *ws);
void cf_smolgen_release(cf_backend *be, cf_smolgen *s);

/* One encoder layer. */
typedef struct cf_layer {
  cf_bweight *qkv_w, *qkv_b;         /* [3dm][d] (q | k | v rows), [3dm] or NULL */
  cf_bweight *rpe_q, *rpe_k, *rpe_v; /* [225][dm] or NULL */
  cf_bweight *dense_w, *dense_b;     /* [d][dm], [d] or NULL */
  bool has_smolgen;
  cf_smolgen smolgen;
  cf_norm ln1;
  cf_ffn ffn;
  cf_norm ln2;
} cf_layer;

cf_status cf_layer_upload(cf_backend *be, const cf_encoder_layer_weights *w, const cf_net_arch *a,
                          int index, cf_layer *l, cf_error *err);
void cf_layer_release(cf_backend *be, cf_layer *l);

/* The embedding stage (NETWORK.md section 4). */
typedef struct cf_embedding {
  int inputs;                /* F */
  int dense_s;               /* s (PE_DENSE), else 0 */
  cf_op_act act;             /* default activation */
  cf_bweight *pre_w, *pre_b; /* PE_DENSE: [64*s][768], [64*s] */
  cf_bweight *w, *b;         /* [d][F], [d] */
  bool has_norm;
  cf_norm norm;                     /* PE_DENSE: ip_emb_ln */
  cf_bweight *mult_gate, *add_gate; /* [d][64] or NULL */
  bool has_ffn;
  cf_ffn ffn;       /* PE_DENSE: ip_emb_ffn */
  cf_norm ffn_norm; /* ip_emb_ffn_ln */
} cf_embedding;

cf_status cf_embedding_upload(cf_backend *be, const cf_weights *w, cf_embedding *e, cf_error *err);
void cf_embedding_release(cf_backend *be, cf_embedding *e);

struct cf_encoder {
  cf_backend *be; /* not owned */
  cf_net_arch arch;
  int max_batch;
  int chunk_positions; /* cf_layer_chunk_positions(&arch, cf_backend_layer_chunk_bytes) */
  float alpha; /* DeepNorm residual weight */
  bool bf16;   /* the backend keeps bf16 activations (cf_backend_bf16_activations) */
  cf_embedding emb;
  cf_layer *layers;                  /* arch.layers */
  cf_bweight *smolgen_w, *smolgen_b; /* shared smolgen matrix [4096][gs], optional bias */
  cf_encoder_ws ws;                  /* backend memory */
  float *host_tokens;                /* [B*64][F] staging for ws.tokens */
  float *host_pieces;                /* [B][768]  staging for ws.pieces */
};

/* Fills the host staging buffers from the planes and uploads them, then
 * leaves the embedded tokens in ws.x. */
void cf_embedding_forward(cf_encoder *enc, int batch, const cf_planes *planes);

/* ws.x = layer(ws.x), in place; batches larger than
 * cf_layer_chunk_positions run a chunk of positions at a time. With bf16
 * activations the layer reads its input from ws.xb where xb_in (the layer
 * before wrote it) and writes its output there too where xb_out. */
void cf_layer_forward(cf_encoder *enc, const cf_layer *l, int batch, bool xb_in, bool xb_out);
/* How many positions a layer runs at once: as many as keep one layer's
 * activations within chunk_bytes (cf_backend_layer_chunk_bytes; 9
 * positions of CF-6M in 4 MiB), at least 1, a multiple of 16 where 16
 * fit; INT_MAX for chunk_bytes 0. */
int cf_layer_chunk_positions(const cf_net_arch *a, size_t chunk_bytes);

#endif /* CF_ENCODER_INTERNAL_H */
