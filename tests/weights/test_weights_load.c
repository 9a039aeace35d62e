/* test_weights_load.c: every parity net loads with the architecture its
 * README describes; the four encodings of one set of weights agree within
 * each encoding's precision. */
#include "tests/cf_test.h"
#include "tests/weights/weights_test_util.h"
#include "weights/cf_weights.h"

static cf_weights *load_parity(cf_test *t, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/parity/%s", cf_test_data_dir(), name);
  cf_weights *w = NULL;
  cf_error err;
  cf_status st = cf_weights_load_file(path, NULL, &w, &err);
  if (!CHECK(st == CF_OK)) fprintf(stderr, "  %s\n", err.msg);
  return w;
}

static void test_cf_rpe_rms(cf_test *t) {
  cf_weights *w = load_parity(t, "cf-rpe-rms.pb.gz");
  if (!w) return;
  const cf_net_arch *a = &w->arch;
  CHECK_INT_EQ(w->raw_network_format, 134);
  CHECK_INT_EQ(a->network_format, 7);
  CHECK_INT_EQ(a->input_format, 1);
  CHECK_INT_EQ(a->input_embedding, 1);
  CHECK_INT_EQ(a->layers, 3);
  CHECK_INT_EQ(a->d, 64);
  CHECK_INT_EQ(a->dm, 64);
  CHECK_INT_EQ(a->heads, 4);
  CHECK_INT_EQ(a->dh, 16);
  CHECK_INT_EQ(a->dff, 128);
  CHECK_INT_EQ(a->emb_inputs, 112); /* "old" embedding: no positional table */
  CHECK_INT_EQ(a->emb_dense_s, 0);
  CHECK(!a->emb_norm);
  CHECK(a->gating);
  CHECK(a->rms_norm);
  CHECK(!a->qkv_bias);
  CHECK(a->rpe_q && a->rpe_k && a->rpe_v);
  CHECK(!a->smolgen);
  CHECK(a->norm_eps == 1e-5f);
  CHECK_INT_EQ(a->default_act, CF_ACT_MISH);
  CHECK_INT_EQ(a->ffn_act, CF_ACT_MISH); /* written as DEFAULT */
  CHECK(a->has_policy[CF_POLICY_VANILLA] && a->has_policy[CF_POLICY_SOFT]);
  CHECK(!a->has_policy[CF_POLICY_OPTIMISTIC_ST] && !a->has_policy[CF_POLICY_OPPONENT]);
  CHECK_INT_EQ(a->policy_de, 64);
  CHECK_INT_EQ(a->policy_dp[CF_POLICY_VANILLA], 64);
  CHECK_INT_EQ(a->policy_dp[CF_POLICY_SOFT], 32);
  CHECK(a->has_value[CF_VALUE_WINNER] && a->has_value[CF_VALUE_Q] && a->has_value[CF_VALUE_ST]);
  CHECK_INT_EQ(a->value_outputs[CF_VALUE_WINNER], 3);
  CHECK_INT_EQ(a->value_outputs[CF_VALUE_Q], 1);
  CHECK_INT_EQ(a->value_outputs[CF_VALUE_ST], 1);
  CHECK(!a->value_err[CF_VALUE_WINNER] && a->value_err[CF_VALUE_Q] && a->value_err[CF_VALUE_ST]);
  CHECK_INT_EQ(a->value_cat[CF_VALUE_Q], 32);
  CHECK_INT_EQ(a->value_cat[CF_VALUE_ST], 32);
  CHECK(a->has_moves_left);
  CHECK_INT_EQ(a->mlh_cm, 8);
  CHECK_INT_EQ(w->encodings_used, 1u << CF_ENC_LINEAR16);
  CHECK(!cf_tensor_present(&w->layers[0].mha.q_b));
  CHECK(!cf_tensor_present(&w->layers[2].ln2_betas));
  CHECK_INT_EQ(w->layers[1].mha.rpe_v.n, 225 * 64);
  cf_weights_free(w);
}

static void test_lc0_smolgen_relu2(cf_test *t) {
  const char *files[] = {"lc0-smolgen-relu2.pb.gz", "lc0-smolgen-relu2-bf16.pb.gz",
                         "lc0-smolgen-relu2-f32.pb.gz"};
  const cf_encoding encs[] = {CF_ENC_LINEAR16, CF_ENC_BFLOAT16, CF_ENC_FLOAT32};
  for (int f = 0; f < 3; f++) {
    cf_weights *w = load_parity(t, files[f]);
    if (!w) continue;
    const cf_net_arch *a = &w->arch;
    CHECK_INT_EQ(a->input_format, 4);
    CHECK_INT_EQ(a->network_format, 7);
    CHECK_INT_EQ(a->input_embedding, 2);
    CHECK_INT_EQ(a->layers, 2);
    CHECK_INT_EQ(a->d, 64);
    CHECK_INT_EQ(a->heads, 4);
    CHECK_INT_EQ(a->dff, 128);
    CHECK_INT_EQ(a->emb_dense_s, 2);
    CHECK_INT_EQ(a->emb_inputs, 114);
    CHECK_INT_EQ(a->emb_ffn_dff, 128);
    CHECK(a->emb_norm);
    CHECK(a->gating);
    CHECK(!a->rms_norm);
    CHECK(a->qkv_bias);
    CHECK(!a->rpe_q && !a->rpe_k && !a->rpe_v);
    CHECK(a->smolgen);
    CHECK_INT_EQ(a->smolgen_hc, 8);
    CHECK_INT_EQ(a->smolgen_hs, 32);
    CHECK_INT_EQ(a->smolgen_gs, 16);
    CHECK_INT_EQ(a->smolgen_act, CF_ACT_SWISH);
    CHECK_INT_EQ(a->ffn_act, CF_ACT_RELU2);
    CHECK_INT_EQ(a->default_act, CF_ACT_MISH);
    CHECK(a->norm_eps == 1e-3f);
    CHECK(a->has_policy[CF_POLICY_VANILLA]);
    CHECK(a->has_value[CF_VALUE_WINNER] && !a->has_value[CF_VALUE_Q]);
    CHECK_INT_EQ(a->value_cv[CF_VALUE_WINNER], 4);
    CHECK(a->has_moves_left);
    CHECK_INT_EQ(a->mlh_cm, 4);
    CHECK_INT_EQ(w->encodings_used, 1u << encs[f]);
    CHECK_INT_EQ(w->min_version.minor, f == 0 ? 31 : 33);
    CHECK_INT_EQ(w->param_count, 381324);
    cf_weights_free(w);
  }
}

static void test_lc0_map_classic(cf_test *t) {
  cf_weights *w = load_parity(t, "lc0-map-classic.pb.gz");
  if (!w) return;
  const cf_net_arch *a = &w->arch;
  CHECK_INT_EQ(a->input_format, 1);
  CHECK_INT_EQ(a->input_embedding, 1);
  CHECK_INT_EQ(a->emb_inputs, 176);
  CHECK_INT_EQ(a->layers, 2);
  CHECK_INT_EQ(a->heads, 8);
  CHECK_INT_EQ(a->dh, 8);
  CHECK_INT_EQ(a->dff, 96);
  CHECK(!a->rms_norm);
  CHECK(!a->gating);
  CHECK(!a->smolgen);
  CHECK(a->norm_eps == 1e-6f);
  CHECK_INT_EQ(a->default_act, CF_ACT_MISH);
  CHECK(!a->has_moves_left);
  CHECK_INT_EQ(a->moves_left_format, 0);
  CHECK(a->has_value[CF_VALUE_WINNER]);
  cf_weights_free(w);
}

static void test_cf_rpe_ln_canonical(cf_test *t) {
  cf_weights *w = load_parity(t, "cf-rpe-ln-canonical.pb.gz");
  if (!w) return;
  const cf_net_arch *a = &w->arch;
  CHECK_INT_EQ(a->input_format, 5);
  CHECK_INT_EQ(a->input_embedding, 2);
  CHECK_INT_EQ(a->emb_dense_s, 4);
  CHECK_INT_EQ(a->emb_inputs, 116);
  CHECK_INT_EQ(a->layers, 2);
  CHECK_INT_EQ(a->heads, 4);
  CHECK_INT_EQ(a->dff, 128);
  CHECK(!a->rms_norm);
  CHECK(a->qkv_bias);
  CHECK(a->rpe_q && a->rpe_k && a->rpe_v);
  CHECK(a->norm_eps == 1e-3f);
  CHECK(a->has_moves_left);
  CHECK_INT_EQ(a->mlh_cm, 4);
  CHECK_INT_EQ(w->encodings_used, 1u << CF_ENC_FLOAT16);
  CHECK_INT_EQ(w->min_version.minor, 33);
  cf_weights_free(w);
}

/* LINEAR16 and FLOAT32 files hold the same float32 values: bit-exact. The
 * BFLOAT16 file holds them rounded to nearest even. */
static void test_encodings_agree(cf_test *t) {
  cf_weights *l16 = load_parity(t, "lc0-smolgen-relu2.pb.gz");
  cf_weights *f32 = load_parity(t, "lc0-smolgen-relu2-f32.pb.gz");
  cf_weights *b16 = load_parity(t, "lc0-smolgen-relu2-bf16.pb.gz");
  if (l16 && f32 && b16) {
    char where[256] = "";
    double r = cf_test_compare_nets(l16, f32, 0, 0, where, sizeof where);
    if (!CHECK(r == 0)) fprintf(stderr, "  LINEAR16 vs FLOAT32: %s\n", where);
    r = cf_test_compare_nets(f32, b16, 1e-30, 1.0 / 256, where, sizeof where);
    if (!CHECK(r <= 1)) fprintf(stderr, "  FLOAT32 vs BFLOAT16: %s\n", where);
  }
  cf_weights_free(l16);
  cf_weights_free(f32);
  cf_weights_free(b16);
}

static void test_memory_load_and_names(cf_test *t) {
  char path[1024];
  snprintf(path, sizeof path, "%s/parity/lc0-map-classic.pb.gz", cf_test_data_dir());
  size_t n;
  uint8_t *buf = cf_test_read_file(path, &n);
  if (!CHECK(buf != NULL)) return;
  cf_weights *w = NULL;
  cf_error err;
  CHECK(cf_weights_load_memory(buf, n, "embedded", NULL, &w, &err) == CF_OK);
  CHECK(w && w->arch.heads == 8);
  CHECK(w && w->license && strstr(w->license, "random") != NULL);
  cf_weights_free(w);
  free(buf);
  cf_weights_free(NULL);
  CHECK_STR_EQ(cf_activation_name(CF_ACT_RELU2), "relu2");
  CHECK_STR_EQ(cf_activation_name(CF_ACT_SWISH), "swish");
  CHECK_STR_EQ(cf_activation_name((cf_activation)42), "unknown");
  CHECK_STR_EQ(cf_encoding_name(CF_ENC_BFLOAT16), "BFLOAT16");
  CHECK_STR_EQ(cf_policy_head_name(CF_POLICY_OPTIMISTIC_ST), "optimistic_st");
  CHECK_STR_EQ(cf_value_head_name(CF_VALUE_ST), "st");
}

CF_TEST_MAIN(test_cf_rpe_rms, test_lc0_smolgen_relu2, test_lc0_map_classic,
             test_cf_rpe_ln_canonical, test_encodings_agree, test_memory_load_and_names)
