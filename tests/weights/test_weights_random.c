/* test_weights_random: deterministic random nets of any shape. */
#include "tests/cf_test.h"
#include "tools/random_net/cf_weights_random.h"

static cf_weights *make(cf_test *t, const cf_random_spec *s) {
  cf_weights *w = NULL;
  cf_error err = {0};
  cf_status st = cf_weights_random(s, &w, &err);
  if (st != CF_OK) fprintf(stderr, "%s\n", err.msg);
  CHECK(st == CF_OK && w != NULL);
  return w;
}

static void test_deterministic(cf_test *t) {
  cf_random_spec s = {.layers = 2, .d = 16, .heads = 4, .dff = 32, .rpe_q = true, .seed = 7};
  cf_weights *a = make(t, &s), *b = make(t, &s);
  s.seed = 8;
  cf_weights *c = make(t, &s);
  if (!a || !b || !c) goto done;
  CHECK_INT_EQ(a->ip_emb_w.n, 16 * 112);
  CHECK(memcmp(a->ip_emb_w.data, b->ip_emb_w.data, a->ip_emb_w.n * sizeof(float)) == 0);
  CHECK(memcmp(a->layers[1].mha.rpe_q.data, b->layers[1].mha.rpe_q.data,
               a->layers[1].mha.rpe_q.n * sizeof(float)) == 0);
  CHECK(memcmp(a->ip_emb_w.data, c->ip_emb_w.data, a->ip_emb_w.n * sizeof(float)) != 0);
  float lo = 1e9f, hi = -1e9f;
  for (size_t i = 0; i < a->ip_emb_w.n; i++) {
    lo = a->ip_emb_w.data[i] < lo ? a->ip_emb_w.data[i] : lo;
    hi = a->ip_emb_w.data[i] > hi ? a->ip_emb_w.data[i] : hi;
  }
  /* Uniform in [-1, 1) / sqrt(112). */
  CHECK(lo >= -1.0f / sqrtf(112.0f) && hi < 1.0f / sqrtf(112.0f) && hi - lo > 0.15f);
done:
  cf_weights_free(a);
  cf_weights_free(b);
  cf_weights_free(c);
}

static void test_cf6m(cf_test *t) {
  cf_random_spec s = cf_random_spec_cf6m();
  cf_weights *w = make(t, &s);
  if (!w) return;
  const cf_net_arch *a = &w->arch;
  CHECK_INT_EQ(a->layers, 8);
  CHECK_INT_EQ(a->d, 256);
  CHECK_INT_EQ(a->heads, 8);
  CHECK_INT_EQ(a->dff, 256);
  CHECK_INT_EQ(a->emb_inputs, 112);
  CHECK(a->gating && a->rms_norm && !a->qkv_bias && a->rpe_q && a->rpe_k && a->rpe_v);
  CHECK(!a->smolgen);
  CHECK(a->has_policy[CF_POLICY_VANILLA] && a->has_policy[CF_POLICY_SOFT]);
  CHECK(!a->has_policy[CF_POLICY_OPPONENT]);
  CHECK(a->has_value[CF_VALUE_WINNER] && a->has_value[CF_VALUE_Q] && a->has_value[CF_VALUE_ST]);
  CHECK(a->has_moves_left);
  CHECK(w->param_count > 5e6 && w->param_count < 8e6);
  size_t shape_params = 0;
  cf_net_arch sa;
  CHECK(cf_random_spec_arch(&s, &sa, &shape_params, NULL) == CF_OK);
  CHECK_INT_EQ(shape_params, w->param_count);
  CHECK(memcmp(&sa, a, sizeof sa) == 0);
  cf_weights_free(w);
}

static void test_options(cf_test *t) {
  cf_random_spec s = {.layers = 1, .d = 8, .heads = 2, .dff = 8, .qkv_bias = true,
                      .smolgen = true, .smolgen_hc = 2, .smolgen_hs = 4, .smolgen_gs = 4,
                      .embedding_style = CF_EMBEDDING_DENSE, .dense_width = 3,
                      .input_format = 5, .encoding = CF_ENC_BFLOAT16, .rpe_v = true};
  s.value_heads[CF_VALUE_Q] = true;
  cf_weights *w = make(t, &s);
  if (!w) return;
  CHECK(w->arch.qkv_bias && w->arch.smolgen && !w->arch.rms_norm);
  CHECK_INT_EQ(w->arch.input_embedding, 2);
  CHECK_INT_EQ(w->arch.emb_dense_s, 3);
  CHECK_INT_EQ(w->arch.input_format, 5);
  CHECK(w->arch.rpe_v && !w->arch.rpe_q);
  CHECK(w->arch.has_value[CF_VALUE_Q] && w->arch.has_value[CF_VALUE_WINNER]);
  CHECK(!w->arch.has_value[CF_VALUE_ST]);
  CHECK_INT_EQ(w->ip_emb_w.encoding, CF_ENC_BFLOAT16);
  CHECK(!w->arch.has_moves_left);
  cf_weights_free(w);
}

static void test_bad_specs(cf_test *t) {
  cf_weights *w = NULL;
  cf_error err = {0};
  cf_random_spec s = {.layers = 1, .d = 10, .heads = 3, .dff = 4};
  CHECK(cf_weights_random(&s, &w, &err) == CF_ERR_ARG && w == NULL);
  CHECK_STR_CONTAINS(err.msg, "not divisible by 3 heads");
  s = (cf_random_spec){.layers = 0, .d = 8, .heads = 2, .dff = 4};
  CHECK(cf_weights_random(&s, &w, &err) == CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "layers 0");
  s = (cf_random_spec){.layers = 1, .d = 8, .heads = 2, .dff = -4};
  CHECK(cf_weights_random(&s, &w, &err) == CF_ERR_ARG);
  s = (cf_random_spec){.layers = 1, .d = 8, .heads = 2, .dff = 4, .input_format = 7};
  CHECK(cf_weights_random(&s, &w, &err) == CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "input format 7");
}

CF_TEST_MAIN(test_deterministic, test_cf6m, test_options, test_bad_specs)
