/* weights_test_util.h: helpers for the weights/ tests and test tools (header
 * only): a deterministic random net of a given shape (superseded later by
 * `netconv random`), tensor-by-tensor comparison, file reading. */
#ifndef CF_WEIGHTS_TEST_UTIL_H
#define CF_WEIGHTS_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weights/cf_weights.h"

typedef struct cf_test_shape {
  int layers, d, heads, dff;
  int dm;              /* 0: d */
  int input_format;    /* 0: 1 */
  int input_embedding; /* 1 PE_MAP (F = pos_table ? 176 : 112), 2 PE_DENSE */
  bool pos_table;      /* PE_MAP with Lc0's 64-wide table (F = 176) */
  int dense_s, emb_dff; /* PE_DENSE channels per square, embedding FFN width */
  bool gating, rms, qkv_bias, rpe, smolgen;
  int sg_hc, sg_hs, sg_gs; /* smolgen widths (0: 4, 16, 8) */
  int de, dp, cv, cm;      /* 0: d, d, 8, 4 (cm < 0: no moves-left head) */
  bool soft_head, q_head;  /* extra policy head "soft", scalar value head "q" with err + cat */
  cf_activation ffn_act;   /* 0: DEFAULT */
  uint64_t seed;
} cf_test_shape;

static inline float cf_test_rand(uint64_t *s) {
  /* xorshift64*, uniform in [-1, 1). */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  uint64_t r = *s * 2685821657736338717ull;
  return (float)((double)(r >> 11) * 0x1p-53 * 2.0 - 1.0);
}

static inline bool cf_test_fill(cf_tensor *t, size_t n, float center, float scale, uint64_t *s) {
  t->data = malloc(n * sizeof(float));
  if (!t->data) return false;
  t->n = n;
  t->encoding = CF_ENC_FLOAT32;
  for (size_t i = 0; i < n; i++) t->data[i] = center + scale * cf_test_rand(s);
  return true;
}

/* A random net of the given shape, arch inferred; NULL on failure. */
static inline cf_weights *cf_test_random_net(const cf_test_shape *sh, cf_error *err) {
  cf_weights *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  uint64_t s = sh->seed ? sh->seed : 0x9e3779b97f4a7c15ull;
  const size_t d = (size_t)sh->d, dm = (size_t)(sh->dm ? sh->dm : sh->d), dff = (size_t)sh->dff;
  const size_t H = (size_t)sh->heads;
  const float ws = 1.0f / (float)d; /* keep activations tame */
  bool ok = true;
#define FILL(t, n, c, sc) ok = ok && cf_test_fill(&(t), (n), (c), (sc), &s)
  cf_net_arch *a = &w->arch;
  a->input_format = sh->input_format ? sh->input_format : 1;
  a->output_format = 2;
  a->network_format = 7;
  a->policy_format = 3;
  a->value_format = 2;
  a->moves_left_format = sh->cm >= 0 ? 1 : 0;
  a->input_embedding = sh->input_embedding ? sh->input_embedding : 1;
  a->default_act = CF_ACT_MISH;
  a->smolgen_act = CF_ACT_SWISH;
  a->ffn_act = sh->ffn_act;
  a->layers = sh->layers;
  a->heads = sh->heads;
  size_t F = 112;
  if (a->input_embedding == 2) {
    const size_t ds = (size_t)(sh->dense_s ? sh->dense_s : 2);
    const size_t edff = (size_t)(sh->emb_dff ? sh->emb_dff : sh->dff);
    F = 112 + ds;
    FILL(w->ip_emb_preproc_w, 64 * ds * 768, 0, 0.05f);
    FILL(w->ip_emb_preproc_b, 64 * ds, 0, 0.05f);
    FILL(w->ip_emb_ln_gammas, d, 1, 0.1f);
    if (!sh->rms) FILL(w->ip_emb_ln_betas, d, 0, 0.1f);
    FILL(w->ip_emb_ffn.dense1_w, edff * d, 0, ws);
    FILL(w->ip_emb_ffn.dense1_b, edff, 0, 0.1f);
    FILL(w->ip_emb_ffn.dense2_w, d * edff, 0, ws);
    FILL(w->ip_emb_ffn.dense2_b, d, 0, 0.1f);
    FILL(w->ip_emb_ffn_ln_gammas, d, 1, 0.1f);
    if (!sh->rms) FILL(w->ip_emb_ffn_ln_betas, d, 0, 0.1f);
  } else if (sh->pos_table) {
    F = 176;
  }
  FILL(w->ip_emb_w, d * F, 0, 0.1f);
  FILL(w->ip_emb_b, d, 0, 0.1f);
  if (sh->gating) {
    FILL(w->ip_mult_gate, d * 64, 1, 0.1f);
    FILL(w->ip_add_gate, d * 64, 0, 0.1f);
  }
  const size_t hc = (size_t)(sh->sg_hc ? sh->sg_hc : 4), hs = (size_t)(sh->sg_hs ? sh->sg_hs : 16);
  const size_t gs = (size_t)(sh->sg_gs ? sh->sg_gs : 8);
  if (sh->smolgen) FILL(w->smolgen_w, 4096 * gs, 0, 0.1f);
  w->layers = calloc((size_t)sh->layers, sizeof *w->layers);
  ok = ok && w->layers;
  for (int i = 0; ok && i < sh->layers; i++) {
    cf_encoder_layer_weights *l = &w->layers[i];
    FILL(l->mha.q_w, dm * d, 0, ws);
    FILL(l->mha.k_w, dm * d, 0, ws);
    FILL(l->mha.v_w, dm * d, 0, ws);
    if (sh->qkv_bias) {
      FILL(l->mha.q_b, dm, 0, 0.1f);
      FILL(l->mha.k_b, dm, 0, 0.1f);
      FILL(l->mha.v_b, dm, 0, 0.1f);
    }
    FILL(l->mha.dense_w, d * dm, 0, ws);
    FILL(l->mha.dense_b, d, 0, 0.1f);
    if (sh->rpe) {
      FILL(l->mha.rpe_q, 225 * dm, 0, 0.5f);
      FILL(l->mha.rpe_k, 225 * dm, 0, 0.5f);
      FILL(l->mha.rpe_v, 225 * dm, 0, 0.5f);
    }
    if (sh->smolgen) {
      cf_smolgen_weights *g = &l->mha.smolgen;
      l->mha.has_smolgen = true;
      FILL(g->compress, hc * d, 0, ws);
      FILL(g->dense1_w, hs * 64 * hc, 0, 0.05f);
      FILL(g->dense1_b, hs, 0, 0.1f);
      FILL(g->ln1_gammas, hs, 1, 0.1f);
      FILL(g->ln1_betas, hs, 0, 0.1f);
      FILL(g->dense2_w, H * gs * hs, 0, 0.1f);
      FILL(g->dense2_b, H * gs, 0, 0.1f);
      FILL(g->ln2_gammas, H * gs, 1, 0.1f);
      FILL(g->ln2_betas, H * gs, 0, 0.1f);
    }
    FILL(l->ln1_gammas, d, 1, 0.1f);
    if (!sh->rms) FILL(l->ln1_betas, d, 0, 0.1f);
    FILL(l->ffn.dense1_w, dff * d, 0, ws);
    FILL(l->ffn.dense1_b, dff, 0, 0.1f);
    FILL(l->ffn.dense2_w, d * dff, 0, 1.0f / (float)dff);
    FILL(l->ffn.dense2_b, d, 0, 0.1f);
    FILL(l->ln2_gammas, d, 1, 0.1f);
    if (!sh->rms) FILL(l->ln2_betas, d, 0, 0.1f);
  }
  const size_t de = (size_t)(sh->de ? sh->de : sh->d), dp = (size_t)(sh->dp ? sh->dp : sh->d);
  FILL(w->policy_ip_pol_w, de * d, 0, ws);
  FILL(w->policy_ip_pol_b, de, 0, 0.1f);
  for (int h = 0; h < (sh->soft_head ? 2 : 1); h++) {
    cf_policy_head_weights *p = &w->policy[h == 0 ? CF_POLICY_VANILLA : CF_POLICY_SOFT];
    const size_t hdp = h == 0 ? dp : (dp + 1) / 2;
    FILL(p->ip2_pol_w, hdp * de, 0, ws);
    FILL(p->ip2_pol_b, hdp, 0, 0.1f);
    FILL(p->ip3_pol_w, hdp * de, 0, ws);
    FILL(p->ip3_pol_b, hdp, 0, 0.1f);
    FILL(p->ip4_pol_w, 4 * hdp, 0, 0.1f);
  }
  const size_t cv = (size_t)(sh->cv ? sh->cv : 8);
  for (int h = 0; h < (sh->q_head ? 2 : 1); h++) {
    cf_value_head_weights *v = &w->value[h == 0 ? CF_VALUE_WINNER : CF_VALUE_Q];
    FILL(v->ip_val_w, cv * d, 0, ws);
    FILL(v->ip_val_b, cv, 0, 0.1f);
    FILL(v->ip1_val_w, 128 * 64 * cv, 0, 0.01f);
    FILL(v->ip1_val_b, 128, 0, 0.1f);
    FILL(v->ip2_val_w, (h == 0 ? 3 : 1) * 128, 0, 0.1f);
    FILL(v->ip2_val_b, h == 0 ? 3 : 1, 0, 0.1f);
    if (h == 1) {
      FILL(v->ip_val_err_w, 128, 0, 0.1f);
      FILL(v->ip_val_err_b, 1, 0, 0.1f);
      FILL(v->ip_val_cat_w, 16 * 128, 0, 0.1f);
      FILL(v->ip_val_cat_b, 16, 0, 0.1f);
    }
  }
  if (sh->cm >= 0) {
    const size_t cm = (size_t)(sh->cm ? sh->cm : 4);
    FILL(w->ip_mov_w, cm * d, 0, ws);
    FILL(w->ip_mov_b, cm, 0, 0.1f);
    FILL(w->ip1_mov_w, 128 * 64 * cm, 0, 0.01f);
    FILL(w->ip1_mov_b, 128, 0, 0.1f);
    FILL(w->ip2_mov_w, 128, 0, 0.1f);
    FILL(w->ip2_mov_b, 1, 0, 0.1f);
  }
#undef FILL
  if (!ok) {
    cf_weights_free(w);
    cf_error_set(err, CF_ERR_NOMEM, "random net: out of memory");
    return NULL;
  }
  if (cf_weights_infer_arch(w, err) != CF_OK) {
    cf_weights_free(w);
    return NULL;
  }
  return w;
}

/* Tensor slots of a net, in visit order. */
typedef struct cf_test_tensor_list {
  cf_tensor *t[4096];
  char path[4096][CF_WEIGHTS_PATH_MAX];
  int n;
} cf_test_tensor_list;

static inline bool cf_test_collect_one(void *user, const char *path, cf_tensor *t) {
  cf_test_tensor_list *l = user;
  if (l->n >= 4096) return false;
  l->t[l->n] = t;
  snprintf(l->path[l->n], CF_WEIGHTS_PATH_MAX, "%s", path);
  l->n++;
  return true;
}

/* Largest |a - b| / (abs_tol + rel_tol * |a|) over all values of all
 * tensors: <= 1 means every value is within tolerance. Sizes must match
 * (else returns 1e30 and names the first mismatch in where). */
static inline double cf_test_compare_nets(cf_weights *a, cf_weights *b, double abs_tol,
                                          double rel_tol, char *where, size_t where_size) {
  static cf_test_tensor_list la, lb; /* large: keep off the stack */
  la.n = lb.n = 0;
  cf_weights_visit(a, cf_test_collect_one, &la);
  cf_weights_visit(b, cf_test_collect_one, &lb);
  if (la.n != lb.n) {
    snprintf(where, where_size, "tensor slot count %d vs %d", la.n, lb.n);
    return 1e30;
  }
  double worst = 0;
  for (int i = 0; i < la.n; i++) {
    if (la.t[i]->n != lb.t[i]->n) {
      snprintf(where, where_size, "%s: %zu vs %zu values", la.path[i], la.t[i]->n, lb.t[i]->n);
      return 1e30;
    }
    for (size_t j = 0; j < la.t[i]->n; j++) {
      double x = la.t[i]->data[j], y = lb.t[i]->data[j];
      double r = (x > y ? x - y : y - x) / (abs_tol + rel_tol * (x < 0 ? -x : x));
      if (r > worst) {
        worst = r;
        snprintf(where, where_size, "%s[%zu]: %.9g vs %.9g", la.path[i], j, x, y);
      }
    }
  }
  return worst;
}

/* Whole file into a malloc'd buffer; NULL on failure. */
static inline uint8_t *cf_test_read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return buf;
}

static inline bool cf_test_write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

#endif /* CF_WEIGHTS_TEST_UTIL_H */
