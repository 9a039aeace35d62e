/* cf_weights.h: a loaded network as plain C structs of float32 tensors.
 *
 * This is the only view of a weight file that the rest of cformer sees:
 * nothing above weights/ includes protobuf-c or zlib. The loader decodes
 * every tensor (LINEAR16, FLOAT16, BFLOAT16, FLOAT32) to float32, infers the
 * architecture from tensor sizes (NETWORK.md section 2), validates every
 * size against it and normalises older layouts (network 134 -> 7, top-level
 * single heads -> vanilla policy / winner value) in one place.
 *
 * Layouts are exactly those of NETWORK.md section 2: every 2-D weight is
 * [out][in] row-major. */
#ifndef CF_WEIGHTS_H
#define CF_WEIGHTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cf_status.h"

/* Layer.encoding values (NETWORK.md section 1). */
typedef enum cf_encoding {
  CF_ENC_UNKNOWN = 0,
  CF_ENC_LINEAR16 = 1,
  CF_ENC_FLOAT16 = 2,
  CF_ENC_BFLOAT16 = 3,
  CF_ENC_FLOAT32 = 4,
} cf_encoding;

/* ActivationFunction values (NETWORK.md section 1). In cf_net_arch they are
 * resolved: CF_ACT_DEFAULT never appears there. */
typedef enum cf_activation {
  CF_ACT_DEFAULT = 0,
  CF_ACT_MISH = 1,
  CF_ACT_RELU = 2,
  CF_ACT_NONE = 3,
  CF_ACT_TANH = 4,
  CF_ACT_SIGMOID = 5,
  CF_ACT_SELU = 6,
  CF_ACT_SWISH = 7,
  CF_ACT_RELU2 = 8,
  CF_ACT_SOFTMAX = 9,
} cf_activation;

const char *cf_activation_name(cf_activation act);
const char *cf_encoding_name(cf_encoding enc);

/* One decoded tensor. n == 0 (data NULL) means the Layer was absent. */
typedef struct cf_tensor {
  float *data;          /* n floats, owned by the cf_weights that holds it */
  size_t n;
  cf_encoding encoding; /* how it was stored in the file (LINEAR16 if unset) */
} cf_tensor;

static inline bool cf_tensor_present(const cf_tensor *t) { return t->n > 0; }

typedef struct cf_ffn_weights {
  cf_tensor dense1_w; /* [dff][d] */
  cf_tensor dense1_b; /* [dff] */
  cf_tensor dense2_w; /* [d][dff] */
  cf_tensor dense2_b; /* [d] */
} cf_ffn_weights;

typedef struct cf_smolgen_weights {
  cf_tensor compress;   /* [hc][d], no bias */
  cf_tensor dense1_w;   /* [hs][64*hc] */
  cf_tensor dense1_b;   /* [hs] */
  cf_tensor ln1_gammas, ln1_betas; /* [hs] */
  cf_tensor dense2_w;   /* [H*gs][hs] */
  cf_tensor dense2_b;   /* [H*gs] */
  cf_tensor ln2_gammas, ln2_betas; /* [H*gs] */
} cf_smolgen_weights;

typedef struct cf_mha_weights {
  cf_tensor q_w, k_w, v_w;     /* [dm][d] */
  cf_tensor q_b, k_b, v_b;     /* [dm] or absent */
  cf_tensor dense_w;           /* [d][dm] */
  cf_tensor dense_b;           /* [d] or absent */
  bool has_smolgen;
  cf_smolgen_weights smolgen;
  cf_tensor rpe_q, rpe_k, rpe_v; /* [225][dh*H], (p, i*H + h); each optional */
} cf_mha_weights;

typedef struct cf_encoder_layer_weights {
  cf_mha_weights mha;
  cf_tensor ln1_gammas, ln1_betas; /* [d]; betas absent -> RMSNorm */
  cf_ffn_weights ffn;
  cf_tensor ln2_gammas, ln2_betas; /* [d] */
} cf_encoder_layer_weights;

typedef enum cf_policy_head_id {
  CF_POLICY_VANILLA = 0,
  CF_POLICY_OPTIMISTIC_ST,
  CF_POLICY_SOFT,
  CF_POLICY_OPPONENT,
  CF_POLICY_HEAD_COUNT
} cf_policy_head_id;

typedef enum cf_value_head_id {
  CF_VALUE_WINNER = 0,
  CF_VALUE_Q,
  CF_VALUE_ST,
  CF_VALUE_HEAD_COUNT
} cf_value_head_id;

/* "vanilla", "optimistic_st", "soft", "opponent" / "winner", "q", "st". */
const char *cf_policy_head_name(cf_policy_head_id id);
const char *cf_value_head_name(cf_value_head_id id);

typedef struct cf_policy_head_weights {
  bool present;
  cf_tensor ip_pol_w, ip_pol_b;   /* optional per-head embedding (unused by known nets) */
  cf_tensor ip2_pol_w, ip2_pol_b; /* wq: [dp][de], [dp] */
  cf_tensor ip3_pol_w, ip3_pol_b; /* wk: [dp][de], [dp] */
  cf_tensor ip4_pol_w;            /* ppo: [4][dp], rows q r b n */
} cf_policy_head_weights;

typedef struct cf_value_head_weights {
  bool present;
  cf_tensor ip_val_w, ip_val_b;         /* embedding: [cv][d], [cv] */
  cf_tensor ip1_val_w, ip1_val_b;       /* [128][64*cv], [128] */
  cf_tensor ip2_val_w, ip2_val_b;       /* [3 or 1][128] */
  cf_tensor ip_val_err_w, ip_val_err_b; /* [1][128], optional */
  cf_tensor ip_val_cat_w, ip_val_cat_b; /* [nb][128], optional */
} cf_value_head_weights;

/* Everything inferred or resolved from the file; all dimensions in elements. */
typedef struct cf_net_arch {
  /* NetworkFormat, normalised: network_format is 6 or 7 (134 becomes 7). */
  int input_format;      /* 1, 2, 3, 4, 5, 132, 133 */
  int output_format;     /* 1 classical, 2 WDL */
  int network_format;
  int policy_format;     /* 3 attention */
  int value_format;      /* 1, 2, 3 */
  int moves_left_format; /* 0 none, 1 v1 */
  int input_embedding;   /* 0 none, 1 PE_MAP, 2 PE_DENSE */
  cf_activation default_act, smolgen_act, ffn_act; /* resolved, never DEFAULT */

  /* Body. */
  int layers;            /* L */
  int d;                 /* embedding width */
  int dm;                /* q/k/v width */
  int heads;             /* H */
  int dh;                /* dm / H */
  int dff;               /* encoder FFN width */
  int emb_inputs;        /* F: 112, 176 (PE_MAP with Lc0's table) or 112 + s */
  int emb_dense_s;       /* s: PE_DENSE channels per square, 0 if none */
  int emb_ffn_dff;       /* PE_DENSE embedding FFN width, 0 if none */
  bool emb_norm;         /* PE_DENSE embedding norms present */
  bool gating;           /* ip_mult_gate / ip_add_gate present */
  bool rms_norm;         /* encoder norms have no betas */
  bool qkv_bias;
  bool rpe_q, rpe_k, rpe_v;
  bool smolgen;
  int smolgen_hc, smolgen_hs, smolgen_gs; /* compress width, hidden, per-head gen size */
  float norm_eps;        /* encoder/embedding norm epsilon (NETWORK.md section 5 rule) */

  /* Heads. */
  int policy_de;                          /* shared policy embedding width */
  bool has_policy[CF_POLICY_HEAD_COUNT];
  int policy_dp[CF_POLICY_HEAD_COUNT];    /* Q/K width per head */
  bool has_value[CF_VALUE_HEAD_COUNT];
  int value_cv[CF_VALUE_HEAD_COUNT];      /* value embedding channels */
  int value_outputs[CF_VALUE_HEAD_COUNT]; /* 3 (WDL) or 1 (tanh) */
  bool value_err[CF_VALUE_HEAD_COUNT];
  int value_cat[CF_VALUE_HEAD_COUNT];     /* categorical buckets, 0 if none */
  bool has_moves_left;
  int mlh_cm;                             /* moves-left embedding channels */
} cf_net_arch;

typedef struct cf_version {
  uint32_t major, minor, patch;
} cf_version;

/* Most notes a cf_weights keeps, and their longest text (cf_weights.notes). */
#define CF_WEIGHTS_NOTES_MAX 16
#define CF_WEIGHTS_NOTE_LEN 256

typedef struct cf_weights {
  cf_net_arch arch;
  char *license;            /* NUL-terminated, or NULL */
  cf_version min_version;
  int raw_network_format;   /* as written in the file (134, 6, 7) */
  /* The network format cf_weights_save_* writes: 0 or 7 (Lc0's
   * ATTENTIONBODY_WITH_MULTIHEADFORMAT), or 134, the number the Chessformer
   * trainer (lczero-training) gives the same layout and the only one its
   * tools read. The loader leaves it 0; `netconv convert --network-format`
   * sets it. */
  int save_network_format;
  /* What the file holds that cformer read but does not run, one line per
   * kind (NETWORK.md section 1, "Fields cformer ignores"): the Chessformer
   * trainer's quantisation scales, its `next` policy head and future_head, a
   * placeholder opponent head, fields no schema here declares. Loading
   * succeeds; tools print each as a warning, the engine as `info string
   * warning: ...`. */
  int n_notes;
  char notes[CF_WEIGHTS_NOTES_MAX][CF_WEIGHTS_NOTE_LEN];
  unsigned encodings_used;  /* bit (1 << cf_encoding) for each encoding seen */
  size_t param_count;       /* total floats over all tensors */

  /* Embedding. */
  cf_tensor ip_emb_preproc_w, ip_emb_preproc_b; /* [64*s][768], [64*s] */
  cf_tensor ip_emb_w, ip_emb_b;                 /* [d][F], [d] */
  cf_tensor ip_emb_ln_gammas, ip_emb_ln_betas;  /* [d] */
  cf_tensor ip_mult_gate, ip_add_gate;          /* [d][64] */
  cf_ffn_weights ip_emb_ffn;
  cf_tensor ip_emb_ffn_ln_gammas, ip_emb_ffn_ln_betas;

  /* Encoder. */
  cf_tensor smolgen_w;                          /* [4096][gs], shared by all layers */
  cf_tensor smolgen_b;                          /* optional */
  cf_encoder_layer_weights *layers;             /* arch.layers entries */

  /* Policy. */
  cf_tensor policy_ip_pol_w, policy_ip_pol_b;   /* shared embedding [de][d], [de] */
  cf_policy_head_weights policy[CF_POLICY_HEAD_COUNT];

  /* Value and moves-left. */
  cf_value_head_weights value[CF_VALUE_HEAD_COUNT];
  cf_tensor ip_mov_w, ip_mov_b;                 /* [cm][d], [cm] */
  cf_tensor ip1_mov_w, ip1_mov_b;               /* [128][64*cm], [128] */
  cf_tensor ip2_mov_w, ip2_mov_b;               /* [1][128], [1] */
} cf_weights;

typedef struct cf_weights_load_options {
  /* Largest decompressed payload accepted, in bytes. 0 = automatic
   * (cf_weights_max_payload): a network's weights are close to random and
   * barely compress, so a file that inflates to many times its own size is
   * a decompression bomb. Inflating stops, with CF_ERR_NOMEM, as soon as the
   * payload passes the limit; buffers grow with what was inflated, never to
   * the limit at once. A set value replaces the automatic rule. */
  uint64_t max_decompressed_bytes;
  /* How a user raises the limit ("WeightsMaxMb (--weights-max-mb)"): named
   * in the message when it is hit. NULL: the message names nothing. */
  const char *limit_name;
} cf_weights_load_options;

/* The automatic limit: CF_WEIGHTS_AUTO_RATIO times the file (or buffer)
 * size, at least CF_WEIGHTS_AUTO_MIN, at most CF_WEIGHTS_AUTO_MAX. Real
 * networks inflate to at most ~1.3 times their .pb.gz. */
#define CF_WEIGHTS_AUTO_RATIO 16u
#define CF_WEIGHTS_AUTO_MIN (64ull << 20)
#define CF_WEIGHTS_AUTO_MAX (4ull << 30)

/* The payload limit the loader applies to a source of source_size bytes
 * (opts may be NULL). */
uint64_t cf_weights_max_payload(const cf_weights_load_options *opts, uint64_t source_size);

/* The largest limit a user may set, in MiB (1 TiB). */
#define CF_WEIGHTS_MAX_MB_LIMIT 1048576

/* A user's limit in MiB as text ("0" = automatic, up to
 * CF_WEIGHTS_MAX_MB_LIMIT) into opts, with limit_name (the flag or option
 * that was given, kept by pointer) for the message. CF_ERR_ARG naming
 * limit_name otherwise; opts is then unchanged. */
cf_status cf_weights_parse_max_mb(const char *text, const char *limit_name,
                                  cf_weights_load_options *opts, cf_error *err);

/* Loads a .pb.gz (or uncompressed .pb) file. opts may be NULL. On failure
 * *out is NULL and err says what is wrong, naming the file, the field path
 * and the sizes involved. Only a regular file is read: a FIFO, a device, a
 * socket or a directory is CF_ERR_IO at once ("is a FIFO, not a regular
 * file"), without a read that could block. The result is freed with
 * cf_weights_free. */
cf_status cf_weights_load_file(const char *path, const cf_weights_load_options *opts,
                               cf_weights **out, cf_error *err);

/* Same from memory (an embedded network, a fuzzer input). name is used in
 * messages. The buffer is not retained. */
cf_status cf_weights_load_memory(const void *data, size_t size, const char *name,
                                 const cf_weights_load_options *opts, cf_weights **out,
                                 cf_error *err);

/* Appends a printf-style note to w->notes (see there). When the list is
 * full the last slot says that more were left out, so none is lost without
 * a word. */
void cf_weights_add_note(cf_weights *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Accepts NULL. Frees w, w->layers, w->license and every tensor's data with
 * free(): a cf_weights built by hand (tests, `netconv random`) allocates them
 * with malloc/calloc and is released the same way. */
void cf_weights_free(cf_weights *w);

/* ---- additions beyond the original contract ---- */

/* Most encoder layers a file may declare (a bound against hostile files). */
#define CF_WEIGHTS_MAX_LAYERS 4096

/* Longest field path the visitor or an error message uses. */
#define CF_WEIGHTS_PATH_MAX 128

/* Fills the inferred part of w->arch from the tensor sizes and validates
 * every tensor against it (NETWORK.md section 2), as the loader does. Reads
 * from w->arch only the format fields (input_format .. input_embedding, the
 * three activations; DEFAULT is resolved here), layers (entries of
 * w->layers) and heads (headcount), and from each layer mha.has_smolgen;
 * sets w->param_count and the heads' present flags. Biases (_b) and the
 * betas of an RMSNorm net may be absent (n == 0: treat as zero). For code
 * that builds a cf_weights by hand; the loader calls it too. */
cf_status cf_weights_infer_arch(cf_weights *w, cf_error *err);

/* Calls fn for every tensor slot of w, present or not, in file order, with
 * its field path as in the file's multi-head layout ("weights.ip_emb_w",
 * "weights.encoder[3].mha.q_w", "weights.policy_heads.vanilla.ip2_pol_w",
 * "weights.value_heads.winner.ip_val_w", ...). fn returns false to stop. */
typedef bool (*cf_tensor_visit_fn)(void *user, const char *path, cf_tensor *t);
void cf_weights_visit(cf_weights *w, cf_tensor_visit_fn fn, void *user);

/* Writes w as a pblczero.Net: network format 7 (multi-head layout; 134 when
 * w->save_network_format says so, any other value but 0 is CF_ERR_ARG), magic
 * 0x1c0, every tensor in encoding enc (CF_ENC_UNKNOWN: each tensor keeps
 * its own cf_tensor.encoding), Layer.encoding set unless LINEAR16,
 * min_version at least 0.31.0 (0.33.0 when any tensor is not LINEAR16).
 * gzip = false writes the bare protobuf. w is validated first
 * (cf_weights_infer_arch on a copy): an inconsistent w is CF_ERR_ARG, as is
 * a value the encoding cannot hold (beyond FLOAT16's range, NaN/Inf).
 * load(save(w)) reproduces w's tensors exactly for FLOAT32. The file is
 * written to a temporary name beside path and renamed into place, so path
 * is never left partially written. */
cf_status cf_weights_save_file(const cf_weights *w, const char *path, cf_encoding enc, bool gzip,
                               cf_error *err);

/* Same into a new malloc'd buffer (*out, *out_size); release with free(). */
cf_status cf_weights_save_memory(const cf_weights *w, cf_encoding enc, bool gzip, void **out,
                                 size_t *out_size, cf_error *err);

#endif /* CF_WEIGHTS_H */
