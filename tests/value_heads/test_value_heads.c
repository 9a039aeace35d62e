/* test_value_heads.c: the value and moves-left heads' squashing, on a tiny
 * hand-built network whose zero weights make every output a known function
 * of the biases (the parity tests cover real weights). */
#include <math.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "tests/cf_test.h"
#include "value_heads/cf_value_heads.h"

#define D 4
static double mish(double x) { return x * tanh(log1p(exp(x))); }

static cf_tensor tensor(float *data, size_t n) { return (cf_tensor){data, n, CF_ENC_FLOAT32}; }

static void test_heads_on_known_weights(cf_test *t) {
  /* winner: cv 2, hidden 3, outputs 3 */
  static float we[2 * D], be_[2], w1[3 * 64 * 2], b1[3] = {0.5f, -1.0f, 2.0f},
                                                  w2[3 * 3] = {1, 0, 0, 0, 1, 0, 0, 0, 1},
                                                  b2[3] = {0.1f, 0.2f, 0.3f};
  /* q: cv 1, hidden 3, one tanh output, error and 2 categorical outputs */
  static float qe[1 * D], qb[1], q1[3 * 64],
      qb1[3] = {0.5f, -1.0f, 2.0f}, q2[3] = {1, 1, 1}, qb2[1] = {0.0f}, qerr[3] = {0, 0, 1},
      qberr[1] = {0.1f}, qcat[2 * 3] = {1, 0, 0, 0, 1, 0}, qbcat[2] = {0.0f, 1.0f};
  /* moves left: cm 1, hidden 2 */
  static float me[D], mb[1], m1[2 * 64], mb1[2] = {1.0f, -1.0f}, m2[2] = {1, 1}, mb2[1] = {5.0f};
  static cf_weights w;
  memset(&w, 0, sizeof w);
  w.arch.d = D;
  w.arch.default_act = CF_ACT_MISH;
  w.arch.has_value[CF_VALUE_WINNER] = w.arch.has_value[CF_VALUE_Q] = true;
  w.arch.has_moves_left = true;
  cf_value_head_weights *v = &w.value[CF_VALUE_WINNER];
  v->present = true;
  v->ip_val_w = tensor(we, 2 * D);
  v->ip_val_b = tensor(be_, 2);
  v->ip1_val_w = tensor(w1, 3 * 64 * 2);
  v->ip1_val_b = tensor(b1, 3);
  v->ip2_val_w = tensor(w2, 9);
  v->ip2_val_b = tensor(b2, 3);
  v = &w.value[CF_VALUE_Q];
  v->present = true;
  v->ip_val_w = tensor(qe, D);
  v->ip_val_b = tensor(qb, 1);
  v->ip1_val_w = tensor(q1, 3 * 64);
  v->ip1_val_b = tensor(qb1, 3);
  v->ip2_val_w = tensor(q2, 3);
  v->ip2_val_b = tensor(qb2, 1);
  v->ip_val_err_w = tensor(qerr, 3);
  v->ip_val_err_b = tensor(qberr, 1);
  v->ip_val_cat_w = tensor(qcat, 6);
  v->ip_val_cat_b = tensor(qbcat, 2);
  w.ip_mov_w = tensor(me, D);
  w.ip_mov_b = tensor(mb, 1);
  w.ip1_mov_w = tensor(m1, 2 * 64);
  w.ip1_mov_b = tensor(mb1, 2);
  w.ip2_mov_w = tensor(m2, 2);
  w.ip2_mov_b = tensor(mb2, 1);

  cf_backend_config cfg = {.max_batch = 2};
  cf_backend *be = NULL;
  cf_error err = {0};
  if (!CHECK(cf_backend_create("ref", &cfg, &be, &err) == CF_OK)) return;
  cf_values *vals = NULL;
  unsigned mask = (1u << CF_VALUE_WINNER) | (1u << CF_VALUE_Q);
  if (!CHECK(cf_values_create(&w, be, 2, mask, &vals, &err) == CF_OK)) {
    fprintf(stderr, "%s\n", err.msg);
    cf_backend_free(be);
    return;
  }
  /* tokens [2*64][D]: anything, the embedding weights are zero */
  static float tokens[2 * 64 * D];
  for (int i = 0; i < 2 * 64 * D; i++) tokens[i] = (float)(i % 7) - 3.0f;
  float *dt = cf_op_alloc(be, 2 * 64 * D);
  cf_op_upload(be, dt, tokens, 2 * 64 * D);
  cf_values_forward(vals, 2, dt);

  double h[3], z = 0, e[3];
  for (int i = 0; i < 3; i++) h[i] = mish(b1[i]);
  for (int i = 0; i < 3; i++) z += e[i] = exp(h[i] + b2[i]);
  for (int b = 0; b < 2; b++) {
    cf_value_result r;
    float cat[2];
    cf_values_read(vals, CF_VALUE_WINNER, b, &r, NULL);
    CHECK_INT_EQ(r.outputs, 3);
    for (int i = 0; i < 3; i++) CHECK_NEAR(r.wdl[i], e[i] / z, 1e-6);
    CHECK_NEAR(r.q, (e[0] - e[2]) / z, 1e-6);
    CHECK(!r.has_err);
    CHECK_INT_EQ(r.n_cat, 0);
    cf_values_read(vals, CF_VALUE_Q, b, &r, cat);
    CHECK_INT_EQ(r.outputs, 1);
    CHECK_NEAR(r.q, tanh(h[0] + h[1] + h[2]), 1e-6);
    CHECK(r.has_err);
    CHECK_NEAR(r.err, 1 / (1 + exp(-(h[2] + 0.1))), 1e-6);
    CHECK_INT_EQ(r.n_cat, 2);
    CHECK_NEAR(cat[0], h[0], 1e-6);
    CHECK_NEAR(cat[1], h[1] + 1.0, 1e-6);
    /* moves left = relu(mish(1) + mish(-1) + 5) */
    CHECK_NEAR(cf_values_moves_left(vals, b), mish(1) + mish(-1) + 5.0, 1e-5);
  }
  /* a negative moves-left pre-activation is clipped to 0 */
  cf_values_free(vals);
  mb2[0] = -5.0f;
  CHECK(cf_values_create(&w, be, 2, 1u << CF_VALUE_WINNER, &vals, &err) == CF_OK);
  cf_values_forward(vals, 1, dt);
  CHECK(cf_values_moves_left(vals, 0) == 0.0f);
  cf_values_free(vals);

  /* asking for a head the net lacks names it */
  CHECK_INT_EQ(cf_values_create(&w, be, 2, 1u << CF_VALUE_ST, &vals, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "st");
  CHECK(vals == NULL);
  cf_op_free(be, dt);
  cf_backend_free(be);
}

static void test_no_moves_left_head(cf_test *t) {
  static float we[D], be_[1], w1[2 * 64], b1[2], w2[3 * 2], b2[3];
  static cf_weights w;
  memset(&w, 0, sizeof w);
  w.arch.d = D;
  w.arch.default_act = CF_ACT_RELU;
  w.arch.has_value[CF_VALUE_WINNER] = true;
  cf_value_head_weights *v = &w.value[CF_VALUE_WINNER];
  v->present = true;
  v->ip_val_w = tensor(we, D);
  v->ip_val_b = tensor(be_, 1);
  v->ip1_val_w = tensor(w1, 128);
  v->ip1_val_b = tensor(b1, 2);
  v->ip2_val_w = tensor(w2, 6);
  v->ip2_val_b = tensor(b2, 3);
  cf_backend_config cfg = {.max_batch = 1};
  cf_backend *be = NULL;
  cf_values *vals = NULL;
  if (!CHECK(cf_backend_create("ref", &cfg, &be, NULL) == CF_OK)) return;
  CHECK(cf_values_create(&w, be, 1, 1u << CF_VALUE_WINNER, &vals, NULL) == CF_OK);
  float *dt = cf_op_alloc(be, 64 * D);
  cf_values_forward(vals, 1, dt);
  CHECK(isnan(cf_values_moves_left(vals, 0)));
  cf_value_result r;
  cf_values_read(vals, CF_VALUE_WINNER, 0, &r, NULL);
  CHECK_NEAR(r.wdl[0], 1.0 / 3.0, 1e-6); /* all logits 0 */
  CHECK_NEAR(r.q, 0.0, 1e-6);
  cf_values_free(vals);
  cf_values_free(NULL);
  cf_op_free(be, dt);
  cf_backend_free(be);
}

CF_TEST_MAIN(test_heads_on_known_weights, test_no_moves_left_head)
