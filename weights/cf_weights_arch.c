/* cf_weights_arch.c: architecture inference and size validation
 * (NETWORK.md section 2), the tensor visitor, names, and cf_weights_free.
 *
 * Every width comes from a weight size, never from a bias; every tensor's
 * size is then checked against the widths, and every error names the field
 * path, what it holds and what was expected. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "weights/cf_weights_internal.h"

const char *const cf_policy_head_field[CF_POLICY_HEAD_COUNT] = {
  [CF_POLICY_VANILLA] = "vanilla",
  [CF_POLICY_OPTIMISTIC_ST] = "optimistic_st",
  [CF_POLICY_SOFT] = "soft",
  [CF_POLICY_OPPONENT] = "opponent",
};

const char *const cf_value_head_field[CF_VALUE_HEAD_COUNT] = {
  [CF_VALUE_WINNER] = "winner",
  [CF_VALUE_Q] = "q",
  [CF_VALUE_ST] = "st",
};

const char *cf_policy_head_name(cf_policy_head_id id) {
  return (unsigned)id < CF_POLICY_HEAD_COUNT ? cf_policy_head_field[id] : "unknown";
}

const char *cf_value_head_name(cf_value_head_id id) {
  return (unsigned)id < CF_VALUE_HEAD_COUNT ? cf_value_head_field[id] : "unknown";
}

const char *cf_activation_name(cf_activation act) {
  static const char *const names[] = {
    [CF_ACT_DEFAULT] = "default", [CF_ACT_MISH] = "mish",       [CF_ACT_RELU] = "relu",
    [CF_ACT_NONE] = "none",       [CF_ACT_TANH] = "tanh",       [CF_ACT_SIGMOID] = "sigmoid",
    [CF_ACT_SELU] = "selu",       [CF_ACT_SWISH] = "swish",     [CF_ACT_RELU2] = "relu2",
    [CF_ACT_SOFTMAX] = "softmax",
  };
  return (unsigned)act <= CF_ACT_SOFTMAX ? names[act] : "unknown";
}

const char *cf_encoding_name(cf_encoding enc) {
  static const char *const names[] = {
    [CF_ENC_UNKNOWN] = "unknown", [CF_ENC_LINEAR16] = "LINEAR16", [CF_ENC_FLOAT16] = "FLOAT16",
    [CF_ENC_BFLOAT16] = "BFLOAT16", [CF_ENC_FLOAT32] = "FLOAT32",
  };
  return (unsigned)enc <= CF_ENC_FLOAT32 ? names[enc] : "unknown";
}

/* ---- visitor ---- */

typedef struct visit_ctx {
  cf_tensor_visit_fn fn;
  void *user;
  bool stopped;
  char path[CF_WEIGHTS_PATH_MAX];
} visit_ctx;

static void visit(visit_ctx *v, cf_tensor *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void visit(visit_ctx *v, cf_tensor *t, const char *fmt, ...) {
  if (v->stopped) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->path, sizeof v->path, fmt, ap);
  va_end(ap);
  if (!v->fn(v->user, v->path, t)) v->stopped = true;
}

void cf_weights_visit(cf_weights *w, cf_tensor_visit_fn fn, void *user) {
  visit_ctx v = {.fn = fn, .user = user};
#define V_TOP(f) visit(&v, &w->f, "weights." #f);
  CF_TOP_FIELDS(V_TOP)
#undef V_TOP
#define V_EFFN(f) visit(&v, &w->ip_emb_ffn.f, "weights.ip_emb_ffn." #f);
  CF_FFN_FIELDS(V_EFFN)
#undef V_EFFN
  for (int i = 0; w->layers && i < w->arch.layers; i++) {
    cf_encoder_layer_weights *l = &w->layers[i];
#define V_MHA(f) visit(&v, &l->mha.f, "weights.encoder[%d].mha." #f, i);
    CF_MHA_FIELDS(V_MHA)
#undef V_MHA
#define V_SG(f) visit(&v, &l->mha.smolgen.f, "weights.encoder[%d].mha.smolgen." #f, i);
    CF_SMOLGEN_FIELDS(V_SG)
#undef V_SG
#define V_ENC(f) visit(&v, &l->f, "weights.encoder[%d]." #f, i);
    CF_ENCODER_FIELDS(V_ENC)
#undef V_ENC
#define V_FFN(f) visit(&v, &l->ffn.f, "weights.encoder[%d].ffn." #f, i);
    CF_FFN_FIELDS(V_FFN)
#undef V_FFN
  }
  visit(&v, &w->policy_ip_pol_w, "weights.policy_heads.ip_pol_w");
  visit(&v, &w->policy_ip_pol_b, "weights.policy_heads.ip_pol_b");
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++) {
#define V_POL(f) visit(&v, &w->policy[h].f, "weights.policy_heads.%s." #f, cf_policy_head_field[h]);
    CF_POLICY_HEAD_FIELDS(V_POL)
#undef V_POL
  }
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++) {
#define V_VAL(f) visit(&v, &w->value[h].f, "weights.value_heads.%s." #f, cf_value_head_field[h]);
    CF_VALUE_HEAD_FIELDS(V_VAL)
#undef V_VAL
  }
}

static bool free_one(void *user, const char *path, cf_tensor *t) {
  (void)user;
  (void)path;
  free(t->data);
  t->data = NULL;
  t->n = 0;
  return true;
}

void cf_weights_free(cf_weights *w) {
  if (!w) return;
  cf_weights_visit(w, free_one, NULL);
  free(w->layers);
  free(w->license);
  free(w);
}

static bool count_one(void *user, const char *path, cf_tensor *t) {
  (void)path;
  *(size_t *)user += t->n;
  return true;
}

/* ---- inference ---- */

typedef struct arch_ctx {
  cf_error *err;
  char path[CF_WEIGHTS_PATH_MAX];
} arch_ctx;

static const char *P(arch_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Formats a field path into the context's buffer. */
static const char *P(arch_ctx *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->path, sizeof c->path, fmt, ap);
  va_end(ap);
  return c->path;
}

static bool mul_ok(size_t a, size_t b, size_t *out) { return !__builtin_mul_overflow(a, b, out); }

/* t must hold exactly want values (shape says which); absent is an error
 * when required, fine otherwise. */
static cf_status expect(arch_ctx *c, const char *path, const cf_tensor *t, size_t want,
                        bool required, const char *shape) {
  if (t->n == 0) {
    if (!required) return CF_OK;
    return cf_error_set(c->err, CF_ERR_FORMAT,
                        "%s: required tensor missing (expected %zu values %s)", path, want, shape);
  }
  if (t->n != want)
    return cf_error_set(c->err, CF_ERR_FORMAT, "%s: wrong size: %zu values, expected %zu %s", path,
                        t->n, want, shape);
  return CF_OK;
}

/* t must be absent; why says what makes it unexpected. */
static cf_status expect_absent(arch_ctx *c, const char *path, const cf_tensor *t,
                               const char *why) {
  if (t->n == 0) return CF_OK;
  return cf_error_set(c->err, CF_ERR_FORMAT, "%s: unexpected tensor (%zu values): %s", path, t->n,
                      why);
}

/* A width from a weight size: t (required) holds div * out values. */
static cf_status derive(arch_ctx *c, const char *path, const cf_tensor *t, size_t div,
                        const char *div_name, const char *what, int *out) {
  if (t->n == 0)
    return cf_error_set(c->err, CF_ERR_FORMAT, "%s: required tensor missing (its size gives %s)",
                        path, what);
  if (div == 0 || t->n % div != 0)
    return cf_error_set(c->err, CF_ERR_FORMAT,
                        "%s: wrong size: %zu values is not a multiple of %s = %zu", path, t->n,
                        div_name, div);
  size_t q = t->n / div;
  if (q > INT_MAX)
    return cf_error_set(c->err, CF_ERR_UNSUPPORTED, "%s: width %zu is too large", path, q);
  *out = (int)q;
  return CF_OK;
}

#define SHAPE_MAX 96
/* Expected size from a product; formats the shape text for messages. */
#define EXPECT2(path, t, a, an, b, bn, req)                                               \
  do {                                                                                    \
    char shape_[SHAPE_MAX];                                                               \
    size_t want_;                                                                         \
    snprintf(shape_, sizeof shape_, "([%s %zu][%s %zu])", an, (size_t)(a), bn, (size_t)(b)); \
    if (!mul_ok((size_t)(a), (size_t)(b), &want_))                                        \
      return cf_error_set(c->err, CF_ERR_FORMAT, "%s: size %s overflows", path, shape_);   \
    CF_TRY(expect(c, path, t, want_, req, shape_));                                       \
  } while (0)

#define EXPECT1(path, t, a, an, req)                                                      \
  do {                                                                                    \
    char shape_[SHAPE_MAX];                                                               \
    snprintf(shape_, sizeof shape_, "([%s %zu])", an, (size_t)(a));                       \
    CF_TRY(expect(c, path, t, (size_t)(a), req, shape_));                                 \
  } while (0)

static bool input_format_known(int f) {
  return (f >= 1 && f <= 5) || f == 132 || f == 133;
}

static cf_status resolve_act(arch_ctx *c, const char *what, cf_activation def, cf_activation *a) {
  if (*a == CF_ACT_DEFAULT) *a = def;
  if ((unsigned)*a > CF_ACT_SOFTMAX)
    return cf_error_set(c->err, CF_ERR_UNSUPPORTED,
                        "format.network_format.%s: unknown activation %d", what, (int)*a);
  return CF_OK;
}

static cf_status infer_embedding(arch_ctx *c, cf_weights *w) {
  cf_net_arch *a = &w->arch;
  CF_TRY(derive(c, "weights.ip_emb_b", &w->ip_emb_b, 1, "1", "d", &a->d));
  const int d = a->d;
  CF_TRY(derive(c, "weights.ip_emb_w", &w->ip_emb_w, (size_t)d, "d (len of ip_emb_b)",
                "F (inputs per token)", &a->emb_inputs));
  if (a->input_embedding == 2) {
    CF_TRY(derive(c, "weights.ip_emb_preproc_b", &w->ip_emb_preproc_b, 64, "64 squares",
                  "s (dense channels per square)", &a->emb_dense_s));
    EXPECT2("weights.ip_emb_preproc_w", &w->ip_emb_preproc_w, 64 * (size_t)a->emb_dense_s,
            "64*s", 768, "64*12", true);
    if ((long long)a->emb_inputs != 112LL + a->emb_dense_s)
      return cf_error_set(c->err, CF_ERR_FORMAT,
                          "weights.ip_emb_w: wrong size: %zu values = [d %d][F %d], but PE_DENSE "
                          "with s = %d dense channels needs F = 112 + s = %lld",
                          w->ip_emb_w.n, d, a->emb_inputs, a->emb_dense_s,
                          112LL + a->emb_dense_s);
    a->emb_norm = true;
    EXPECT1("weights.ip_emb_ln_gammas", &w->ip_emb_ln_gammas, d, "d", true);
    EXPECT1("weights.ip_emb_ln_betas", &w->ip_emb_ln_betas, d, "d", false);
    CF_TRY(derive(c, "weights.ip_emb_ffn.dense1_w", &w->ip_emb_ffn.dense1_w, (size_t)d, "d",
                  "the embedding FFN width", &a->emb_ffn_dff));
    EXPECT1("weights.ip_emb_ffn.dense1_b", &w->ip_emb_ffn.dense1_b, a->emb_ffn_dff, "dff", false);
    EXPECT2("weights.ip_emb_ffn.dense2_w", &w->ip_emb_ffn.dense2_w, d, "d", a->emb_ffn_dff, "dff",
            true);
    EXPECT1("weights.ip_emb_ffn.dense2_b", &w->ip_emb_ffn.dense2_b, d, "d", false);
    EXPECT1("weights.ip_emb_ffn_ln_gammas", &w->ip_emb_ffn_ln_gammas, d, "d", true);
    EXPECT1("weights.ip_emb_ffn_ln_betas", &w->ip_emb_ffn_ln_betas, d, "d", false);
  } else {
    static const char why[] = "only PE_DENSE (input_embedding 2) nets have it";
    CF_TRY(expect_absent(c, "weights.ip_emb_preproc_w", &w->ip_emb_preproc_w, why));
    CF_TRY(expect_absent(c, "weights.ip_emb_preproc_b", &w->ip_emb_preproc_b, why));
    CF_TRY(expect_absent(c, "weights.ip_emb_ln_gammas", &w->ip_emb_ln_gammas, why));
    CF_TRY(expect_absent(c, "weights.ip_emb_ln_betas", &w->ip_emb_ln_betas, why));
#define ABSENT_EFFN(f) \
  CF_TRY(expect_absent(c, "weights.ip_emb_ffn." #f, &w->ip_emb_ffn.f, why));
    CF_FFN_FIELDS(ABSENT_EFFN)
#undef ABSENT_EFFN
    CF_TRY(expect_absent(c, "weights.ip_emb_ffn_ln_gammas", &w->ip_emb_ffn_ln_gammas, why));
    CF_TRY(expect_absent(c, "weights.ip_emb_ffn_ln_betas", &w->ip_emb_ffn_ln_betas, why));
    if (a->emb_inputs != 112 && a->emb_inputs != 176)
      return cf_error_set(c->err, CF_ERR_FORMAT,
                          "weights.ip_emb_w: wrong size: %zu values = [d %d][F %d]; without "
                          "PE_DENSE F must be 112 or 176 (112 + Lc0's 64-wide positional table)",
                          w->ip_emb_w.n, d, a->emb_inputs);
  }
  if (cf_tensor_present(&w->ip_mult_gate) || cf_tensor_present(&w->ip_add_gate)) {
    a->gating = true;
    EXPECT2("weights.ip_mult_gate", &w->ip_mult_gate, d, "d", 64, "64", true);
    EXPECT2("weights.ip_add_gate", &w->ip_add_gate, d, "d", 64, "64", true);
  }
  return CF_OK;
}

/* LayerNorm (gammas + betas) or RMSNorm (gammas only) of width n, matching
 * the net's norm type. */
static cf_status check_norm(arch_ctx *c, const char *gpath, const cf_tensor *g, const char *bpath,
                            const cf_tensor *b, int n, bool rms) {
  char g_copy[CF_WEIGHTS_PATH_MAX];
  snprintf(g_copy, sizeof g_copy, "%s", gpath);
  EXPECT1(g_copy, g, n, "d", true);
  if (rms)
    return expect_absent(c, bpath, b,
                         "RMSNorm net (encoder[0].ln1_betas is absent) but this norm has betas");
  char shape[SHAPE_MAX];
  snprintf(shape, sizeof shape, "([d %d]; LayerNorm net: encoder[0].ln1_betas is present)", n);
  return expect(c, bpath, b, (size_t)n, true, shape);
}

static cf_status infer_encoder(arch_ctx *c, cf_weights *w) {
  cf_net_arch *a = &w->arch;
  const int d = a->d, H = a->heads;
  cf_encoder_layer_weights *l0 = &w->layers[0];
  a->rms_norm = !cf_tensor_present(&l0->ln1_betas);
  a->qkv_bias = cf_tensor_present(&l0->mha.q_b);
  a->rpe_q = cf_tensor_present(&l0->mha.rpe_q);
  a->rpe_k = cf_tensor_present(&l0->mha.rpe_k);
  a->rpe_v = cf_tensor_present(&l0->mha.rpe_v);
  a->smolgen = l0->mha.has_smolgen;
  CF_TRY(derive(c, "weights.encoder[0].mha.q_w", &l0->mha.q_w, (size_t)d, "d", "dm", &a->dm));
  if (a->dm % H != 0)
    return cf_error_set(c->err, CF_ERR_FORMAT,
                        "weights.encoder[0].mha.q_w: q/k/v width dm = %d is not a multiple of "
                        "headcount %d",
                        a->dm, H);
  a->dh = a->dm / H;
  CF_TRY(derive(c, "weights.encoder[0].ffn.dense1_w", &l0->ffn.dense1_w, (size_t)d, "d", "dff",
                &a->dff));
  if (a->smolgen) {
    CF_TRY(derive(c, "weights.smolgen_w", &w->smolgen_w, 4096, "4096 (64x64 logits)",
                  "gs", &a->smolgen_gs));
    EXPECT1("weights.smolgen_b", &w->smolgen_b, 4096, "4096", false);
    CF_TRY(derive(c, "weights.encoder[0].mha.smolgen.compress", &l0->mha.smolgen.compress,
                  (size_t)d, "d", "hc", &a->smolgen_hc));
    CF_TRY(derive(c, "weights.encoder[0].mha.smolgen.dense1_w", &l0->mha.smolgen.dense1_w,
                  64 * (size_t)a->smolgen_hc, "64*hc", "hs", &a->smolgen_hs));
  } else {
    static const char why[] = "no encoder layer has smolgen";
    CF_TRY(expect_absent(c, "weights.smolgen_w", &w->smolgen_w, why));
    CF_TRY(expect_absent(c, "weights.smolgen_b", &w->smolgen_b, why));
  }
  const int dm = a->dm, dff = a->dff;
  for (int i = 0; i < a->layers; i++) {
    cf_encoder_layer_weights *l = &w->layers[i];
    cf_mha_weights *m = &l->mha;
    EXPECT2(P(c, "weights.encoder[%d].mha.q_w", i), &m->q_w, dm, "dm", d, "d", true);
    EXPECT2(P(c, "weights.encoder[%d].mha.k_w", i), &m->k_w, dm, "dm", d, "d", true);
    EXPECT2(P(c, "weights.encoder[%d].mha.v_w", i), &m->v_w, dm, "dm", d, "d", true);
    const cf_tensor *qkv_b[3] = {&m->q_b, &m->k_b, &m->v_b};
    for (int j = 0; j < 3; j++) {
      const char *path = P(c, "weights.encoder[%d].mha.%c_b", i, "qkv"[j]);
      if (a->qkv_bias)
        EXPECT1(path, qkv_b[j], dm, "dm; encoder[0] has q/k/v biases", true);
      else
        CF_TRY(expect_absent(c, path, qkv_b[j], "encoder[0].mha.q_b is absent (no q/k/v biases)"));
    }
    EXPECT2(P(c, "weights.encoder[%d].mha.dense_w", i), &m->dense_w, d, "d", dm, "dm", true);
    EXPECT1(P(c, "weights.encoder[%d].mha.dense_b", i), &m->dense_b, d, "d", false);
    const cf_tensor *rpe[3] = {&m->rpe_q, &m->rpe_k, &m->rpe_v};
    const bool has_rpe[3] = {a->rpe_q, a->rpe_k, a->rpe_v};
    for (int j = 0; j < 3; j++) {
      const char *path = P(c, "weights.encoder[%d].mha.rpe_%c", i, "qkv"[j]);
      if (has_rpe[j])
        EXPECT2(path, rpe[j], 225, "225", dm, "dh*H; encoder[0] has it", true);
      else
        CF_TRY(expect_absent(c, path, rpe[j], "encoder[0] has no such RPE tensor"));
    }
    if (m->has_smolgen != a->smolgen)
      return cf_error_set(c->err, CF_ERR_FORMAT,
                          "weights.encoder[%d].mha.smolgen: %s, but encoder[0] %s", i,
                          m->has_smolgen ? "present" : "missing",
                          a->smolgen ? "has smolgen" : "has none");
    if (a->smolgen) {
      cf_smolgen_weights *s = &m->smolgen;
      const int hc = a->smolgen_hc, hs = a->smolgen_hs;
      int hg;
      if (__builtin_mul_overflow(H, a->smolgen_gs, &hg))
        return cf_error_set(c->err, CF_ERR_FORMAT,
                            "weights.smolgen_w: headcount %d x gs %d overflows", H, a->smolgen_gs);
      EXPECT2(P(c, "weights.encoder[%d].mha.smolgen.compress", i), &s->compress, hc, "hc", d, "d",
              true);
      EXPECT2(P(c, "weights.encoder[%d].mha.smolgen.dense1_w", i), &s->dense1_w, hs, "hs",
              64 * (size_t)hc, "64*hc", true);
      EXPECT1(P(c, "weights.encoder[%d].mha.smolgen.dense1_b", i), &s->dense1_b, hs, "hs", false);
      EXPECT1(P(c, "weights.encoder[%d].mha.smolgen.ln1_gammas", i), &s->ln1_gammas, hs, "hs",
              true);
      EXPECT1(P(c, "weights.encoder[%d].mha.smolgen.ln1_betas", i), &s->ln1_betas, hs, "hs",
              false);
      EXPECT2(P(c, "weights.encoder[%d].mha.smolgen.dense2_w", i), &s->dense2_w, hg, "H*gs", hs,
              "hs", true);
      EXPECT1(P(c, "weights.encoder[%d].mha.smolgen.dense2_b", i), &s->dense2_b, hg, "H*gs",
              false);
      EXPECT1(P(c, "weights.encoder[%d].mha.smolgen.ln2_gammas", i), &s->ln2_gammas, hg, "H*gs",
              true);
      EXPECT1(P(c, "weights.encoder[%d].mha.smolgen.ln2_betas", i), &s->ln2_betas, hg, "H*gs",
              false);
    }
    char gpath[CF_WEIGHTS_PATH_MAX];
    snprintf(gpath, sizeof gpath, "weights.encoder[%d].ln1_gammas", i);
    CF_TRY(check_norm(c, gpath, &l->ln1_gammas, P(c, "weights.encoder[%d].ln1_betas", i),
                      &l->ln1_betas, d, a->rms_norm));
    snprintf(gpath, sizeof gpath, "weights.encoder[%d].ln2_gammas", i);
    CF_TRY(check_norm(c, gpath, &l->ln2_gammas, P(c, "weights.encoder[%d].ln2_betas", i),
                      &l->ln2_betas, d, a->rms_norm));
    EXPECT2(P(c, "weights.encoder[%d].ffn.dense1_w", i), &l->ffn.dense1_w, dff, "dff", d, "d",
            true);
    EXPECT1(P(c, "weights.encoder[%d].ffn.dense1_b", i), &l->ffn.dense1_b, dff, "dff", false);
    EXPECT2(P(c, "weights.encoder[%d].ffn.dense2_w", i), &l->ffn.dense2_w, d, "d", dff, "dff",
            true);
    EXPECT1(P(c, "weights.encoder[%d].ffn.dense2_b", i), &l->ffn.dense2_b, d, "d", false);
  }
  if (a->emb_norm) {
    CF_TRY(check_norm(c, "weights.ip_emb_ln_gammas", &w->ip_emb_ln_gammas,
                      "weights.ip_emb_ln_betas", &w->ip_emb_ln_betas, d, a->rms_norm));
    CF_TRY(check_norm(c, "weights.ip_emb_ffn_ln_gammas", &w->ip_emb_ffn_ln_gammas,
                      "weights.ip_emb_ffn_ln_betas", &w->ip_emb_ffn_ln_betas, d, a->rms_norm));
  }
  return CF_OK;
}

static bool policy_head_any(const cf_policy_head_weights *p) {
#define ANY(f) || cf_tensor_present(&p->f)
  return false CF_POLICY_HEAD_FIELDS(ANY);
#undef ANY
}

static bool value_head_any(const cf_value_head_weights *v) {
#define ANY(f) || cf_tensor_present(&v->f)
  return false CF_VALUE_HEAD_FIELDS(ANY);
#undef ANY
}

static cf_status infer_policy(arch_ctx *c, cf_weights *w) {
  cf_net_arch *a = &w->arch;
  const int d = a->d;
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
    w->policy[h].present = policy_head_any(&w->policy[h]);
  if (!w->policy[CF_POLICY_VANILLA].present)
    return cf_error_set(c->err, CF_ERR_FORMAT,
                        "weights.policy_heads.vanilla: required policy head missing (or, in a "
                        "single-head net, weights.ip2_pol_w/ip3_pol_w/ip4_pol_w)");
  CF_TRY(derive(c, "weights.policy_heads.ip_pol_w", &w->policy_ip_pol_w, (size_t)d, "d",
                "de", &a->policy_de));
  const int de = a->policy_de;
  EXPECT1("weights.policy_heads.ip_pol_b", &w->policy_ip_pol_b, de, "de", false);
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++) {
    cf_policy_head_weights *p = &w->policy[h];
    a->has_policy[h] = p->present;
    if (!p->present) continue;
    const char *hn = cf_policy_head_field[h];
    EXPECT2(P(c, "weights.policy_heads.%s.ip_pol_w", hn), &p->ip_pol_w, de, "de", d, "d", false);
    EXPECT1(P(c, "weights.policy_heads.%s.ip_pol_b", hn), &p->ip_pol_b, de, "de", false);
    int dp = 0;
    CF_TRY(derive(c, P(c, "weights.policy_heads.%s.ip2_pol_w", hn), &p->ip2_pol_w, (size_t)de,
                  "de (policy embedding width)", "dp", &dp));
    a->policy_dp[h] = dp;
    EXPECT1(P(c, "weights.policy_heads.%s.ip2_pol_b", hn), &p->ip2_pol_b, dp, "dp", false);
    EXPECT2(P(c, "weights.policy_heads.%s.ip3_pol_w", hn), &p->ip3_pol_w, dp, "dp", de, "de",
            true);
    EXPECT1(P(c, "weights.policy_heads.%s.ip3_pol_b", hn), &p->ip3_pol_b, dp, "dp", false);
    EXPECT2(P(c, "weights.policy_heads.%s.ip4_pol_w", hn), &p->ip4_pol_w, 4, "4 (q r b n)", dp,
            "dp", true);
  }
  return CF_OK;
}

static cf_status infer_value(arch_ctx *c, cf_weights *w) {
  cf_net_arch *a = &w->arch;
  const int d = a->d;
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++) w->value[h].present = value_head_any(&w->value[h]);
  if (!w->value[CF_VALUE_WINNER].present)
    return cf_error_set(c->err, CF_ERR_FORMAT,
                        "weights.value_heads.winner: required value head missing (or, in a "
                        "single-head net, weights.ip_val_w/ip1_val_w/ip2_val_w)");
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++) {
    cf_value_head_weights *v = &w->value[h];
    a->has_value[h] = v->present;
    if (!v->present) continue;
    const char *hn = cf_value_head_field[h];
    int cv = 0, outs = 0;
    CF_TRY(derive(c, P(c, "weights.value_heads.%s.ip_val_w", hn), &v->ip_val_w, (size_t)d, "d",
                  "cv", &cv));
    a->value_cv[h] = cv;
    EXPECT1(P(c, "weights.value_heads.%s.ip_val_b", hn), &v->ip_val_b, cv, "cv", false);
    EXPECT2(P(c, "weights.value_heads.%s.ip1_val_w", hn), &v->ip1_val_w, 128, "128",
            64 * (size_t)cv, "64*cv", true);
    EXPECT1(P(c, "weights.value_heads.%s.ip1_val_b", hn), &v->ip1_val_b, 128, "128", false);
    CF_TRY(derive(c, P(c, "weights.value_heads.%s.ip2_val_w", hn), &v->ip2_val_w, 128, "128",
                  "the value output count", &outs));
    if (outs != 1 && outs != 3)
      return cf_error_set(c->err, CF_ERR_FORMAT,
                          "weights.value_heads.%s.ip2_val_w: wrong size: %zu values = [%d][128]; "
                          "a value head has 3 (WDL) or 1 (tanh) outputs",
                          hn, v->ip2_val_w.n, outs);
    a->value_outputs[h] = outs;
    EXPECT1(P(c, "weights.value_heads.%s.ip2_val_b", hn), &v->ip2_val_b, outs, "outputs", false);
    if (cf_tensor_present(&v->ip_val_err_w) || cf_tensor_present(&v->ip_val_err_b)) {
      a->value_err[h] = true;
      EXPECT2(P(c, "weights.value_heads.%s.ip_val_err_w", hn), &v->ip_val_err_w, 1, "1", 128,
              "128", true);
      EXPECT1(P(c, "weights.value_heads.%s.ip_val_err_b", hn), &v->ip_val_err_b, 1, "1", false);
    }
    if (cf_tensor_present(&v->ip_val_cat_w) || cf_tensor_present(&v->ip_val_cat_b)) {
      CF_TRY(derive(c, P(c, "weights.value_heads.%s.ip_val_cat_w", hn), &v->ip_val_cat_w, 128,
                    "128", "the bucket count", &a->value_cat[h]));
      EXPECT1(P(c, "weights.value_heads.%s.ip_val_cat_b", hn), &v->ip_val_cat_b, a->value_cat[h],
              "buckets", false);
    }
  }
  const int want = a->value_format == 2 ? 3 : a->value_format == 1 ? 1 : 0;
  if (want && a->value_outputs[CF_VALUE_WINNER] != want)
    return cf_error_set(c->err, CF_ERR_FORMAT,
                        "weights.value_heads.winner.ip2_val_w: %d outputs, but value format %d "
                        "(%s) needs %d",
                        a->value_outputs[CF_VALUE_WINNER], a->value_format,
                        a->value_format == 2 ? "WDL" : "classical", want);
  return CF_OK;
}

static cf_status infer_moves_left(arch_ctx *c, cf_weights *w) {
  cf_net_arch *a = &w->arch;
  /* moves_left NONE: Lc0 ignores any moves-left tensors, and so do we. */
  if (a->moves_left_format != 1) return CF_OK;
  a->has_moves_left = true;
  CF_TRY(derive(c, "weights.ip_mov_w", &w->ip_mov_w, (size_t)a->d, "d", "cm", &a->mlh_cm));
  const int cm = a->mlh_cm;
  EXPECT1("weights.ip_mov_b", &w->ip_mov_b, cm, "cm", false);
  EXPECT2("weights.ip1_mov_w", &w->ip1_mov_w, 128, "128", 64 * (size_t)cm, "64*cm", true);
  EXPECT1("weights.ip1_mov_b", &w->ip1_mov_b, 128, "128", false);
  EXPECT2("weights.ip2_mov_w", &w->ip2_mov_w, 1, "1", 128, "128", true);
  EXPECT1("weights.ip2_mov_b", &w->ip2_mov_b, 1, "1", false);
  return CF_OK;
}

cf_status cf_weights_infer_arch(cf_weights *w, cf_error *err) {
  arch_ctx ctx = {.err = err}, *c = &ctx;
  cf_net_arch *a = &w->arch;
  /* Keep the format fields and the two counts; everything else is derived. */
  cf_net_arch given = *a;
  memset(a, 0, sizeof *a);
  a->input_format = given.input_format;
  a->output_format = given.output_format;
  a->network_format = given.network_format;
  a->policy_format = given.policy_format;
  a->value_format = given.value_format;
  a->moves_left_format = given.moves_left_format;
  a->input_embedding = given.input_embedding;
  a->default_act = given.default_act;
  a->smolgen_act = given.smolgen_act;
  a->ffn_act = given.ffn_act;
  a->layers = given.layers;
  a->heads = given.heads;

  if (a->network_format != 6 && a->network_format != 7)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "format.network_format.network: %d is not an attention-body network "
                        "(6, 7 or 134)",
                        a->network_format);
  if (!input_format_known(a->input_format))
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "format.network_format.input: input format %d is not supported (1-5, 132, "
                        "133)",
                        a->input_format);
  if (a->policy_format != 3)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "format.network_format.policy: policy format %d is not supported (only "
                        "attention policy, 3)",
                        a->policy_format);
  if (a->value_format < 1 || a->value_format > 3)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "format.network_format.value: value format %d is not supported (1-3)",
                        a->value_format);
  if (a->moves_left_format != 0 && a->moves_left_format != 1)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "format.network_format.moves_left: moves-left format %d is not supported",
                        a->moves_left_format);
  if (a->input_embedding < 0 || a->input_embedding > 2)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "format.network_format.input_embedding: %d is not supported (0-2)",
                        a->input_embedding);
  if (a->default_act != CF_ACT_RELU && a->default_act != CF_ACT_MISH)
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "format.network_format.default_activation: %s is not a default "
                        "activation (relu or mish)",
                        cf_activation_name(a->default_act));
  CF_TRY(resolve_act(c, "smolgen_activation", a->default_act, &a->smolgen_act));
  CF_TRY(resolve_act(c, "ffn_activation", a->default_act, &a->ffn_act));
  if (a->layers < 1 || !w->layers)
    return cf_error_set(err, CF_ERR_FORMAT, "weights.encoder: no encoder layers");
  if (a->layers > CF_WEIGHTS_MAX_LAYERS)
    return cf_error_set(err, CF_ERR_UNSUPPORTED, "weights.encoder: %d layers (at most %d)",
                        a->layers, CF_WEIGHTS_MAX_LAYERS);
  if (a->heads < 1)
    return cf_error_set(err, CF_ERR_FORMAT, "weights.headcount: missing or 0");

  CF_TRY(infer_embedding(c, w));
  CF_TRY(infer_encoder(c, w));
  CF_TRY(infer_policy(c, w));
  CF_TRY(infer_value(c, w));
  CF_TRY(infer_moves_left(c, w));

  /* NETWORK.md section 5: RMSNorm 1e-5; LayerNorm 1e-6 where Lc0 runs the
   * net itself (no RPE, not PE_DENSE), else the trainer's 1e-3. */
  if (a->rms_norm)
    a->norm_eps = 1e-5f;
  else if (!a->rpe_q && !a->rpe_k && !a->rpe_v && a->input_embedding != 2)
    a->norm_eps = 1e-6f;
  else
    a->norm_eps = 1e-3f;

  size_t count = 0;
  cf_weights_visit(w, count_one, &count);
  w->param_count = count;
  return CF_OK;
}
