/* nc_names.c: tensor name tables (nc_names.h, docs/TRAINER_NAMES.md). */
#include "tools/netconv/nc_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct builder {
  nc_slot *s;
  int n, cap;
  bool ok;
} builder;

/* Adds a slot named ours / cf. */
static void add(builder *b, cf_tensor *t, int rows, bool matrix, bool required, const char *ours,
                const char *cf) {
  if (!b->ok) return;
  if (b->n == b->cap) {
    int cap = b->cap ? 2 * b->cap : 256;
    nc_slot *s = realloc(b->s, (size_t)cap * sizeof *s);
    if (!s) {
      b->ok = false;
      return;
    }
    b->s = s;
    b->cap = cap;
  }
  nc_slot *s = &b->s[b->n++];
  memset(s, 0, sizeof *s);
  s->t = t;
  s->rows = matrix ? rows : 0;
  s->matrix = matrix;
  s->required = required;
  snprintf(s->name[NC_NAMING_OURS], sizeof s->name[0], "%s", ours);
  snprintf(s->name[NC_NAMING_CHESSFORMER], sizeof s->name[0], "%s", cf);
}

/* prefix + suffix in one of two rotating buffers per naming (each name is
 * copied by add before the buffer is reused). */
static const char *J(int which, const char *prefix, const char *suffix) {
  static char buf[2][2][96];
  static int turn[2];
  char *o = buf[which][turn[which]++ & 1];
  snprintf(o, 96, "%s%s", prefix, suffix);
  return o;
}

/* po / pc: the current name prefixes (ours / Chessformer). */
#define MAT(t, rows, req, ours, cf) add(b, &(t), (rows), true, (req), J(0, po, ours), J(1, pc, cf))
#define VEC(t, req, ours, cf) add(b, &(t), 0, false, (req), J(0, po, ours), J(1, pc, cf))

static void ffn(builder *b, cf_ffn_weights *f, int dff, int d, bool req, const char *o1,
                const char *o2, const char *cf) {
  add(b, &f->dense1_w, dff, true, req, J(0, o1, ".weight"), J(1, cf, "/dense1/kernel"));
  add(b, &f->dense1_b, 0, false, false, J(0, o1, ".bias"), J(1, cf, "/dense1/bias"));
  add(b, &f->dense2_w, d, true, req, J(0, o2, ".weight"), J(1, cf, "/dense2/kernel"));
  add(b, &f->dense2_b, 0, false, false, J(0, o2, ".bias"), J(1, cf, "/dense2/bias"));
}

static void layer(builder *b, cf_weights *w, int i) {
  const cf_net_arch *a = &w->arch;
  cf_encoder_layer_weights *l = &w->layers[i];
  cf_mha_weights *m = &l->mha;
  char po[32], pc[32];
  snprintf(po, sizeof po, "encoder.%d.", i);
  snprintf(pc, sizeof pc, "encoder_%d/", i + 1); /* the Chessformer trainer counts from 1 */
  MAT(m->q_w, a->dm, true, "mha.wq.weight", "mha/wq/kernel");
  VEC(m->q_b, false, "mha.wq.bias", "mha/wq/bias");
  MAT(m->k_w, a->dm, true, "mha.wk.weight", "mha/wk/kernel");
  VEC(m->k_b, false, "mha.wk.bias", "mha/wk/bias");
  MAT(m->v_w, a->dm, true, "mha.wv.weight", "mha/wv/kernel");
  VEC(m->v_b, false, "mha.wv.bias", "mha/wv/bias");
  MAT(m->dense_w, a->d, true, "mha.dense.weight", "mha/dense/kernel");
  VEC(m->dense_b, false, "mha.dense.bias", "mha/dense/bias");
  if (m->has_smolgen) {
    cf_smolgen_weights *g = &m->smolgen;
    const int hc = a->smolgen_hc, hs = a->smolgen_hs, hgs = a->heads * a->smolgen_gs;
    MAT(g->compress, hc, true, "mha.smolgen.compress.weight", "mha/smolgen/compress/kernel");
    MAT(g->dense1_w, hs, true, "mha.smolgen.dense1.weight", "mha/smolgen/hidden1_dense/kernel");
    VEC(g->dense1_b, false, "mha.smolgen.dense1.bias", "mha/smolgen/hidden1_dense/bias");
    VEC(g->ln1_gammas, true, "mha.smolgen.ln1.weight", "mha/smolgen/hidden1_ln/gamma");
    VEC(g->ln1_betas, false, "mha.smolgen.ln1.bias", "mha/smolgen/hidden1_ln/beta");
    MAT(g->dense2_w, hgs, true, "mha.smolgen.dense2.weight", "mha/smolgen/gen_from/kernel");
    VEC(g->dense2_b, false, "mha.smolgen.dense2.bias", "mha/smolgen/gen_from/bias");
    VEC(g->ln2_gammas, true, "mha.smolgen.ln2.weight", "mha/smolgen/gen_from_ln/gamma");
    VEC(g->ln2_betas, false, "mha.smolgen.ln2.bias", "mha/smolgen/gen_from_ln/beta");
  }
  MAT(m->rpe_q, 225, false, "mha.rpe_q", "mha/rpe_q/rpe");
  MAT(m->rpe_k, 225, false, "mha.rpe_k", "mha/rpe_k/rpe");
  MAT(m->rpe_v, 225, false, "mha.rpe_v", "mha/rpe_v/rpe_value");
  VEC(l->ln1_gammas, true, "ln1.weight", "ln1/gamma");
  VEC(l->ln1_betas, false, "ln1.bias", "ln1/beta");
  char o1[48], o2[48], cf[48];
  snprintf(o1, sizeof o1, "encoder.%d.ffn1", i);
  snprintf(o2, sizeof o2, "encoder.%d.ffn2", i);
  snprintf(cf, sizeof cf, "encoder_%d/ffn", i + 1);
  ffn(b, &l->ffn, a->dff, a->d, true, o1, o2, cf);
  VEC(l->ln2_gammas, true, "ln2.weight", "ln2/gamma");
  VEC(l->ln2_betas, false, "ln2.bias", "ln2/beta");
}

/* Our names of the heads model.py has carry no head name ("policy_wq",
 * "value_embedding"); the other heads put theirs in ("policy_soft_wq",
 * "value_q_embedding"). */
static void heads(builder *b, cf_weights *w) {
  const cf_net_arch *a = &w->arch;
  const char *po = "", *pc = "";
  MAT(w->policy_ip_pol_w, a->policy_de, true, "policy_embedding.weight", "policy/embedding/kernel");
  VEC(w->policy_ip_pol_b, false, "policy_embedding.bias", "policy/embedding/bias");
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++) {
    cf_policy_head_weights *p = &w->policy[h];
    const char *hn = cf_policy_head_name((cf_policy_head_id)h);
    char o[48], c[48];
    snprintf(o, sizeof o, h == CF_POLICY_VANILLA ? "policy_" : "policy_%s_", hn);
    snprintf(c, sizeof c, "policy/%s/", hn);
    po = o;
    pc = c;
    const int de = a->policy_de, dp = a->policy_dp[h];
    MAT(p->ip_pol_w, p->ip_pol_w.n && de ? (int)(p->ip_pol_w.n / (size_t)de) : 0, false,
        "head_embedding.weight", "embedding/kernel");
    VEC(p->ip_pol_b, false, "head_embedding.bias", "embedding/bias");
    MAT(p->ip2_pol_w, dp, false, "wq.weight", "attention/wq/kernel");
    VEC(p->ip2_pol_b, false, "wq.bias", "attention/wq/bias");
    MAT(p->ip3_pol_w, dp, false, "wk.weight", "attention/wk/kernel");
    VEC(p->ip3_pol_b, false, "wk.bias", "attention/wk/bias");
    MAT(p->ip4_pol_w, 4, false, "ppo.weight", "attention/ppo/kernel");
  }
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++) {
    cf_value_head_weights *v = &w->value[h];
    const char *hn = cf_value_head_name((cf_value_head_id)h);
    char o[48], c[48];
    snprintf(o, sizeof o, h == CF_VALUE_WINNER ? "value_" : "value_%s_", hn);
    snprintf(c, sizeof c, "value/%s/", hn);
    po = o;
    pc = c;
    const bool req = h == CF_VALUE_WINNER;
    MAT(v->ip_val_w, a->value_cv[h], req, "embedding.weight", "embedding/kernel");
    VEC(v->ip_val_b, false, "embedding.bias", "embedding/bias");
    MAT(v->ip1_val_w, 128, req, "dense1.weight", "dense1/kernel");
    VEC(v->ip1_val_b, false, "dense1.bias", "dense1/bias");
    MAT(v->ip2_val_w, a->value_outputs[h], req, "dense2.weight", "dense2/kernel");
    VEC(v->ip2_val_b, false, "dense2.bias", "dense2/bias");
    MAT(v->ip_val_err_w, 1, false, "dense_error.weight", "dense_error/kernel");
    VEC(v->ip_val_err_b, false, "dense_error.bias", "dense_error/bias");
    MAT(v->ip_val_cat_w, a->value_cat[h], false, "dense_cat.weight", "dense_cat/kernel");
    VEC(v->ip_val_cat_b, false, "dense_cat.bias", "dense_cat/bias");
  }
  po = "ml_";
  pc = "moves_left/";
  MAT(w->ip_mov_w, a->mlh_cm, false, "embedding.weight", "embedding/kernel");
  VEC(w->ip_mov_b, false, "embedding.bias", "embedding/bias");
  MAT(w->ip1_mov_w, 128, false, "dense1.weight", "dense1/kernel");
  VEC(w->ip1_mov_b, false, "dense1.bias", "dense1/bias");
  MAT(w->ip2_mov_w, 1, false, "dense2.weight", "dense2/kernel");
  VEC(w->ip2_mov_b, false, "dense2.bias", "dense2/bias");
}

nc_slot *nc_slots(cf_weights *w, int *count) {
  builder bb = {.ok = true}, *b = &bb;
  const cf_net_arch *a = &w->arch;
  const char *po = "", *pc = "embedding/";
  MAT(w->ip_emb_preproc_w, 64 * a->emb_dense_s, false, "embedding_preproc.weight",
      "preprocess/kernel");
  VEC(w->ip_emb_preproc_b, false, "embedding_preproc.bias", "preprocess/bias");
  MAT(w->ip_emb_w, a->d, true, "embedding.weight", "kernel");
  VEC(w->ip_emb_b, false, "embedding.bias", "bias");
  VEC(w->ip_emb_ln_gammas, false, "embedding_ln.weight", "ln/gamma");
  VEC(w->ip_emb_ln_betas, false, "embedding_ln.bias", "ln/beta");
  MAT(w->ip_mult_gate, a->d, false, "mult_gate", "mult_gate/gate");
  MAT(w->ip_add_gate, a->d, false, "add_gate", "add_gate/gate");
  ffn(b, &w->ip_emb_ffn, a->emb_ffn_dff, a->d, false, "embedding_ffn1", "embedding_ffn2",
      "embedding/ffn");
  VEC(w->ip_emb_ffn_ln_gammas, false, "embedding_ffn_ln.weight", "ffn_ln/gamma");
  VEC(w->ip_emb_ffn_ln_betas, false, "embedding_ffn_ln.bias", "ffn_ln/beta");
  pc = "";
  /* The trainer's Dense "smol_weight_gen" (it has no bias; Lc0's field does). */
  MAT(w->smolgen_w, 4096, false, "smolgen_w", "smol_weight_gen/kernel");
  VEC(w->smolgen_b, false, "smolgen_b", "smol_weight_gen/bias");
  for (int i = 0; w->layers && i < a->layers; i++) layer(b, w, i);
  heads(b, w);
  if (!bb.ok) {
    free(bb.s);
    return NULL;
  }
  *count = bb.n;
  return bb.s;
}

nc_slot *nc_slot_find(nc_slot *slots, int count, nc_naming n, const char *name) {
  for (int i = 0; i < count; i++)
    if (strcmp(slots[i].name[n], name) == 0) return &slots[i];
  return NULL;
}

int nc_name_layer(nc_naming n, const char *name) {
  const char *prefix = n == NC_NAMING_OURS ? "encoder." : "encoder_";
  size_t pl = strlen(prefix);
  if (strncmp(name, prefix, pl) != 0) return -1;
  const char *p = name + pl;
  long v = 0;
  int digits = 0;
  while (*p >= '0' && *p <= '9' && digits < 6) v = v * 10 + (*p++ - '0'), digits++;
  if (!digits || *p != (n == NC_NAMING_OURS ? '.' : '/')) return -1;
  if (n == NC_NAMING_CHESSFORMER) v -= 1;
  return v >= 0 && v < CF_WEIGHTS_MAX_LAYERS ? (int)v : -1;
}

bool nc_name_is_smolgen(nc_naming n, const char *name) {
  return strstr(name, n == NC_NAMING_OURS ? ".mha.smolgen." : "/mha/smolgen/") != NULL;
}

const char *nc_naming_name(nc_naming n) { return n == NC_NAMING_OURS ? "ours" : "chessformer"; }

const char *nc_name_canonical(nc_naming n, const char *name, char *buf, size_t size) {
  static const char old_sg[] = "smolgen_weights/", new_sg[] = "smol_weight_gen/";
  if (n != NC_NAMING_CHESSFORMER) {
    snprintf(buf, size, "%s", name);
    return buf;
  }
  if (strncmp(name, old_sg, sizeof old_sg - 1) == 0)
    snprintf(buf, size, "%s%s", new_sg, name + sizeof old_sg - 1);
  else
    snprintf(buf, size, "%s", name);
  size_t len = strlen(buf);
  if (len > 2 && strcmp(buf + len - 2, ":0") == 0) buf[len - 2] = '\0';
  return buf;
}

nc_ignored nc_name_ignored(nc_naming n, const char *name) {
  if (n != NC_NAMING_CHESSFORMER) return NC_USED;
  if (strncmp(name, "policy/next/", 12) == 0) return NC_IGNORED_NEXT;
  /* The trainer's quantisers hold one weight "s": encoder_N/mha/quantize_1/s,
   * encoder_N/mha/wq/.../s, encoder_N/ffn/dense1/.../s, embedding/ffn/... */
  const char *last = strrchr(name, '/');
  if (last && strcmp(last, "/s") == 0 && (strstr(name, "/mha/") || strstr(name, "/ffn/")) &&
      (nc_name_layer(n, name) >= 0 || strncmp(name, "embedding/", 10) == 0))
    return NC_IGNORED_SCALE;
  return NC_USED;
}
