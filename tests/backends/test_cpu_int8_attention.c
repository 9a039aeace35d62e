/* test_cpu_int8_attention.c: the attention core in int8 (the oneDNN
 * backend's precision=int8, backends/cpu/cf_cpu_attention_int8.c).
 *
 *   core:  each set's int8 core (cf_cpu_attention_int8_select of the set
 *          forced by CFORMER_CPU_KERNELS) against the portable one on the
 *          same integer data, every depth quad count 1..32 and value depth
 *          1..128, both key halves, every query pair, every subset of the
 *          RPE terms, and the q/k and value quantizers (every depth
 *          1..128): bit for bit (the integer sums are exact, the
 *          conversions the same float32 steps);
 *   softmax: each set's softmax_to_u8 (the portable one too) against a
 *          double-precision softmax: every weight within half a step plus
 *          float32's exp error, the scale within 1e-5 relative, with and
 *          without a bias row; the sets within one step of portable;
 *   op:    the whole op on oneDNN precision=int8 under every kernel set
 *          this CPU runs (2 threads, task counts not a multiple of 2),
 *          against the double-precision formula on the unquantized inputs,
 *          every subset of RPE q/k/v and the smolgen bias, odd depths, a
 *          depth past the int8 path (float32), and against the portable
 *          set's op; the variant names the core, or says f32 attention for
 *          a set without one and for int8_attention=0 (float32 accuracy);
 *   tables: a table with a value that is not finite gets no int8 form,
 *          and the int8 op refuses its calls (they keep float32); a finite
 *          one gets it, and the op runs;
 *   option: int8_attention out of range, or on another backend, refused;
 *   joined: a core's scores_file on quads joined by cf_cpu_join_head
 *          against its own scores_pair, bit for bit (every file, quad count
 *          1..4, subset of terms), and the op at a batch that reads the
 *          joined quads against each position alone, which does not.
 * Skips (77) where oneDNN does not run int8 here (no VNNI). */
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

/* Largest |int8 op - double formula| over an output, inputs in [-1, 1):
 * q, k, v and the RPE tables keep about 8 bits (a step of max / 127 per
 * row or column), the weights a step of max / 255 per row. Measured worst
 * (printed) 5.0e-3. */
#define INT8_BOUND 1e-2
/* Largest |set - portable| of the op: the sets' float32 softmax and RPE
 * sums differ in the last bits, which can move a weight's u8 rounding by
 * one step (max / 255). Measured worst 2.1e-4. */
#define SET_BOUND 1e-3
/* Smallest worst error of a depth the int8 core takes: far above float32
 * rounding (2e-5), so the core did run. */
#define INT8_RAN 2e-4
#define F32_BOUND 2e-5

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static float rnd(void) { return attention_rnd(&rng_state); }
static uint32_t rnd32(void) {
  attention_rnd(&rng_state);
  return (uint32_t)(rng_state >> 32);
}

enum { DQ = 32, DH = 128 };

static void test_core_matches_portable(cf_test *t) {
  enum { T = CF_CPU_RPE_TABLE };
  const cf_cpu_attention_int8_math *ref = &cf_cpu_attention_int8_portable;
  static uint8_t Q[64][4 * DQ], A[2][64];
  static _Alignas(64) uint32_t kt[DQ * 64], vq[16 * DH];
  static uint32_t eq[DQ * T], ek[DQ * T], ev[T * DH];
  int32_t kc[64], eqc[T];
  float sk[64], sv[DH], eqs[T], eks[T], evs[DH];
  for (int q = 0; q < 64; q++)
    for (int i = 0; i < 4 * DQ; i++) Q[q][i] = (uint8_t)rnd32();
  for (int i = 0; i < DQ * 64; i++) kt[i] = rnd32();
  for (int i = 0; i < 16 * DH; i++) vq[i] = rnd32();
  for (int i = 0; i < DQ * T; i++) eq[i] = rnd32(), ek[i] = rnd32();
  for (int i = 0; i < T * DH; i++) ev[i] = rnd32();
  for (int k = 0; k < 64; k++) kc[k] = (int32_t)(rnd32() % 100000) - 50000, sk[k] = rnd() + 1.5f;
  for (int j = 0; j < T; j++)
    eqc[j] = (int32_t)(rnd32() % 100000) - 50000, eqs[j] = rnd() + 1.5f, eks[j] = rnd() + 1.5f;
  for (int i = 0; i < DH; i++) sv[i] = rnd() + 1.5f, evs[i] = rnd() + 1.5f;
  for (int u = 0; u < 2; u++)
    for (int k = 0; k < 64; k++) A[u][k] = (uint8_t)rnd32();
  int compared = 0;
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    if (!k) continue;
    const cf_cpu_attention_int8_math *m = cf_cpu_attention_int8_select(k);
    printf("  %s: int8 core %s\n", SETS[s], m ? m->name : "none (f32 attention)");
    if (!m || m == ref) continue;
    compared++;
    long differ = 0, total = 0;
    for (int dq = 1; dq <= DQ; dq++)
      for (int q = 0; q < 64; q = (q & 7) == 7 ? q + 9 : q + 1)
        for (int half = 0; half < 2; half++)
          for (int terms = 0; terms < 5; terms++) { /* 4: no table struct at all */
            /* The tables at this pair's offset c(q0), laid out [dq][225]. */
            const int c = T - 1 - cf_cpu_query_base(q);
            cf_cpu_int8_rpe rt = {terms & 1 ? eq + c : NULL, eqc + c, eqs + c,
                                  terms & 2 ? ek + c : NULL, eks + c};
            const cf_cpu_int8_rpe *pt = terms == 4 ? NULL : &rt;
            _Alignas(64) float g0[64], g1[64], w0[64], w1[64];
            m->scores_pair(dq, Q[q], Q[q + 8], 0.01f, 0.02f, kt, kc, sk, pt, half, g0, g1);
            ref->scores_pair(dq, Q[q], Q[q + 8], 0.01f, 0.02f, kt, kc, sk, pt, half, w0, w1);
            differ += memcmp(g0 + 32 * half, w0 + 32 * half, 32 * sizeof(float)) != 0;
            differ += memcmp(g1 + 32 * half, w1 + 32 * half, 32 * sizeof(float)) != 0;
            total += 2;
          }
    for (int dh = 1; dh <= DH; dh++)
      for (int q = 0; q < 64; q += 9) /* bases from the lowest to the highest */
        for (int with_e = 0; with_e < 2; with_e++) {
          const int b0 = cf_cpu_query_base(q & ~8), b1 = cf_cpu_query_base((q & ~8) + 8);
          float g0[DH], g1[DH], w0[DH], w1[DH];
          const uint32_t *e = with_e ? ev : NULL;
          m->weighted_values_pair(dh, A[0], A[1], 0.003f, 0.005f, vq, sv, e, evs, b0, b1, g0, g1);
          ref->weighted_values_pair(dh, A[0], A[1], 0.003f, 0.005f, vq, sv, e, evs, b0, b1, w0,
                                    w1);
          differ += memcmp(g0, w0, (size_t)dh * sizeof(float)) != 0;
          differ += memcmp(g1, w1, (size_t)dh * sizeof(float)) != 0;
          total += 2;
        }
    /* quantize_qk: q and k rows at a stride past the depth, every depth. */
    static float X[2][64][DH + 5];
    for (int u = 0; u < 2; u++)
      for (int k2 = 0; k2 < 64; k2++)
        for (int i = 0; i < DH + 5; i++)
          X[u][k2][i] = (i % 7 == 3) ? 0.0f : rnd() * (float)(k2 + 1);
    for (int i = 0; i < DH + 5; i++) X[1][9][i] = 0.0f; /* a zero key row: scale 1 */
    for (int dh = 1; dh <= DH; dh++) {
      static uint8_t gqb[64 * DH], wqb[64 * DH];
      static uint32_t gkt[DQ * 64], wkt[DQ * 64];
      float gsq[64], wsq[64], gsk[64], wsk[64];
      int32_t gkc[64], wkc[64];
      const int dq = (dh + 3) / 4;
      m->quantize_qk(dh, &X[0][0][0], &X[1][0][0], DH + 5, gqb, gkt, gsq, gsk, gkc);
      ref->quantize_qk(dh, &X[0][0][0], &X[1][0][0], DH + 5, wqb, wkt, wsq, wsk, wkc);
      differ += memcmp(gqb, wqb, (size_t)64 * 4 * dq) != 0 ||
                memcmp(gkt, wkt, (size_t)dq * 64 * sizeof *gkt) != 0 ||
                memcmp(gsq, wsq, sizeof gsq) != 0 || memcmp(gsk, wsk, sizeof gsk) != 0 ||
                memcmp(gkc, wkc, sizeof gkc) != 0;
      total++;
    }
    static float V[64][DH + 3];
    for (int k2 = 0; k2 < 64; k2++)
      for (int i = 0; i < DH + 3; i++) V[k2][i] = (i % 5 == 4) ? 0.0f : rnd() * (float)(i + 1);
    for (int dh = 1; dh <= DH; dh++) {
      static uint32_t gq[16 * DH], wq[16 * DH];
      float gs[DH], ws[DH];
      m->quantize_values(dh, &V[0][0], DH + 3, gq, gs);
      ref->quantize_values(dh, &V[0][0], DH + 3, wq, ws);
      differ += memcmp(gq, wq, 16 * (size_t)dh * sizeof *gq) != 0 ||
                memcmp(gs, ws, (size_t)dh * sizeof *gs) != 0;
      total++;
    }
    printf("  %s: %ld of %ld rows differ from the portable core\n", SETS[s], differ, total);
    CHECK(differ == 0);
  }
  if (compared == 0) printf("  no set here has an int8 core of its own (portable only)\n");
}

/* softmax_to_u8 against the double softmax it stands for. */
static void test_softmax_to_u8(cf_test *t) {
  const cf_cpu_attention_int8_math *ref = &cf_cpu_attention_int8_portable;
  double worst_w = 0, worst_s = 0;
  int worst_set = 0;
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    const cf_cpu_attention_int8_math *m = k ? cf_cpu_attention_int8_select(k) : NULL;
    if (!m) continue;
    for (int r = 0; r < 200; r++) {
      _Alignas(64) float row[64], copy[64];
      float bias[64], scale;
      const float *b;
      double want[64], top = 0;
      softmax_case(rnd, r & 1, row, bias, &b, &scale, want);
      for (int c = 0; c < 64; c++) top = fmax(top, want[c]);
      uint8_t w[64], wp[64];
      memcpy(copy, row, sizeof row);
      const float sa = m->softmax_to_u8(row, scale, b, w);
      (void)ref->softmax_to_u8(copy, scale, b, wp);
      /* exp(v - max v) = want / top, so the scale should be top / 255 */
      worst_s = fmax(worst_s, fabs(sa * 255.0 / top - 1.0));
      for (int c = 0; c < 64; c++) {
        worst_w = fmax(worst_w, fabs(w[c] - 255.0 * want[c] / top));
        worst_set = abs((int)w[c] - (int)wp[c]) > worst_set ? abs((int)w[c] - (int)wp[c])
                                                           : worst_set;
      }
    }
  }
  printf("  softmax_to_u8: weights within %.4f of 255 e, scale within %.2g relative, sets "
         "within %d step(s) of portable\n",
         worst_w, worst_s, worst_set);
  CHECK(worst_w <= 0.51);
  CHECK(worst_s <= 1e-5);
  CHECK(worst_set <= 1);
}

/* One shape through the op on oneDNN precision=int8 (plus `extra`
 * options) under `set`, 2 threads, on the cores (attention=cpu: auto
 * takes the AMX tiles where they run); fills got[16][n_out]. NULL when
 * the backend cannot be made, else its variant (static copy). */
static const char *run_op(cf_test *t, const char *set, const char *extra, int B, int H, int dh,
                          const float *qkv, float *const e[3], const float *bias, float *got) {
  static char variant[256];
  char opts[96];
  snprintf(opts, sizeof opts, "precision=int8,threads=2,attention=cpu%s", extra);
  return attention_op_run(t, set, opts, B, H, dh, qkv, e, bias, got, variant, sizeof variant)
             ? variant
             : NULL;
}

/* Largest |got - formula| over the 16 variants (each in per_variant[v]
 * when given), the portable set's too. */
static void compare(int B, int H, int dh, const float *qkv, float *const e[3], const float *bias,
                    const float *got, const float *port, double *wr, double *ws,
                    double *per_variant) {
  const size_t n_out = (size_t)B * 64 * H * dh;
  double *want = malloc(n_out * sizeof *want);
  *wr = *ws = 0;
  for (int v = 0; v < 16; v++) {
    attention_ref(B, H, dh, qkv, v & 1 ? e[0] : NULL, v & 2 ? e[1] : NULL, v & 4 ? e[2] : NULL,
                  v & 8 ? bias : NULL, want);
    double wv = 0;
    for (size_t i = 0; i < n_out; i++) {
      wv = fmax(wv, fabs(got[v * n_out + i] - want[i]));
      if (port) *ws = fmax(*ws, fabs(got[v * n_out + i] - port[v * n_out + i]));
    }
    *wr = fmax(*wr, wv);
    if (per_variant) per_variant[v] = wv;
  }
  free(want);
}

/* Shapes {B, H, dh}: task counts 3, 4, 3, 5 on 2 threads; depths 1, 7
 * (a padded quad), 16, 32 (CF-6M), 33, 128 (the largest int8 depth) and
 * 130 (float32 plain path). */
static void test_op_every_set(cf_test *t) {
  const int shapes[][3] = {{3, 1, 1}, {2, 2, 7},  {1, 3, 16}, {5, 1, 32},
                           {1, 2, 33}, {1, 1, 128}, {1, 1, 130}};
  double worst_ref = 0, worst_set = 0, worst_off = 0;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    const int B = shapes[s][0], H = shapes[s][1], dh = shapes[s][2];
    attention_inputs in = attention_inputs_make(B, H, dh, &rng_state);
    const size_t n_out = in.n_out;
    float *qkv = in.qkv, *bias = in.bias, *const *e = in.e;
    float *got = malloc(16 * n_out * sizeof *got), *port = malloc(16 * n_out * sizeof *port);
    bool have_port = false;
    for (int k = 0; k < N_SETS; k++) {
      const char *variant = run_op(t, SETS[k], "", B, H, dh, qkv, e, bias, got);
      if (!variant) continue;
      const bool core = strstr(variant, ", int8 attention (") != NULL;
      if (dh == 32) printf("  %s: %s\n", SETS[k], variant);
      CHECK(core || strstr(variant, ", f32 attention") != NULL);
      CHECK(core == (k == 0 || cf_cpu_attention_int8_select(set_named(SETS[k])) != NULL));
      double wr, ws;
      compare(B, H, dh, qkv, e, bias, got, have_port ? port : NULL, &wr, &ws, NULL);
      if (k == 0) {
        memcpy(port, got, 16 * n_out * sizeof *got);
        have_port = true;
      }
      const bool int8_ran = core && dh <= CF_CPU_MAX_FAST_DEPTH;
      if (!CHECK(wr <= (int8_ran ? INT8_BOUND : F32_BOUND) && (!core || ws <= SET_BOUND)))
        fprintf(stderr, "  %s B %d H %d dh %d: %.3g from the formula, %.3g from portable\n",
                SETS[k], B, H, dh, wr, ws);
      if (!CHECK(!int8_ran || wr > INT8_RAN))
        fprintf(stderr, "  %s dh %d: float32 accuracy, the int8 core did not run\n", SETS[k], dh);
      if (core) worst_ref = fmax(worst_ref, wr), worst_set = fmax(worst_set, ws);
      /* int8_attention=0: the float32 attention, said in the variant. */
      if (!core || dh != 32) continue;
      variant = run_op(t, SETS[k], ",int8_attention=0", B, H, dh, qkv, e, bias, got);
      if (!CHECK(variant != NULL)) continue;
      CHECK(strstr(variant, ", f32 attention") != NULL);
      compare(B, H, dh, qkv, e, bias, got, NULL, &wr, &ws, NULL);
      worst_off = fmax(worst_off, wr);
      CHECK(wr <= F32_BOUND);
    }
    attention_inputs_free(&in);
    free(got), free(port);
  }
  printf("  int8 core: worst %.3g from the double formula (bound %.3g), %.3g from the portable "
         "set (bound %.3g); int8_attention=0: %.3g\n",
         worst_ref, INT8_BOUND, worst_set, SET_BOUND, worst_off);
}

/* An RPE weight with a value that is not finite gets no int8 table, and
 * the int8 op declines its calls (cf_cpu_attention then runs float32);
 * the same weight made finite gets one, and the op runs. */
static void test_nonfinite_table(cf_test *t) {
  enum { H = 2, DHT = 16, DM = H * DHT };
  cf_cpu_ctx ctx;
  cf_backend_config cfg = {.max_batch = 1};
  cf_error err = {0};
  if (!CHECK(cf_cpu_ctx_init(&ctx, &cfg, &err) == CF_OK)) return;
  ctx.attention_int8 = &cf_cpu_attention_int8_portable; /* before the uploads */
  static float table[225 * DM], qkv[64 * 3 * DM], out[64 * DM];
  for (int i = 0; i < 225 * DM; i++) table[i] = rnd();
  for (int i = 0; i < 64 * 3 * DM; i++) qkv[i] = rnd();
  const cf_weight_role roles[3] = {CF_WEIGHT_RPE_Q, CF_WEIGHT_RPE_K, CF_WEIGHT_RPE_V};
  for (int r = 0; r < 3; r++)
    for (int bad = 0; bad < 3; bad++) { /* finite, an infinity, a NaN */
      const float keep = table[1000];
      table[1000] = bad == 1 ? -INFINITY : bad == 2 ? NAN : keep;
      const cf_weight_shape shape = {.role = roles[r], .rows = 225, .cols = DM, .heads = H};
      cf_bweight *w = cf_cpu_weight_create(&ctx, &shape, table, &err);
      table[1000] = keep;
      if (!CHECK(w != NULL)) continue;
      CHECK((w->table_int8 != NULL) == (bad == 0));
      cf_attention_args a = {.batch = 1, .heads = H, .depth = DHT, .qkv = qkv, .scale = 0.25f,
                             .out = out};
      if (r == 0) a.rpe_q = w;
      if (r == 1) a.rpe_k = w;
      if (r == 2) a.rpe_v = w;
      CHECK(cf_cpu_attention_int8(&ctx, &a) == (bad == 0));
      cf_cpu_weight_free(&ctx, w);
    }
}

/* int8_attention takes 0 or 1 on onednn only. */
static void test_option_refused(cf_test *t) {
  const char *bad[][2] = {{"onednn", "precision=int8,int8_attention=2"},
                          {"onednn", "int8_attention=x"},
                          {"openblas", "int8_attention=1"}};
  for (int i = 0; i < 3; i++) {
    if (!cf_backend_find(bad[i][0])) continue;
    cf_backend_config cfg = {.max_batch = 1, .options = bad[i][1]};
    cf_backend *be = NULL;
    cf_error err = {0};
    CHECK(cf_backend_create(bad[i][0], &cfg, &be, &err) != CF_OK);
    CHECK_STR_CONTAINS(err.msg, "int8_attention");
    printf("  %s %s: %s\n", bad[i][0], bad[i][1], err.msg);
    cf_backend_free(be);
  }
}

/* scores_file against the same core's scores_pair. */
static void test_scores_file(cf_test *t) {
  enum { T = CF_CPU_RPE_TABLE, QD = (CF_CPU_JOINED_MAX_DEPTH + 3) / 4 };
  static uint8_t Q[64 * 4 * QD];
  static _Alignas(64) uint32_t kt[QD * 64], jq[8 * QD * CF_CPU_JOINED * 16],
      jk[8 * QD * CF_CPU_JOINED * 16];
  static uint32_t eq[QD * T], ek[QD * T];
  int32_t kc[64], eqc[T];
  float sq[64], sk[64], eqs[T], eks[T];
  for (int i = 0; i < 64 * 4 * QD; i++) Q[i] = (uint8_t)rnd32();
  for (int i = 0; i < QD * 64; i++) kt[i] = rnd32();
  for (int i = 0; i < QD * T; i++) eq[i] = rnd32(), ek[i] = rnd32();
  for (int k = 0; k < 64; k++)
    kc[k] = (int32_t)(rnd32() % 100000) - 50000, sk[k] = rnd() + 1.5f, sq[k] = rnd() + 1.5f;
  for (int j = 0; j < T; j++)
    eqc[j] = (int32_t)(rnd32() % 100000) - 50000, eqs[j] = rnd() + 1.5f, eks[j] = rnd() + 1.5f;
  int compared = 0;
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    const cf_cpu_attention_int8_math *m = k ? cf_cpu_attention_int8_select(k) : NULL;
    if (!m || !m->scores_file) continue;
    long differ = 0;
    for (int dq = 1; dq <= QD; dq++) {
      cf_cpu_join_head(dq, eq, jq);
      cf_cpu_join_head(dq, ek, jk);
      for (int terms = 0; terms < 4; terms++) {
        const bool uq = terms & 1, uk = terms & 2;
        _Alignas(64) float want[64 * 64], got[64 * 64];
        for (int q = 0; q < 64; q = (q & 7) == 7 ? q + 9 : q + 1) {
          const int c = T - 1 - cf_cpu_query_base(q);
          const cf_cpu_int8_rpe rt = {uq ? eq + c : NULL, eqc + c, eqs + c, uk ? ek + c : NULL,
                                      eks + c};
          for (int half = 0; half < 2; half++)
            m->scores_pair(dq, Q + q * 4 * dq, Q + (q + 8) * 4 * dq, sq[q], sq[q + 8], kt, kc, sk,
                           &rt, half, want + 64 * q, want + 64 * (q + 8));
        }
        const cf_cpu_int8_rpe head = {uq ? eq : NULL, eqc, eqs, uk ? ek : NULL, eks};
        for (int f = 0; f < 8; f++) {
          const size_t at = (size_t)f * cf_cpu_joined_block(dq);
          m->scores_file(dq, f, Q, sq, kt, kc, sk, &head, uq ? jq + at : NULL,
                         uk ? jk + at : NULL, got);
        }
        for (int i = 0; i < 64 * 64; i++) differ += memcmp(&got[i], &want[i], sizeof(float)) != 0;
      }
    }
    printf("  %s: scores_file, %ld scores differ from scores_pair\n", m->name, differ);
    CHECK(differ == 0);
    compared++;
  }
  if (!compared) CF_SKIP("no int8 core with scores_file runs here");
}

/* The op at batch 5 (joined quads where the core has scores_file) against
 * each position alone at batch 1 (not): equal bit for bit, every subset
 * of the RPE terms and the smolgen bias, depths on both sides of the
 * joined quads' limit. */
static void test_joined_op_matches_alone(cf_test *t) {
  enum { B = 5 };
  static const char OPTIONS[] = "precision=int8,threads=1,attention=cpu";
  static const int shapes[][2] = {{4, 16}, {2, 7}, {1, 1}, {1, 17}};
  int compared = 0;
  for (int s = 0; s < N_SETS; s++)
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
      const int bad = attention_op_batch_vs_alone(t, SETS[s], OPTIONS, B, shapes[si][0],
                                                  shapes[si][1], 91 + si);
      if (bad < 0) continue;
      CHECK_INT_EQ(bad, 0);
      compared++;
    }
  printf("  op at batch %d against each position alone: %d set and shape cases\n", B, compared);
  if (!compared) CF_SKIP("onednn does not run int8 here");
}

int main(int argc, char **argv) {
  (void)argc;
  cf_backend_config cfg = {.max_batch = 1, .options = "precision=int8"};
  cf_backend *be = NULL;
  cf_error err = {0};
  if (!cf_backend_find("onednn")) {
    printf("skip: no oneDNN backend in this build\n");
    return 77;
  }
  if (cf_backend_create("onednn", &cfg, &be, &err) != CF_OK) {
    printf("skip: oneDNN does not run int8 here (%s)\n", err.msg);
    return 77;
  }
  cf_backend_free(be);
  const char *names[] = {"test_core_matches_portable", "test_softmax_to_u8", "test_op_every_set",
                         "test_nonfinite_table", "test_option_refused", "test_scores_file",
                         "test_joined_op_matches_alone"};
  const cf_test_fn fns[] = {test_core_matches_portable, test_softmax_to_u8, test_op_every_set,
                            test_nonfinite_table, test_option_refused, test_scores_file,
                            test_joined_op_matches_alone};
  return cf_test_run(names, fns, 7, 1, argv);
}
