/* test_encoder.c: the encoder's fixed parts: Lc0's positional table rule,
 * DeepNorm's alpha, the norm epsilon rule and the backend requirements of
 * each parity net. (Its arithmetic is checked end to end by tests/net.) */
#include <math.h>
#include <stdlib.h>

#include "encoder/cf_encoder.h"
#include "encoder/cf_pos_table.h"
#include "tests/cf_test.h"

static void test_pos_table(cf_test *t) {
  int symmetric = 0, diagonal = 0;
  for (int s = 0; s < 64; s++)
    for (int c = 0; c < 64; c++) {
      float v = cf_pos_table_at(s, c);
      CHECK(v == -1.0f || v == 0.0f || v == 1.0f);
      symmetric += v == cf_pos_table_at(c, s);
      diagonal += (v == -1.0f) == (s == c);
    }
  CHECK_INT_EQ(symmetric, 64 * 64);
  CHECK_INT_EQ(diagonal, 64 * 64);
  /* a queen plus a knight on a1 reach 21 + 2 squares, on d4 27 + 8 */
  int a1 = 0, d4 = 0;
  for (int c = 0; c < 64; c++) {
    a1 += cf_pos_table_at(0, c) == 1.0f;
    d4 += cf_pos_table_at(27, c) == 1.0f;
  }
  CHECK_INT_EQ(a1, 23);
  CHECK_INT_EQ(d4, 35);
  /* spot values from Lc0's table: row a1 has b3 and c2 (knight), not d2 */
  CHECK(cf_pos_table_at(0, 17) == 1.0f);
  CHECK(cf_pos_table_at(0, 10) == 1.0f);
  CHECK(cf_pos_table_at(0, 11) == 0.0f);
  CHECK(cf_pos_table_at(63, 46) == 1.0f); /* h8-g6 */
}

static void test_alpha(cf_test *t) {
  CHECK_NEAR(cf_encoder_alpha(2), 1.0 / sqrt(2.0), 1e-7);
  CHECK_NEAR(cf_encoder_alpha(3), pow(6.0, -0.25), 1e-7);
  CHECK_NEAR(cf_encoder_alpha(8), 0.5, 1e-7);
}

static cf_weights *load(cf_test *t, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/parity/%s.pb.gz", cf_test_data_dir(), name);
  cf_weights *w = NULL;
  cf_error err = {0};
  if (!CHECK(cf_weights_load_file(path, NULL, &w, &err) == CF_OK)) fprintf(stderr, "%s\n", err.msg);
  return w;
}

/* NETWORK.md section 5 / the parity README's epsilon table. */
static void test_norm_eps_rule(cf_test *t) {
  struct {
    const char *net;
    cf_norm_kind kind;
    float eps;
  } want[] = {
      {"cf-rpe-rms", CF_NORM_RMS, 1e-5f},
      {"lc0-smolgen-relu2", CF_NORM_LAYER, 1e-3f},
      {"lc0-map-classic", CF_NORM_LAYER, 1e-6f},
      {"cf-rpe-ln-canonical", CF_NORM_LAYER, 1e-3f},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    cf_weights *w = load(t, want[i].net);
    if (!w) continue;
    CHECK(w->arch.rms_norm == (want[i].kind == CF_NORM_RMS));
    CHECK(cf_encoder_norm_eps(&w->arch, want[i].kind) == want[i].eps);
    /* the loader's inferred epsilon agrees with the encoder's rule */
    CHECK_NEAR(w->arch.norm_eps, want[i].eps, want[i].eps * 1e-3);
    cf_weights_free(w);
  }
}

static void test_requirements(cf_test *t) {
  unsigned f, a;
  cf_weights *w = load(t, "cf-rpe-rms");
  if (w) {
    cf_encoder_requirements(&w->arch, &f, &a);
    CHECK_INT_EQ(f,
                 CF_FEAT_RPE_Q | CF_FEAT_RPE_K | CF_FEAT_RPE_V | CF_FEAT_RMS_NORM | CF_FEAT_GATING);
    CHECK(a & (1u << CF_OP_ACT_MISH));
    cf_weights_free(w);
  }
  w = load(t, "lc0-smolgen-relu2");
  if (w) {
    cf_encoder_requirements(&w->arch, &f, &a);
    CHECK_INT_EQ(f, CF_FEAT_SMOLGEN | CF_FEAT_GATING);
    CHECK(a & (1u << CF_OP_ACT_RELU2));
    CHECK(a & (1u << CF_OP_ACT_SWISH));
    CHECK(a & (1u << CF_OP_ACT_MISH));
    cf_weights_free(w);
  }
  w = load(t, "lc0-map-classic");
  if (w) {
    cf_encoder_requirements(&w->arch, &f, &a);
    CHECK_INT_EQ(f, 0);
    CHECK_INT_EQ(w->arch.emb_inputs, 176);
    cf_weights_free(w);
  }
}

/* An unknown activation is refused when the encoder is built, not run. */
static void test_bad_activation(cf_test *t) {
  cf_weights *w = load(t, "lc0-map-classic");
  if (!w) return;
  w->arch.ffn_act = CF_ACT_SOFTMAX;
  cf_backend_config cfg = {.max_batch = 1};
  cf_backend *be = NULL;
  cf_encoder *enc = NULL;
  cf_error err = {0};
  if (CHECK(cf_backend_create("ref", &cfg, &be, &err) == CF_OK)) {
    CHECK_INT_EQ(cf_encoder_create(w, be, 1, &enc, &err), CF_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(err.msg, "ffn_activation");
    CHECK(enc == NULL);
  }
  cf_encoder_free(NULL);
  cf_backend_free(be);
  cf_weights_free(w);
}

CF_TEST_MAIN(test_pos_table, test_alpha, test_norm_eps_rule, test_requirements, test_bad_activation)
