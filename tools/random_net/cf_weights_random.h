/* cf_weights_random.h: deterministic random networks of any shape.
 *
 * Benchmarks, `netconv random` and tests need nets of a given architecture
 * whose values do not matter but must be reproducible and numerically tame
 * (activations stay O(1) through any depth). A spec describes the shape;
 * cf_weights_random builds a cf_weights (arch inferred and validated by
 * cf_weights_infer_arch) that cf_net_create runs and cf_weights_save_file
 * writes. The same spec and seed give the same values on every machine
 * (xorshift64*, no libc rand). */
#ifndef CF_WEIGHTS_RANDOM_H
#define CF_WEIGHTS_RANDOM_H

#include "weights/cf_weights.h"

typedef enum cf_embedding_style {
  /* Chessformer "old": PE_MAP, F = 112 inputs (176 with pos_table), with
   * ip_mult_gate / ip_add_gate when gating is set. */
  CF_EMBEDDING_OLD = 0,
  /* Chessformer "new": PE_DENSE, preprocessing of width dense_width per
   * square, embedding norm and embedding FFN (width emb_dff). */
  CF_EMBEDDING_DENSE = 1,
} cf_embedding_style;

typedef struct cf_random_spec {
  int layers, d, heads, dff;
  int dm;                     /* q/k/v width; 0: d */
  bool rpe_q, rpe_k, rpe_v;
  bool rms_norm;              /* RMSNorm (no betas) instead of LayerNorm */
  bool qkv_bias;
  bool smolgen;
  int smolgen_hc, smolgen_hs, smolgen_gs; /* 0: 32, 256, 256 */
  cf_embedding_style embedding_style;
  bool gating;                /* old style only */
  bool pos_table;             /* old style only: Lc0's 64-wide table, F = 176 */
  int dense_width;            /* dense style: s; 0: 64 */
  int emb_dff;                /* dense style: embedding FFN width; 0: dff */
  int input_format;           /* 0: 1 (CLASSICAL_112_PLANE) */
  bool policy_heads[CF_POLICY_HEAD_COUNT]; /* none set: vanilla only */
  int policy_de, policy_dp;   /* 0: d, d */
  bool value_heads[CF_VALUE_HEAD_COUNT];   /* winner is always built (required) */
  int value_cv;               /* 0: 32 */
  bool moves_left;
  int mlh_cm;                 /* 0: 8 */
  cf_activation default_act;  /* DEFAULT: MISH */
  cf_activation smolgen_act;  /* DEFAULT: SWISH */
  cf_activation ffn_act;      /* DEFAULT: the default activation */
  cf_encoding encoding;       /* recorded in every tensor; UNKNOWN: FLOAT32 */
  uint64_t seed;              /* 0 is a valid seed */
} cf_random_spec;

/* CF-6M: 8 layers, d 256, 8 heads, dff 256, old 112-wide embedding with
 * gating, RPE q/k/v, RMSNorm, no q/k/v biases, vanilla + soft policy,
 * winner + q + st value heads, moves-left. */
cf_random_spec cf_random_spec_cf6m(void);

/* CF-240M: 15 layers, d 1024, 32 heads, dff 4096, dense embedding of width
 * 512 (embedding FFN 4096), RPE, RMSNorm, same heads as CF-6M (~240M params). */
cf_random_spec cf_random_spec_cf240m(void);

/* Looks a preset up by name ("cf6m", "cf240m", case-sensitive); false if unknown. */
bool cf_random_spec_preset(const char *name, cf_random_spec *out);

/* Builds the net. Invalid shapes (non-positive sizes, dm not divisible by
 * heads, > CF_WEIGHTS_MAX_LAYERS layers, sizes whose tensors would overflow)
 * are CF_ERR_ARG; allocation failure CF_ERR_NOMEM. Free with cf_weights_free. */
cf_status cf_weights_random(const cf_random_spec *spec, cf_weights **out, cf_error *err);

/* The architecture (and parameter count, if param_count is not NULL) that
 * cf_weights_random would build, without allocating any tensor: costing a
 * CF-240M shape needs no gigabyte of weights. */
cf_status cf_random_spec_arch(const cf_random_spec *spec, cf_net_arch *arch, size_t *param_count,
                              cf_error *err);

#endif /* CF_WEIGHTS_RANDOM_H */
