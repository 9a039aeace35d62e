/* cf_attention_op.h: one shape through a backend's attention op for every
 * subset of the RPE terms and the smolgen bias, under a forced CPU kernel
 * set; shared by the reduced-precision attention tests (header only). */
#ifndef CF_ATTENTION_OP_H
#define CF_ATTENTION_OP_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "tests/backends/cf_attention_ref.h"
#include "tests/cf_test.h"

/* The next value of a 64-bit LCG at *state, as a float uniform in
 * [-1, 1) (24 bits). */
static inline float attention_rnd(unsigned long long *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((*state >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
}

/* Random inputs of one shape, every value from attention_rnd: q/k/v
 * [B][64][3][H * dh], the smolgen bias [B][H][64][64], the RPE tables
 * [225][H * dh]; n_out the output's floats. */
typedef struct attention_inputs {
  float *qkv, *bias, *e[3];
  size_t n_out;
} attention_inputs;

static inline attention_inputs attention_inputs_make(int B, int H, int dh,
                                                     unsigned long long *state) {
  const size_t dm = (size_t)H * dh, n_qkv = (size_t)B * 64 * 3 * dm;
  const size_t n_bias = (size_t)B * H * 4096;
  attention_inputs in = {malloc(n_qkv * sizeof(float)), malloc(n_bias * sizeof(float)),
                         {NULL, NULL, NULL}, (size_t)B * 64 * dm};
  for (size_t i = 0; i < n_qkv; i++) in.qkv[i] = attention_rnd(state);
  for (size_t i = 0; i < n_bias; i++) in.bias[i] = attention_rnd(state);
  for (int i = 0; i < 3; i++) {
    in.e[i] = malloc(225 * dm * sizeof(float));
    for (size_t j = 0; j < 225 * dm; j++) in.e[i][j] = attention_rnd(state);
  }
  return in;
}

/* The largest difference of variant v's output (got, as attention_op_run
 * writes it for v) from the double formula on the same inputs; want is
 * scratch of n_out doubles. */
static inline double attention_variant_error(int B, int H, int dh, const attention_inputs *in,
                                             int v, const float *got, double *want) {
  attention_ref(B, H, dh, in->qkv, v & 1 ? in->e[0] : NULL, v & 2 ? in->e[1] : NULL,
                v & 4 ? in->e[2] : NULL, v & 8 ? in->bias : NULL, want);
  double w = 0;
  for (size_t i = 0; i < in->n_out; i++) w = fmax(w, fabs(got[i] - want[i]));
  return w;
}

static inline void attention_inputs_free(attention_inputs *in) {
  free(in->qkv);
  free(in->bias);
  for (int i = 0; i < 3; i++) free(in->e[i]);
}

/* Whether a oneDNN instance with `opts` can be made (err says why not),
 * its variant text into variant (n bytes) when it can (variant may be
 * NULL). */
static inline bool onednn_creates(const char *opts, char *variant, size_t n, cf_error *err) {
  cf_backend_config cfg = {.max_batch = 2, .options = opts};
  cf_backend *be = NULL;
  if (cf_backend_create("onednn", &cfg, &be, err) != CF_OK) return false;
  if (variant) snprintf(variant, n, "%s", cf_backend_variant(be));
  cf_backend_free(be);
  return true;
}

/* Runs the op on oneDNN with `options` under kernel set `set`
 * (CFORMER_CPU_KERNELS) for the 16 variants v (bits: 1 RPE q, 2 RPE k,
 * 4 RPE v, 8 smolgen bias), into got[16][B * 64 * H * dh]; e: the RPE
 * tables [225][H * dh]; bias [B][H][64][64]. The backend's variant goes
 * into variant (n bytes). false, printed, when the backend cannot be
 * made. */
static inline bool attention_op_run(cf_test *t, const char *set, const char *options, int B,
                                    int H, int dh, const float *qkv, float *const e[3],
                                    const float *bias, float *got, char *variant, size_t n) {
  setenv("CFORMER_CPU_KERNELS", set, 1);
  cf_backend_config cfg = {.max_batch = B, .options = options};
  cf_backend *be = NULL;
  cf_error err = {0};
  cf_status st = cf_backend_create("onednn", &cfg, &be, &err);
  unsetenv("CFORMER_CPU_KERNELS");
  if (st != CF_OK) {
    printf("  %s: skipped (%s)\n", set, err.msg);
    return false;
  }
  snprintf(variant, n, "%s", cf_backend_variant(be));
  const int dm = H * dh;
  const size_t n_qkv = (size_t)B * 64 * 3 * dm, n_out = (size_t)B * 64 * dm,
               n_bias = (size_t)B * H * 4096;
  cf_bweight *E[3] = {NULL, NULL, NULL};
  const cf_weight_role side[3] = {CF_WEIGHT_RPE_Q, CF_WEIGHT_RPE_K, CF_WEIGHT_RPE_V};
  for (int i = 0; i < 3; i++) cf_op_weight_rpe(be, side[i], H, 225, dm, e[i], &E[i], NULL);
  float *dqkv = cf_op_alloc(be, n_qkv), *dbias = cf_op_alloc(be, n_bias),
        *dout = cf_op_alloc(be, n_out);
  cf_op_upload(be, dqkv, qkv, n_qkv);
  cf_op_upload(be, dbias, bias, n_bias);
  for (int v = 0; v < 16; v++) {
    cf_attention_args a = {.batch = B, .heads = H, .depth = dh, .qkv = dqkv,
                           .rpe_q = v & 1 ? E[0] : NULL, .rpe_k = v & 2 ? E[1] : NULL,
                           .rpe_v = v & 4 ? E[2] : NULL, .bias = v & 8 ? dbias : NULL,
                           .scale = 1.0f / sqrtf((float)dh), .out = dout};
    cf_op_attention(be, &a);
    CHECK_INT_EQ(cf_op_sync(be, NULL), CF_OK);
    cf_op_download(be, got + v * n_out, dout, n_out);
  }
  cf_op_free(be, dqkv);
  cf_op_free(be, dbias);
  cf_op_free(be, dout);
  for (int i = 0; i < 3; i++) cf_op_weight_free(be, E[i]);
  cf_backend_free(be);
  return true;
}

/* The op at batch B on random inputs of one shape (seed `seed`) against
 * each of its positions alone at batch 1, under `set` with `options`: the
 * number of (variant, position) outputs that differ in any bit, or -1 when
 * the backend cannot be made (printed). A backend may take another path
 * for a batch than for one position (the CPU cores' joined tables); the
 * outputs must not change. */
static inline int attention_op_batch_vs_alone(cf_test *t, const char *set, const char *options,
                                              int B, int H, int dh, unsigned long long seed) {
  attention_inputs in = attention_inputs_make(B, H, dh, &seed);
  const size_t per = (size_t)64 * H * dh, n_out = B * per;
  float *batch = malloc(16 * n_out * sizeof(float)), *alone = malloc(16 * per * sizeof(float));
  char variant[256];
  int bad = -1;
  if (batch && alone &&
      attention_op_run(t, set, options, B, H, dh, in.qkv, in.e, in.bias, batch, variant,
                       sizeof variant)) {
    bad = 0;
    for (int b = 0; b < B; b++) {
      attention_op_run(t, set, options, 1, H, dh, in.qkv + (size_t)b * 3 * per, in.e,
                       in.bias + (size_t)b * H * 4096, alone, variant, sizeof variant);
      for (int v = 0; v < 16; v++)
        bad += memcmp(batch + v * n_out + b * per, alone + v * per, per * sizeof(float)) != 0;
    }
    if (bad) printf("  %s, %d heads x %d: %d outputs differ\n", set, H, dh, bad);
  }
  free(batch);
  free(alone);
  attention_inputs_free(&in);
  return bad;
}

#endif /* CF_ATTENTION_OP_H */
