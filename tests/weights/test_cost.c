/* test_cost: cf_cost against hand-computed counts on small shapes, and the
 * Chessformer paper's figures for the CF-6M and CF-240M presets. */
#include "tests/cf_test.h"
#include "tools/netcost/cf_cost.h"
#include "tools/random_net/cf_weights_random.h"

static bool arch_of(cf_test *t, const cf_random_spec *s, cf_net_arch *a) {
  cf_error err = {0};
  cf_status st = cf_random_spec_arch(s, a, NULL, &err);
  if (st != CF_OK) fprintf(stderr, "%s\n", err.msg);
  return CHECK(st == CF_OK);
}

/* 2 layers, d 4, dm 4, 2 heads, dff 8, old 112-wide embedding, rpe_q only,
 * vanilla policy de 4 / dp 2, winner value cv 2 (3 outputs), no moves-left. */
static void test_small_old(cf_test *t) {
  cf_random_spec s = {.layers = 2, .d = 4, .heads = 2, .dff = 8, .rpe_q = true, .policy_dp = 2,
                      .value_cv = 2};
  cf_net_arch a;
  if (!arch_of(t, &s, &a)) return;
  cf_cost c;
  CHECK(cf_cost_from_arch(&a, &c, NULL) == CF_OK);
  CHECK_INT_EQ(c.parts.embedding, 64 * 112 * 4);          /* 28672 */
  CHECK_INT_EQ(c.parts.projections, 2 * 64 * 4 * 4 * 4);  /* 8192 */
  CHECK_INT_EQ(c.parts.ffn, 2 * 64 * 2 * 4 * 8);          /* 8192 */
  CHECK_INT_EQ(c.parts.attention, 2 * 2 * 4096 * 4);      /* 65536 */
  CHECK_INT_EQ(c.parts.rpe, 2 * 4096 * 4);                /* 32768: rpe_q only */
  CHECK_INT_EQ(c.parts.smolgen, 0);
  CHECK_INT_EQ(c.parts.policy_embedding, 64 * 4 * 4);     /* 1024 */
  CHECK_INT_EQ(c.parts.policy_head, 64 * 2 * 4 * 2 + 4096 * 2 + 32 * 2); /* 9280 */
  CHECK_INT_EQ(c.parts.value_head, 64 * 4 * 2 + 64 * 2 * 128 + 128 * 3); /* 17280 */
  CHECK_INT_EQ(c.parts.moves_left, 0);
  /* Paper: embedding + projections + FFN + policy embedding + wq/wk. */
  CHECK_INT_EQ(c.paper_macs, 28672 + 8192 + 8192 + 1024 + 64 * 2 * 4 * 2);
  CHECK_INT_EQ(c.full_macs, 28672 + 8192 + 8192 + 65536 + 32768 + 1024 + 9280 + 17280);
  CHECK_INT_EQ(c.full_flops, 2 * 170944);
  CHECK_INT_EQ(c.all_heads_flops, c.full_flops); /* one head of each kind */
}

/* 1 layer, d 4, 2 heads, dff 4, dense embedding s 2 with FFN 3, smolgen
 * hc 1 / hs 2 / gs 3, RPE q/k/v, moves-left cm 1, extra soft head. */
static void test_small_dense_smolgen(cf_test *t) {
  cf_random_spec s = {.layers = 1, .d = 4, .heads = 2, .dff = 4, .rpe_q = true, .rpe_k = true,
                      .rpe_v = true, .smolgen = true, .smolgen_hc = 1, .smolgen_hs = 2,
                      .smolgen_gs = 3, .embedding_style = CF_EMBEDDING_DENSE, .dense_width = 2,
                      .emb_dff = 3, .policy_dp = 4, .value_cv = 1, .moves_left = true,
                      .mlh_cm = 1};
  s.policy_heads[CF_POLICY_VANILLA] = s.policy_heads[CF_POLICY_SOFT] = true;
  cf_net_arch a;
  if (!arch_of(t, &s, &a)) return;
  cf_cost c;
  CHECK(cf_cost_from_arch(&a, &c, NULL) == CF_OK);
  /* preprocessing 768 -> 64*2 once, embedding 114 -> 4 per token, FFN 4-3-4. */
  CHECK_INT_EQ(c.parts.embedding, 768 * 128 + 64 * 114 * 4 + 64 * 2 * 4 * 3); /* 129024 */
  CHECK_INT_EQ(c.parts.rpe, 3 * 4096 * 4);
  /* compress, dense1, dense2, then H*gs x 4096 with the global smolgen_w. */
  CHECK_INT_EQ(c.parts.smolgen, 64 * 4 * 1 + 64 * 1 * 2 + 2 * 2 * 3 + 2 * 3 * 4096); /* 24972 */
  CHECK_INT_EQ(c.parts.moves_left, 64 * 4 * 1 + 64 * 1 * 128 + 128);
  const uint64_t head = 64 * 2 * 4 * 4 + 4096 * 4 + 32 * 4;
  CHECK_INT_EQ(c.parts.policy_head, head);
  CHECK_INT_EQ(c.paper_macs, 129024 + 64 * 4 * 4 * 4 + 64 * 2 * 4 * 4 + 64 * 4 * 4 + 64 * 2 * 4 * 4);
  CHECK_INT_EQ(c.all_heads_flops, c.full_flops + 2 * head); /* the soft head on top */
}

static void test_cf6m_paper(cf_test *t) {
  cf_random_spec s = cf_random_spec_cf6m();
  cf_net_arch a;
  if (!arch_of(t, &s, &a)) return;
  cf_cost c;
  CHECK(cf_cost_from_arch(&a, &c, NULL) == CF_OK);
  CHECK_INT_EQ(c.paper_macs, 215744512ull); /* paper: 214M */
  CHECK(c.paper_macs > 214e6 * 0.98 && c.paper_macs < 214e6 * 1.02);
  CHECK(c.full_flops > 2 * c.paper_macs);
}

static void test_cf240m_paper(cf_test *t) {
  cf_random_spec s = cf_random_spec_cf240m();
  cf_net_arch a;
  size_t params = 0;
  cf_error err = {0};
  if (!CHECK(cf_random_spec_arch(&s, &a, &params, &err) == CF_OK)) return;
  cf_cost c;
  CHECK(cf_cost_from_arch(&a, &c, NULL) == CF_OK);
  CHECK_INT_EQ(c.paper_macs, 12883853312ull); /* paper: 12.8B */
  CHECK(params > 230e6 && params < 250e6);
  printf("CF-240M: %zu params, paper MACs %llu, full FLOPs %llu\n", params,
         (unsigned long long)c.paper_macs, (unsigned long long)c.full_flops);
}

static void test_bad_arch(cf_test *t) {
  cf_net_arch a = {0};
  cf_cost c;
  cf_error err = {0};
  CHECK(cf_cost_from_arch(&a, &c, &err) == CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "incomplete architecture");
}

CF_TEST_MAIN(test_small_old, test_small_dense_smolgen, test_cf6m_paper, test_cf240m_paper,
             test_bad_arch)
