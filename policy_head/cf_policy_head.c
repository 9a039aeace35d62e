/* cf_policy_head.c: the attention policy heads on the backend, and the
 * host-side gather of legal-move logits. */
#include "policy_head/cf_policy_head.h"

#include <math.h>
#include <stdlib.h>

typedef struct head {
  bool on;
  int dp;              /* Q/K width */
  cf_bweight *wq, *bq; /* [dp][de], [dp] */
  cf_bweight *wk, *bk; /* [dp][de], [dp] */
  cf_bweight *ppo;     /* [4][dp]: rows queen, rook, bishop, knight; may be NULL */
  float *host_logits;  /* [B][64 from][64 to] */
  float *host_promo;   /* [B][64][4]: o[r] of key token t at t*4 + r (t >= 56 used) */
} head;

struct cf_policy {
  cf_backend *be; /* not owned */
  int max_batch, d, de;
  cf_op_act act;
  cf_bweight *emb_w, *emb_b; /* shared embedding [de][d], [de] */
  /* backend scratch, shared by the heads (they run one after another) */
  float *p0;     /* [B*64][de] */
  float *qp;     /* [B*64][max dp] */
  float *kp;     /* [B*64][max dp] */
  float *logits; /* [B][64][64] */
  float *promo;  /* [B*64][4] */
  head heads[CF_POLICY_HEAD_COUNT];
};

unsigned cf_policy_requirements(const cf_net_arch *arch) {
  return (1u << CF_OP_ACT_NONE) |
         (cf_op_act_valid(arch->default_act) ? 1u << arch->default_act : 0u);
}

static cf_status weight(cf_backend *be, cf_weight_role role, int rows, int cols, const cf_tensor *t,
                        const char *what, cf_bweight **out, cf_error *err) {
  *out = NULL;
  if (!cf_tensor_present(t)) return CF_OK;
  if (t->n != (size_t)rows * (size_t)cols)
    return cf_error_set(err, CF_ERR_FORMAT, "policy %s has %zu values, expected %d x %d", what,
                        t->n, rows, cols);
  return cf_op_weight_use(be, CF_WEIGHT_USE_HEAD, role, rows, cols, t->data, out, err);
}

static cf_status upload_head(cf_policy *p, const cf_policy_head_weights *w, cf_policy_head_id id,
                             int dp, cf_error *err) {
  head *h = &p->heads[id];
  const char *name = cf_policy_head_name(id);
  h->on = true;
  h->dp = dp;
  if (cf_tensor_present(&w->ip_pol_w))
    return cf_error_set(err, CF_ERR_UNSUPPORTED,
                        "policy head '%s' has its own embedding (ip_pol_w); only the shared "
                        "policy embedding is supported",
                        name);
  if (dp <= 0 || !cf_tensor_present(&w->ip2_pol_w) || !cf_tensor_present(&w->ip3_pol_w))
    return cf_error_set(err, CF_ERR_FORMAT, "policy head '%s' lacks wq/wk", name);
  CF_TRY(weight(p->be, CF_WEIGHT_MATRIX, dp, p->de, &w->ip2_pol_w, "wq", &h->wq, err));
  CF_TRY(weight(p->be, CF_WEIGHT_VECTOR, 1, dp, &w->ip2_pol_b, "bq", &h->bq, err));
  CF_TRY(weight(p->be, CF_WEIGHT_MATRIX, dp, p->de, &w->ip3_pol_w, "wk", &h->wk, err));
  CF_TRY(weight(p->be, CF_WEIGHT_VECTOR, 1, dp, &w->ip3_pol_b, "bk", &h->bk, err));
  CF_TRY(weight(p->be, CF_WEIGHT_MATRIX, 4, dp, &w->ip4_pol_w, "ppo", &h->ppo, err));
  size_t B = (size_t)p->max_batch;
  h->host_logits = malloc(B * 4096 * sizeof(float));
  h->host_promo = calloc(B * 64 * 4, sizeof(float));
  if (!h->host_logits || !h->host_promo)
    return cf_error_set(err, CF_ERR_NOMEM, "policy head '%s': out of memory", name);
  return CF_OK;
}

static cf_status create(cf_policy *p, const cf_weights *w, unsigned head_mask, cf_error *err) {
  const cf_net_arch *a = &w->arch;
  if (!cf_op_act_valid(a->default_act))
    return cf_error_set(err, CF_ERR_UNSUPPORTED, "policy: activation %d unsupported",
                        a->default_act);
  CF_TRY(weight(p->be, CF_WEIGHT_MATRIX, p->de, p->d, &w->policy_ip_pol_w, "embedding", &p->emb_w,
                err));
  CF_TRY(weight(p->be, CF_WEIGHT_VECTOR, 1, p->de, &w->policy_ip_pol_b, "embedding bias", &p->emb_b,
                err));
  if (!p->emb_w) return cf_error_set(err, CF_ERR_FORMAT, "policy embedding ip_pol_w is missing");
  int max_dp = 0;
  for (int id = 0; id < CF_POLICY_HEAD_COUNT; id++) {
    if (!(head_mask & (1u << id))) continue;
    if (!a->has_policy[id] || !w->policy[id].present)
      return cf_error_set(err, CF_ERR_ARG, "the network has no '%s' policy head",
                          cf_policy_head_name((cf_policy_head_id)id));
    CF_TRY(upload_head(p, &w->policy[id], (cf_policy_head_id)id, a->policy_dp[id], err));
    if (a->policy_dp[id] > max_dp) max_dp = a->policy_dp[id];
  }
  size_t rows = (size_t)p->max_batch * 64;
  const char *what = "policy activations";
  CF_TRY(cf_op_buffer(p->be, rows * p->de, what, &p->p0, err));
  CF_TRY(cf_op_buffer(p->be, rows * (max_dp ? max_dp : 1), what, &p->qp, err));
  CF_TRY(cf_op_buffer(p->be, rows * (max_dp ? max_dp : 1), what, &p->kp, err));
  CF_TRY(cf_op_buffer(p->be, rows * 64, what, &p->logits, err));
  return cf_op_buffer(p->be, rows * 4, what, &p->promo, err);
}

cf_status cf_policy_create(const cf_weights *w, cf_backend *be, int max_batch, unsigned head_mask,
                           cf_policy **out, cf_error *err) {
  *out = NULL;
  cf_policy *p = calloc(1, sizeof *p);
  if (!p) return cf_error_set(err, CF_ERR_NOMEM, "policy: out of memory");
  p->be = be;
  p->max_batch = max_batch;
  p->d = w->arch.d;
  p->de = w->arch.policy_de;
  p->act = (cf_op_act)w->arch.default_act;
  cf_status st = create(p, w, head_mask, err);
  if (st != CF_OK) {
    cf_policy_free(p);
    return st;
  }
  *out = p;
  return CF_OK;
}

void cf_policy_free(cf_policy *p) {
  if (!p) return;
  cf_op_weight_free(p->be, p->emb_w);
  cf_op_weight_free(p->be, p->emb_b);
  for (int id = 0; id < CF_POLICY_HEAD_COUNT; id++) {
    head *h = &p->heads[id];
    cf_op_weight_free(p->be, h->wq);
    cf_op_weight_free(p->be, h->bq);
    cf_op_weight_free(p->be, h->wk);
    cf_op_weight_free(p->be, h->bk);
    cf_op_weight_free(p->be, h->ppo);
    free(h->host_logits);
    free(h->host_promo);
  }
  cf_op_free(p->be, p->p0);
  cf_op_free(p->be, p->qp);
  cf_op_free(p->be, p->kp);
  cf_op_free(p->be, p->logits);
  cf_op_free(p->be, p->promo);
  free(p);
}

void cf_policy_forward(cf_policy *p, int batch, const float *tokens) {
  cf_backend *be = p->be;
  const int rows = batch * 64;
  /* p0[rows][de] = act(tokens W_pe^T + b_pe) */
  cf_op_linear(be, rows, p->d, p->de, tokens, p->emb_w, p->emb_b, p->act, p->p0);
  for (int id = 0; id < CF_POLICY_HEAD_COUNT; id++) {
    head *h = &p->heads[id];
    if (!h->on) continue;
    /* qp, kp [rows][dp] */
    cf_op_linear(be, rows, p->de, h->dp, p->p0, h->wq, h->bq, CF_OP_ACT_NONE, p->qp);
    cf_op_linear(be, rows, p->de, h->dp, p->p0, h->wk, h->bk, CF_OP_ACT_NONE, p->kp);
    /* logits[batch][64][64] = qp kp^T / sqrt(dp) */
    cf_op_matmul_nt(be, batch, 64, 64, h->dp, p->qp, p->kp, 1.0f / sqrtf((float)h->dp), p->logits);
    cf_op_download(be, h->host_logits, p->logits, (size_t)batch * 4096);
    if (h->ppo) {
      /* promo[rows][4] = kp ppo^T: every token, though only 56..63 are read;
       * it keeps the op a plain linear and costs 4 dp per token. */
      cf_op_linear(be, rows, h->dp, 4, p->kp, h->ppo, NULL, CF_OP_ACT_NONE, p->promo);
      cf_op_download(be, h->host_promo, p->promo, (size_t)rows * 4);
    }
  }
}

/* The logit of attention slot a (0..4287) of position b. */
static float slot_logit(const head *h, int b, int a) {
  const float *L = h->host_logits + (size_t)b * 4096; /* [64][64] */
  if (a < 4096) return L[a];
  int i = (a - 4096) / 24, j = (a - 4096) % 24 / 3, r = (a - 4096) % 3;
  const float *o = h->host_promo + ((size_t)b * 64 + 56 + j) * 4; /* o[q r b n] of key 56+j */
  return L[(48 + i) * 64 + 56 + j] + o[r] + o[3];
}

void cf_policy_gather(const cf_policy *p, cf_policy_head_id head_id, int b,
                      const cf_policy_move *moves, int n, bool black_to_move, int transform,
                      float *logits) {
  const head *h = &p->heads[head_id];
  for (int i = 0; i < n; i++) {
    int a = cf_policy_move_attention(moves[i], black_to_move, transform);
    logits[i] = a < 0 ? -INFINITY : slot_logit(h, b, a);
  }
}

void cf_policy_gather_1858(const cf_policy *p, cf_policy_head_id head_id, int b, float *out1858) {
  const head *h = &p->heads[head_id];
  for (int a = 0; a < CF_POLICY_4288; a++) {
    int idx = cf_policy_1858_of_attention(a);
    if (idx >= 0) out1858[idx] = slot_logit(h, b, a);
  }
}
