/* test_cpu_bf16_attention.c: the attention core in bf16 (the oneDNN
 * backend's precision=bf16, backends/cpu/cf_cpu_attention_bf16.c).
 *
 *   core:  each set's bf16 core (cf_cpu_attention_bf16_select of the set
 *          forced by CFORMER_CPU_KERNELS) against the portable one on the
 *          same bf16 data, every depth pair count 1..64, both key halves,
 *          every query pair, every subset of the RPE terms, the weighted
 *          values' row scales: equal up to float32 summation order; the
 *          q/k/v packing (pack_qkv) bit for bit at every depth 1..128;
 *   softmax: each set's softmax_to_bf16 (the portable one too) against a
 *          double-precision softmax: each weight times the returned scale
 *          within half a bf16 step (2^-8 relative) plus float32's exp and
 *          sum (1e-5 relative, 1e-7 absolute), with and without a bias
 *          row; the sets' weights within one bf16 step of portable's;
 *   op:    the whole op on oneDNN precision=bf16 under every kernel set
 *          this CPU runs, against the double-precision formula on the
 *          unrounded inputs, every subset of RPE q/k/v and the smolgen
 *          bias, odd depths and tails, a depth past the bf16 path (which
 *          keeps float32), and against the portable set's output; the
 *          backend's variant names the core in use;
 *   range: an RPE table beyond bf16's range keeps float32.
 * Bounds: BF16_BOUND below (the largest error measured here is printed). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "backends/cpu/cf_cpu_attention_layout.h"
#include "backends/cpu/cf_cpu_internal.h"
#include "backends/cpu/cf_cpu_kernels.h"
#include "tests/backends/cf_attention_op.h"
#include "tests/backends/cf_attention_ref.h"
#include "tests/backends/cf_kernel_sets.h"
#include "tests/cf_test.h"

/* Largest |bf16 op - double formula| over an output, inputs in [-1, 1):
 * bf16 keeps 8 significant bits (relative rounding 2^-9 of q, k, v, the
 * tables and the softmax weights). Measured worst 1.8e-3 (printed). */
#define BF16_BOUND 5e-3
/* Largest |set - portable| of the op: the sets' float32 softmax differs
 * in the last bits, which can move a weight's bf16 rounding by one step
 * (2^-8 relative). Measured worst 1.9e-4. */
#define SET_BOUND 1e-3
/* Smallest worst error of a depth the bf16 core takes: far above float32
 * rounding, so the core did run (the float32 op stays within 2e-5). */
#define BF16_RAN 1e-4

static unsigned long long rng_state = 0x2545F4914F6CDD1Dull;
static float rnd(void) { return attention_rnd(&rng_state); }
static uint16_t rnd_bf16(void) {
  const float f = rnd();
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return (uint16_t)(u >> 16); /* truncated: any bf16 in (-1, 1) will do */
}
static uint32_t rnd_pair(void) { return rnd_bf16() | (uint32_t)rnd_bf16() << 16; }

enum { DP = 64, DH = 2 * DP };

static void test_core_matches_portable(cf_test *t) {
  const cf_cpu_attention_bf16_math *ref = &cf_cpu_attention_bf16_portable;
  static uint16_t Q[64][DH], A[2][64];
  static _Alignas(64) uint32_t kt[DP * 64], vp[32 * DH];
  static uint32_t eq[DP * 225], ek[DP * 225], ev[225 * DH];
  for (int q = 0; q < 64; q++)
    for (int i = 0; i < DH; i++) Q[q][i] = rnd_bf16();
  for (int i = 0; i < DP * 64; i++) kt[i] = rnd_pair();
  for (int i = 0; i < 32 * DH; i++) vp[i] = rnd_pair();
  for (int i = 0; i < DP * 225; i++) eq[i] = rnd_pair(), ek[i] = rnd_pair();
  for (int i = 0; i < 225 * DH; i++) ev[i] = rnd_pair();
  for (int u = 0; u < 2; u++)
    for (int k = 0; k < 64; k++) A[u][k] = rnd_bf16();
  int compared = 0;
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    if (!k) continue;
    const cf_cpu_attention_bf16_math *m = cf_cpu_attention_bf16_select(k);
    printf("  %s: bf16 core %s\n", SETS[s], m->name);
    if (m == ref) continue;
    compared++;
    double worst = 0;
    for (int dp = 1; dp <= DP; dp++)
      for (int terms = 0; terms < 8; terms++) {
        const bool uq = terms & 1, uk = terms & 2, uv = terms & 4;
        const float tol = 1e-6f * dp; /* summation order over <= 6 dp terms of |x| < 1 */
        for (int q = 0; q < 64; q = (q & 7) == 7 ? q + 9 : q + 1)
          for (int half = 0; half < 2; half++) {
            _Alignas(64) float g0[64], g1[64], w0[64], w1[64];
            const int c = 224 - cf_cpu_query_base(q);
            const uint32_t *pq = uq ? eq + c : NULL, *pk = uk ? ek + c : NULL;
            m->scores_pair(dp, Q[q], Q[q + 8], kt, pq, pk, half, g0, g1);
            ref->scores_pair(dp, Q[q], Q[q + 8], kt, pq, pk, half, w0, w1);
            for (int i = 32 * half; i < 32 * half + 32; i++)
              worst = fmax(worst, fmax(fabs(g0[i] - w0[i]), fabs(g1[i] - w1[i])) / tol);
          }
        const int dh = 2 * dp - (dp & 1); /* odd depths too */
        for (int q = 0; q < 64; q += 9) {
          float g0[DH], g1[DH], w0[DH], w1[DH];
          const int b0 = cf_cpu_query_base(q), b1 = cf_cpu_query_base(63 - q);
          m->weighted_values_pair(dh, A[0], A[1], 0.75f, 1.25f, vp, uv ? ev : NULL, b0, b1, g0,
                                  g1);
          ref->weighted_values_pair(dh, A[0], A[1], 0.75f, 1.25f, vp, uv ? ev : NULL, b0, b1, w0,
                                    w1);
          for (int i = 0; i < dh; i++)
            worst = fmax(worst, fmax(fabs(g0[i] - w0[i]), fabs(g1[i] - w1[i])) / (1e-6 * 128));
        }
      }
    printf("  %s: worst difference %.3g of the bound\n", SETS[s], worst);
    CHECK(worst <= 1.0);
    /* pack_qkv: bit for bit, every depth, rows at a stride past it. */
    enum { LD = 3 * 128 + 5 };
    static float X[64 * LD];
    static uint16_t gq[64 * 128], wq[64 * 128];
    static uint32_t gk[64 * 64], wk[64 * 64], gv[32 * 128], wv[32 * 128];
    for (int i = 0; i < 64 * LD; i++) X[i] = (i % 11 == 5) ? 0.0f : rnd() * (float)(1 + i % 7);
    long packs_differ = 0;
    for (int dh = 1; dh <= 128; dh++) {
      const int dp = (dh + 1) / 2;
      m->pack_qkv(dh, X, X + 128, X + 256, LD, gq, gk, gv);
      ref->pack_qkv(dh, X, X + 128, X + 256, LD, wq, wk, wv);
      packs_differ += memcmp(gq, wq, (size_t)64 * 2 * dp * sizeof *gq) != 0 ||
                      memcmp(gk, wk, (size_t)dp * 64 * sizeof *gk) != 0 ||
                      memcmp(gv, wv, (size_t)32 * dh * sizeof *gv) != 0;
    }
    printf("  %s: pack_qkv differs from portable at %ld of 128 depths\n", SETS[s], packs_differ);
    CHECK(packs_differ == 0);
  }
  if (compared == 0) CF_SKIP("no kernel set here has a bf16 core of its own (portable only)");
}

static float bf16_value(uint16_t b) {
  const uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* softmax_to_bf16 against the double softmax it stands for. */
static void test_softmax_to_bf16(cf_test *t) {
  const cf_cpu_attention_bf16_math *ref = &cf_cpu_attention_bf16_portable;
  double worst = 0;
  int worst_step = 0;
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    if (!k) continue;
    const cf_cpu_attention_bf16_math *m = cf_cpu_attention_bf16_select(k);
    for (int r = 0; r < 200; r++) {
      _Alignas(64) float row[64], copy[64];
      float bias[64], scale;
      const float *b;
      double want[64];
      softmax_case(rnd, r & 1, row, bias, &b, &scale, want);
      uint16_t w[64], wp[64];
      memcpy(copy, row, sizeof row);
      const float sa = m->softmax_to_bf16(row, scale, b, w);
      (void)ref->softmax_to_bf16(copy, scale, b, wp);
      for (int c = 0; c < 64; c++) {
        const double got = (double)bf16_value(w[c]) * sa;
        worst = fmax(worst, fabs(got - want[c]) / (want[c] * (0x1p-8 + 1e-5) + 1e-7));
        const int step = abs((int)w[c] - (int)wp[c]);
        worst_step = step > worst_step ? step : worst_step;
      }
    }
  }
  printf("  softmax_to_bf16: worst %.3g of the bound, sets within %d bf16 step(s) of portable\n",
         worst, worst_step);
  CHECK(worst <= 1.0);
  CHECK(worst_step <= 1);
}

/* One shape through the op on oneDNN precision=bf16 under `set`, on the
 * cores (attention=cpu: auto takes the AMX tiles where they run, tested
 * in test_amx_attention.c); fills got[16][n_out] (one output per
 * variant). false when skipped. */
static bool run_op(cf_test *t, const char *set, int B, int H, int dh, const float *qkv,
                   float *const e[3], const float *bias, float *got) {
  char variant[256];
  if (!attention_op_run(t, set, "precision=bf16,attention=cpu", B, H, dh, qkv, e, bias, got,
                        variant, sizeof variant))
    return false;
  if (dh == 32) printf("  %s: %s\n", set, variant);
  CHECK(strstr(variant, ", bf16 attention (") != NULL);
  return true;
}

/* Depths: 1 (one pair, padded), odd ones (a padded pair, masked value
 * tails), the default net's 16, CF-6M's 32, 33 (a 17-lane tail), the
 * largest bf16 depth 128, and 130 (float32 plain path: reference bound
 * still holds, tighter in fact). */
static void test_op_every_set(cf_test *t) {
  if (!cf_backend_find("onednn")) {
    CF_SKIP("no oneDNN backend in this build");
    return;
  }
  const int shapes[][3] = {{2, 2, 1}, {1, 3, 7},  {2, 2, 16}, {2, 2, 32},
                           {1, 2, 33}, {1, 1, 128}, {1, 1, 130}};
  double worst_ref = 0, worst_set = 0;
  int ran = 0;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    const int B = shapes[s][0], H = shapes[s][1], dh = shapes[s][2];
    attention_inputs in = attention_inputs_make(B, H, dh, &rng_state);
    const size_t n_out = in.n_out;
    float *qkv = in.qkv, *bias = in.bias, *const *e = in.e;
    float *got = malloc(16 * n_out * sizeof *got), *port = malloc(16 * n_out * sizeof *port);
    double *want = malloc(n_out * sizeof *want);
    bool have_port = false;
    for (int k = 0; k < N_SETS; k++) {
      if (!run_op(t, SETS[k], B, H, dh, qkv, e, bias, got)) continue;
      ran++;
      double shape_worst = 0;
      if (k == 0) {
        memcpy(port, got, 16 * n_out * sizeof *got);
        have_port = true;
      }
      for (int v = 0; v < 16; v++) {
        attention_ref(B, H, dh, qkv, v & 1 ? e[0] : NULL, v & 2 ? e[1] : NULL,
                      v & 4 ? e[2] : NULL, v & 8 ? bias : NULL, want);
        double wr = 0, ws = 0;
        for (size_t i = 0; i < n_out; i++) {
          wr = fmax(wr, fabs(got[v * n_out + i] - want[i]));
          if (have_port) ws = fmax(ws, fabs(got[v * n_out + i] - port[v * n_out + i]));
        }
        if (!CHECK(wr <= BF16_BOUND && ws <= SET_BOUND))
          fprintf(stderr, "  %s B %d H %d dh %d variant %d: %.3g from the formula, %.3g from "
                  "portable\n", SETS[k], B, H, dh, v, wr, ws);
        worst_ref = fmax(worst_ref, wr);
        worst_set = fmax(worst_set, ws);
        shape_worst = fmax(shape_worst, wr);
      }
      if (!CHECK(dh > CF_CPU_MAX_FAST_DEPTH || shape_worst > BF16_RAN))
        fprintf(stderr, "  %s dh %d: float32 accuracy, the bf16 core did not run\n", SETS[k], dh);
    }
    attention_inputs_free(&in);
    free(got), free(port), free(want);
  }
  printf("  %d runs: worst %.3g from the double formula, %.3g from the portable set\n", ran,
         worst_ref, worst_set);
  if (ran == 0) CF_SKIP("oneDNN runs no bf16 on this CPU");
}

/* An RPE table with a value beyond bf16's range (3.4e38 rounds to
 * infinity) gets no bf16 table, so its calls run the float32 core: the
 * op still succeeds, and a table next to it in range gets its bf16 one. */
static void test_out_of_range_table_kept_f32(cf_test *t) {
  enum { H = 2, DH = 8, DM = H * DH };
  cf_backend_config cfg = {.max_batch = 1, .options = "precision=bf16"};
  cf_backend *be = NULL;
  cf_error err = {0};
  if (!cf_backend_find("onednn") || cf_backend_create("onednn", &cfg, &be, &err) != CF_OK) {
    printf("  %s\n", err.msg);
    CF_SKIP("oneDNN runs no bf16 on this CPU");
    return;
  }
  static float e[225 * DM], qkv[64 * 3 * DM];
  for (int i = 0; i < 225 * DM; i++) e[i] = rnd();
  for (int i = 0; i < 64 * 3 * DM; i++) qkv[i] = rnd();
  cf_bweight *ok = NULL, *big = NULL;
  cf_op_weight_rpe(be, CF_WEIGHT_RPE_V, H, 225, DM, e, &ok, NULL);
  e[100] = 3.4e38f;
  cf_op_weight_rpe(be, CF_WEIGHT_RPE_V, H, 225, DM, e, &big, NULL);
  if (CHECK(ok && big)) {
    CHECK(ok->table_bf16 != NULL);
    CHECK(big->table_bf16 == NULL);
    CHECK(big->table != NULL);
    float *dqkv = cf_op_alloc(be, 64 * 3 * DM), *dout = cf_op_alloc(be, 64 * DM);
    cf_op_upload(be, dqkv, qkv, 64 * 3 * DM);
    cf_attention_args a = {.batch = 1, .heads = H, .depth = DH, .qkv = dqkv, .rpe_v = big,
                           .scale = 1.0f / sqrtf((float)DH), .out = dout};
    cf_op_attention(be, &a);
    CHECK_INT_EQ(cf_op_sync(be, NULL), CF_OK);
    cf_op_free(be, dqkv);
    cf_op_free(be, dout);
  }
  cf_op_weight_free(be, ok);
  cf_op_weight_free(be, big);
  cf_backend_free(be);
}

CF_TEST_MAIN(test_core_matches_portable, test_softmax_to_bf16, test_op_every_set,
             test_out_of_range_table_kept_f32)
