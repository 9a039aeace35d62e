/* cf_weights_random.c: deterministic random networks (cf_weights_random.h).
 *
 * Matrices are uniform in [-1, 1) / sqrt(fan_in), so every projection keeps
 * unit-scale activations (variance 1/3) at any width; norms' gammas are near
 * 1 and biases small. The post-norm residual stack then stays O(1) at any
 * depth, which is what benchmarks and parity-style tests need. */
#include "tools/random_net/cf_weights_random.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct rng {
  uint64_t s;
  bool ok;
  bool shape_only; /* set sizes, allocate nothing (cf_random_spec_arch) */
} rng;

static float rng_uniform(rng *r) {
  /* xorshift64*, uniform in [-1, 1). */
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  uint64_t x = r->s * 2685821657736338717ull;
  return (float)((double)(x >> 11) * 0x1p-53 * 2.0 - 1.0);
}

static void fill(rng *r, cf_tensor *t, size_t n, float center, float scale, cf_encoding enc) {
  if (!r->ok) return;
  if (r->shape_only) {
    t->n = n;
    t->encoding = enc;
    return;
  }
  t->data = malloc(n * sizeof(float));
  if (!t->data) {
    r->ok = false;
    return;
  }
  t->n = n;
  t->encoding = enc;
  for (size_t i = 0; i < n; i++) t->data[i] = center + scale * rng_uniform(r);
}

/* A [out][in] matrix scaled for unit-variance outputs. */
static void matrix(rng *r, cf_tensor *t, size_t out, size_t in, cf_encoding enc) {
  fill(r, t, out * in, 0.0f, 1.0f / sqrtf((float)in), enc);
}

static void bias(rng *r, cf_tensor *t, size_t n, cf_encoding enc) { fill(r, t, n, 0.0f, 0.1f, enc); }
static void gamma_(rng *r, cf_tensor *t, size_t n, cf_encoding enc) { fill(r, t, n, 1.0f, 0.1f, enc); }

cf_random_spec cf_random_spec_cf6m(void) {
  cf_random_spec s = {.layers = 8, .d = 256, .heads = 8, .dff = 256,
                      .rpe_q = true, .rpe_k = true, .rpe_v = true, .rms_norm = true,
                      .embedding_style = CF_EMBEDDING_OLD, .gating = true,
                      .moves_left = true, .seed = 1};
  s.policy_heads[CF_POLICY_VANILLA] = s.policy_heads[CF_POLICY_SOFT] = true;
  s.value_heads[CF_VALUE_WINNER] = s.value_heads[CF_VALUE_Q] = s.value_heads[CF_VALUE_ST] = true;
  return s;
}

cf_random_spec cf_random_spec_cf240m(void) {
  cf_random_spec s = cf_random_spec_cf6m();
  s.layers = 15;
  s.d = 1024;
  s.heads = 32;
  s.dff = 4096;
  s.embedding_style = CF_EMBEDDING_DENSE;
  s.gating = false;
  s.dense_width = 512;
  s.emb_dff = 4096;
  return s;
}

bool cf_random_spec_preset(const char *name, cf_random_spec *out) {
  if (strcmp(name, "cf6m") == 0) *out = cf_random_spec_cf6m();
  else if (strcmp(name, "cf240m") == 0) *out = cf_random_spec_cf240m();
  else return false;
  return true;
}

static cf_status check_spec(const cf_random_spec *s, cf_error *err) {
  const int dm = s->dm ? s->dm : s->d;
  if (s->layers < 1 || s->layers > CF_WEIGHTS_MAX_LAYERS)
    return cf_error_set(err, CF_ERR_ARG, "random net: layers %d outside 1..%d", s->layers,
                        CF_WEIGHTS_MAX_LAYERS);
  if (s->d <= 0 || s->heads <= 0 || s->dff <= 0 || dm <= 0)
    return cf_error_set(err, CF_ERR_ARG,
                        "random net: d %d, heads %d, dff %d, dm %d must all be positive", s->d,
                        s->heads, s->dff, dm);
  if (dm % s->heads != 0)
    return cf_error_set(err, CF_ERR_ARG, "random net: q/k/v width %d not divisible by %d heads",
                        dm, s->heads);
  const int widths[] = {s->smolgen_hc, s->smolgen_hs, s->smolgen_gs, s->dense_width, s->emb_dff,
                        s->policy_de,  s->policy_dp,  s->value_cv,   s->mlh_cm,      s->dm};
  for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
    if (widths[i] < 0) return cf_error_set(err, CF_ERR_ARG, "random net: negative width %d", widths[i]);
  /* Every size below is a product of at most three widths and 4096: keep each
   * width under 2^20 so no product overflows size_t on 64-bit hosts. */
  const int big[] = {s->d, s->dff, dm, s->heads, s->smolgen_hc, s->smolgen_hs, s->smolgen_gs,
                     s->dense_width, s->emb_dff, s->policy_de, s->policy_dp, s->value_cv,
                     s->mlh_cm};
  for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
    if (big[i] > (1 << 20)) return cf_error_set(err, CF_ERR_ARG, "random net: width %d too large", big[i]);
  if (s->input_format != 0 && s->input_format != 1 && s->input_format != 2 &&
      s->input_format != 3 && s->input_format != 4 && s->input_format != 5 &&
      s->input_format != 132 && s->input_format != 133)
    return cf_error_set(err, CF_ERR_ARG, "random net: unknown input format %d", s->input_format);
  if (s->encoding < CF_ENC_UNKNOWN || s->encoding > CF_ENC_FLOAT32)
    return cf_error_set(err, CF_ERR_ARG, "random net: unknown encoding %d", (int)s->encoding);
  return CF_OK;
}

static void fill_ffn(rng *r, cf_ffn_weights *f, size_t d, size_t dff, cf_encoding enc) {
  matrix(r, &f->dense1_w, dff, d, enc);
  bias(r, &f->dense1_b, dff, enc);
  matrix(r, &f->dense2_w, d, dff, enc);
  bias(r, &f->dense2_b, d, enc);
}

static void fill_layer(rng *r, const cf_random_spec *s, cf_encoder_layer_weights *l,
                       cf_encoding enc) {
  const size_t d = (size_t)s->d, dm = (size_t)(s->dm ? s->dm : s->d), H = (size_t)s->heads;
  cf_mha_weights *m = &l->mha;
  matrix(r, &m->q_w, dm, d, enc);
  matrix(r, &m->k_w, dm, d, enc);
  matrix(r, &m->v_w, dm, d, enc);
  if (s->qkv_bias) {
    bias(r, &m->q_b, dm, enc);
    bias(r, &m->k_b, dm, enc);
    bias(r, &m->v_b, dm, enc);
  }
  matrix(r, &m->dense_w, d, dm, enc);
  bias(r, &m->dense_b, d, enc);
  if (s->rpe_q) fill(r, &m->rpe_q, 225 * dm, 0.0f, 0.5f, enc);
  if (s->rpe_k) fill(r, &m->rpe_k, 225 * dm, 0.0f, 0.5f, enc);
  if (s->rpe_v) fill(r, &m->rpe_v, 225 * dm, 0.0f, 0.5f, enc);
  if (s->smolgen) {
    const size_t hc = (size_t)(s->smolgen_hc ? s->smolgen_hc : 32);
    const size_t hs = (size_t)(s->smolgen_hs ? s->smolgen_hs : 256);
    const size_t gs = (size_t)(s->smolgen_gs ? s->smolgen_gs : 256);
    cf_smolgen_weights *g = &m->smolgen;
    m->has_smolgen = true;
    matrix(r, &g->compress, hc, d, enc);
    matrix(r, &g->dense1_w, hs, 64 * hc, enc);
    bias(r, &g->dense1_b, hs, enc);
    gamma_(r, &g->ln1_gammas, hs, enc);
    bias(r, &g->ln1_betas, hs, enc);
    matrix(r, &g->dense2_w, H * gs, hs, enc);
    bias(r, &g->dense2_b, H * gs, enc);
    gamma_(r, &g->ln2_gammas, H * gs, enc);
    bias(r, &g->ln2_betas, H * gs, enc);
  }
  gamma_(r, &l->ln1_gammas, d, enc);
  if (!s->rms_norm) bias(r, &l->ln1_betas, d, enc);
  fill_ffn(r, &l->ffn, d, (size_t)s->dff, enc);
  gamma_(r, &l->ln2_gammas, d, enc);
  if (!s->rms_norm) bias(r, &l->ln2_betas, d, enc);
}

static void fill_embedding(rng *r, const cf_random_spec *s, cf_weights *w, cf_encoding enc) {
  const size_t d = (size_t)s->d;
  size_t F = 112;
  if (s->embedding_style == CF_EMBEDDING_DENSE) {
    const size_t ds = (size_t)(s->dense_width ? s->dense_width : 64);
    F = 112 + ds;
    /* The preprocessing sees 0/1 piece planes: at most 32 are set. */
    fill(r, &w->ip_emb_preproc_w, 64 * ds * 768, 0.0f, 1.0f / sqrtf(32.0f), enc);
    bias(r, &w->ip_emb_preproc_b, 64 * ds, enc);
  } else if (s->pos_table) {
    F = 176;
  }
  matrix(r, &w->ip_emb_w, d, F, enc);
  bias(r, &w->ip_emb_b, d, enc);
  if (s->embedding_style == CF_EMBEDDING_DENSE) {
    gamma_(r, &w->ip_emb_ln_gammas, d, enc);
    if (!s->rms_norm) bias(r, &w->ip_emb_ln_betas, d, enc);
    fill_ffn(r, &w->ip_emb_ffn, d, (size_t)(s->emb_dff ? s->emb_dff : s->dff), enc);
    gamma_(r, &w->ip_emb_ffn_ln_gammas, d, enc);
    if (!s->rms_norm) bias(r, &w->ip_emb_ffn_ln_betas, d, enc);
  } else if (s->gating) {
    fill(r, &w->ip_mult_gate, d * 64, 1.0f, 0.1f, enc);
    fill(r, &w->ip_add_gate, d * 64, 0.0f, 0.1f, enc);
  }
}

static void fill_heads(rng *r, const cf_random_spec *s, cf_weights *w, cf_encoding enc) {
  const size_t d = (size_t)s->d;
  const size_t de = (size_t)(s->policy_de ? s->policy_de : s->d);
  const size_t dp = (size_t)(s->policy_dp ? s->policy_dp : s->d);
  bool any_policy = false;
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++) any_policy |= s->policy_heads[h];
  matrix(r, &w->policy_ip_pol_w, de, d, enc);
  bias(r, &w->policy_ip_pol_b, de, enc);
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++) {
    if (!(any_policy ? s->policy_heads[h] : h == CF_POLICY_VANILLA)) continue;
    cf_policy_head_weights *p = &w->policy[h];
    matrix(r, &p->ip2_pol_w, dp, de, enc);
    bias(r, &p->ip2_pol_b, dp, enc);
    matrix(r, &p->ip3_pol_w, dp, de, enc);
    bias(r, &p->ip3_pol_b, dp, enc);
    fill(r, &p->ip4_pol_w, 4 * dp, 0.0f, 0.1f, enc);
  }
  const size_t cv = (size_t)(s->value_cv ? s->value_cv : 32);
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++) {
    /* The loader requires the winner head: every net has it. */
    if (!(s->value_heads[h] || h == CF_VALUE_WINNER)) continue;
    cf_value_head_weights *v = &w->value[h];
    matrix(r, &v->ip_val_w, cv, d, enc);
    bias(r, &v->ip_val_b, cv, enc);
    matrix(r, &v->ip1_val_w, 128, 64 * cv, enc);
    bias(r, &v->ip1_val_b, 128, enc);
    matrix(r, &v->ip2_val_w, 3, 128, enc);
    bias(r, &v->ip2_val_b, 3, enc);
  }
  if (s->moves_left) {
    const size_t cm = (size_t)(s->mlh_cm ? s->mlh_cm : 8);
    matrix(r, &w->ip_mov_w, cm, d, enc);
    bias(r, &w->ip_mov_b, cm, enc);
    matrix(r, &w->ip1_mov_w, 128, 64 * cm, enc);
    bias(r, &w->ip1_mov_b, 128, enc);
    matrix(r, &w->ip2_mov_w, 1, 128, enc);
    bias(r, &w->ip2_mov_b, 1, enc);
  }
}

static cf_status build(const cf_random_spec *spec, bool shape_only, cf_weights **out,
                       cf_error *err) {
  *out = NULL;
  CF_TRY(check_spec(spec, err));
  const cf_encoding enc = spec->encoding == CF_ENC_UNKNOWN ? CF_ENC_FLOAT32 : spec->encoding;
  cf_weights *w = calloc(1, sizeof *w);
  if (!w) return cf_error_set(err, CF_ERR_NOMEM, "random net: out of memory");
  cf_net_arch *a = &w->arch;
  a->input_format = spec->input_format ? spec->input_format : 1;
  a->output_format = 2;
  a->network_format = 7;
  a->policy_format = 3;
  a->value_format = 2;
  a->moves_left_format = spec->moves_left ? 1 : 0;
  a->input_embedding = spec->embedding_style == CF_EMBEDDING_DENSE ? 2 : 1;
  a->default_act = spec->default_act ? spec->default_act : CF_ACT_MISH;
  a->smolgen_act = spec->smolgen_act ? spec->smolgen_act : CF_ACT_SWISH;
  a->ffn_act = spec->ffn_act;
  a->layers = spec->layers;
  a->heads = spec->heads;
  w->raw_network_format = 7;
  rng r = {.s = spec->seed ^ 0x9e3779b97f4a7c15ull, .ok = true, .shape_only = shape_only};
  if (r.s == 0) r.s = 0x9e3779b97f4a7c15ull; /* xorshift's one fixed point */
  fill_embedding(&r, spec, w, enc);
  if (spec->smolgen) {
    const size_t gs = (size_t)(spec->smolgen_gs ? spec->smolgen_gs : 256);
    fill(&r, &w->smolgen_w, 4096 * gs, 0.0f, 1.0f / sqrtf((float)gs), enc);
  }
  if (spec->layers > 0) {
    w->layers = calloc((size_t)spec->layers, sizeof *w->layers);
    r.ok = r.ok && w->layers;
  }
  for (int i = 0; r.ok && i < spec->layers; i++) fill_layer(&r, spec, &w->layers[i], enc);
  fill_heads(&r, spec, w, enc);
  if (!r.ok) {
    cf_weights_free(w);
    return cf_error_set(err, CF_ERR_NOMEM, "random net: out of memory");
  }
  w->encodings_used = 1u << enc;
  cf_status st = cf_weights_infer_arch(w, err);
  if (st != CF_OK) {
    cf_error_prefix(err, "random net");
    cf_weights_free(w);
    return st;
  }
  *out = w;
  return CF_OK;
}

cf_status cf_weights_random(const cf_random_spec *spec, cf_weights **out, cf_error *err) {
  return build(spec, false, out, err);
}

/* A shape-only cf_weights has sizes but NULL data; cf_weights_infer_arch
 * reads sizes only, and cf_weights_free frees NULL harmlessly. */
cf_status cf_random_spec_arch(const cf_random_spec *spec, cf_net_arch *arch, size_t *param_count,
                              cf_error *err) {
  cf_weights *w;
  CF_TRY(build(spec, true, &w, err));
  *arch = w->arch;
  if (param_count) *param_count = w->param_count;
  cf_weights_free(w);
  return CF_OK;
}
