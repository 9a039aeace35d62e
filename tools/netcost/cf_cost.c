/* cf_cost.c: per-evaluation cost of a network (cf_cost.h, NETWORK.md section 8). */
#include "tools/netcost/cf_cost.h"

#include <string.h>

enum { T = 64 }; /* tokens per position */

typedef uint64_t u64;

static u64 policy_head_macs(const cf_net_arch *a, int h) {
  const u64 de = (u64)a->policy_de, dp = (u64)a->policy_dp[h];
  /* wq and wk per token, from-to logits, promotion offsets of 8 rank-8 keys. */
  return T * 2 * de * dp + (u64)T * T * dp + 8 * 4 * dp;
}

static u64 value_head_macs(const cf_net_arch *a, int h) {
  const u64 d = (u64)a->d, cv = (u64)a->value_cv[h];
  u64 m = T * d * cv + T * cv * 128 + 128 * (u64)a->value_outputs[h];
  if (a->value_err[h]) m += 128;
  m += 128 * (u64)a->value_cat[h];
  return m;
}

static int default_policy_head(const cf_net_arch *a) {
  if (a->has_policy[CF_POLICY_VANILLA]) return CF_POLICY_VANILLA;
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
    if (a->has_policy[h]) return h;
  return -1;
}

static int default_value_head(const cf_net_arch *a) {
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++)
    if (a->has_value[h]) return h;
  return -1;
}

cf_status cf_cost_from_arch(const cf_net_arch *a, cf_cost *out, cf_error *err) {
  memset(out, 0, sizeof *out);
  if (a->layers <= 0 || a->d <= 0 || a->heads <= 0 || a->dm <= 0 || a->dff <= 0 ||
      a->emb_inputs <= 0)
    return cf_error_set(err, CF_ERR_ARG,
                        "cost: incomplete architecture (layers %d, d %d, heads %d, dm %d, dff %d, "
                        "embedding inputs %d)",
                        a->layers, a->d, a->heads, a->dm, a->dff, a->emb_inputs);
  const u64 L = (u64)a->layers, d = (u64)a->d, dm = (u64)a->dm, dff = (u64)a->dff;
  cf_cost_parts *p = &out->parts;

  /* Preprocessing maps the 768 piece features of the whole board to 64*s
   * outputs once per position; the embedding FFN runs per token. */
  p->embedding = 768 * T * (u64)a->emb_dense_s + T * (u64)a->emb_inputs * d +
                 T * 2 * d * (u64)a->emb_ffn_dff;
  p->projections = L * T * 4 * d * dm;
  p->ffn = L * T * 2 * d * dff;
  p->attention = L * 2 * (u64)T * T * dm;
  p->rpe = L * (u64)T * T * dm * (u64)(a->rpe_q + a->rpe_k + a->rpe_v);
  if (a->smolgen) {
    const u64 hc = (u64)a->smolgen_hc, hs = (u64)a->smolgen_hs, gs = (u64)a->smolgen_gs;
    const u64 H = (u64)a->heads;
    p->smolgen = L * (T * d * hc + T * hc * hs + hs * H * gs + H * gs * (u64)T * T);
  }
  p->policy_embedding = T * d * (u64)a->policy_de;
  const int ph = default_policy_head(a), vh = default_value_head(a);
  if (ph >= 0) p->policy_head = policy_head_macs(a, ph);
  if (vh >= 0) p->value_head = value_head_macs(a, vh);
  if (a->has_moves_left) {
    const u64 cm = (u64)a->mlh_cm;
    p->moves_left = T * d * cm + T * cm * 128 + 128;
  }

  const u64 paper_policy = ph >= 0 ? T * 2 * (u64)a->policy_de * (u64)a->policy_dp[ph] : 0;
  out->paper_macs = p->embedding + p->projections + p->ffn + p->policy_embedding + paper_policy;
  const u64 body = p->embedding + p->projections + p->ffn + p->attention + p->rpe + p->smolgen +
                   p->policy_embedding;
  out->full_macs = body + p->policy_head + p->value_head + p->moves_left;
  out->full_flops = 2 * out->full_macs;
  u64 all = body + p->moves_left;
  for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
    if (a->has_policy[h]) all += policy_head_macs(a, h);
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++)
    if (a->has_value[h]) all += value_head_macs(a, h);
  out->all_heads_flops = 2 * all;
  return CF_OK;
}

cf_status cf_cost_from_weights(const cf_weights *w, cf_cost *out, cf_error *err) {
  return cf_cost_from_arch(&w->arch, out, err);
}
