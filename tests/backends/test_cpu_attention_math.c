/* test_cpu_attention_math.c: every kernel set's float32 attention core
 * (cf_cpu_kernels.h, cf_cpu_attention_math) against the portable set's on
 * the same random tables: scores of a query pair for each subset of RPE
 * terms, the softmax, and the weighted values with and without the value
 * table, at depths that hit the vector tails. The wasm set adds in the
 * portable set's order, so it must match bit for bit; the x86 sets use
 * fused multiply-adds and must match to rounding. A set's key transpose
 * (where it has one) must equal the plain loop's, every depth 1 to 128 and
 * row strides that put keys in different pages; its scores_file on the
 * joined tables (where it has one) the same set's scores_pair bit for bit,
 * every file, depth 1 to 16 and subset of terms; and the whole op at a
 * batch that takes the joined tables each of its positions alone, which
 * does not. A set this build or CPU lacks is skipped
 * (tests/backends/cf_kernel_sets.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cf_cpu_attention_layout.h"
#include "tests/backends/cf_attention_op.h"
#include "tests/backends/cf_kernel_sets.h"
#include "tests/cf_test.h"

enum { TABLE = CF_CPU_RPE_TABLE };

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static float rnd(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((rng >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
}
static float *randoms(size_t n) {
  float *p = aligned_alloc(64, ((n * sizeof(float) + 63) / 64) * 64);
  for (size_t i = 0; i < n; i++) p[i] = rnd();
  return p;
}

/* Worst |a - b| / (1 + |b|) over n; exact: every pair bit-equal. */
static double compare(const float *a, const float *b, int n, int *exact) {
  double worst = 0.0;
  for (int i = 0; i < n; i++) {
    if (memcmp(&a[i], &b[i], sizeof(float)) != 0) *exact = 0;
    const double d = fabs((double)a[i] - b[i]) / (1.0 + fabs((double)b[i]));
    if (d > worst) worst = d;
  }
  return worst;
}

static void test_every_set_matches_portable(cf_test *t) {
  const cf_cpu_attention_math *p = cf_cpu_kernels_portable.attention;
  static const int depths[] = {3, 5, 8, 16, 32, 36, 64};
  int compared = 0;
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    if (!k || k == &cf_cpu_kernels_portable) continue;
    const cf_cpu_attention_math *m = k->attention;
    const int must_be_exact = strcmp(k->name, "wasm") == 0;
    double worst = 0.0;
    int exact = 1;
    for (size_t di = 0; di < sizeof depths / sizeof *depths; di++) {
      const int dh = depths[di];
      float *kt = randoms((size_t)dh * 64), *Q = randoms(2 * (size_t)dh);
      float *eq = randoms((size_t)dh * TABLE), *ek = randoms((size_t)dh * TABLE);
      /* q0 = 9 (c = 224 - base(9)); q0 + 8 is 15 entries before. */
      const int c0 = 224 - cf_cpu_query_base(9);
      for (int combo = 0; combo < 4; combo++) {
        const float *e_q = combo & 1 ? eq + c0 : NULL, *e_k = combo & 2 ? ek + c0 : NULL;
        float want[2][64] __attribute__((aligned(64))), got[2][64] __attribute__((aligned(64)));
        for (int half = 0; half < 2; half++) {
          p->scores_pair(dh, Q, Q + dh, kt, e_q, e_k, half, want[0], want[1]);
          m->scores_pair(dh, Q, Q + dh, kt, e_q, e_k, half, got[0], got[1]);
        }
        double w = compare(got[0], want[0], 128, &exact);
        if (w > worst) worst = w;
        /* the softmax of those scores, with a bias row */
        p->finish_scores(want[0], 0.25f, want[1]);
        m->finish_scores(got[0], 0.25f, want[1]);
        w = compare(got[0], want[0], 64, &exact);
        if (w > worst) worst = w;
      }
      float *a = randoms(128), *v = randoms(64 * (size_t)dh), *ev = randoms((size_t)TABLE * dh);
      float *o = malloc(sizeof(float) * 4 * (size_t)dh);
      for (int with_ev = 0; with_ev < 2; with_ev++) {
        p->weighted_values_pair(dh, a, a + 64, v, (size_t)dh, with_ev ? ev : NULL,
                                cf_cpu_query_base(9), cf_cpu_query_base(10), o, o + dh);
        m->weighted_values_pair(dh, a, a + 64, v, (size_t)dh, with_ev ? ev : NULL,
                                cf_cpu_query_base(9), cf_cpu_query_base(10), o + 2 * dh,
                                o + 3 * dh);
        const double w = compare(o + 2 * dh, o, 2 * dh, &exact);
        if (w > worst) worst = w;
      }
      free(kt);
      free(Q);
      free(eq);
      free(ek);
      free(a);
      free(v);
      free(ev);
      free(o);
    }
    printf("  %s: worst relative difference %.3g, %s\n", k->name, worst,
           exact ? "bit for bit" : "not bit for bit");
    CHECK(worst < 1e-5);
    if (must_be_exact) CHECK(exact);
    compared++;
  }
  if (!compared) CF_SKIP("no kernel set besides portable runs here");
}

/* transpose_keys, where a set has one, against kt[i * 64 + k] = K[k * ld +
 * i]; the words of kt past depth dh are left alone. */
static void test_transpose_keys(cf_test *t) {
  static const size_t strides[] = {128, 3 * 64 * 3, 3 * 1024, 3 * 1024 + 5};
  int compared = 0;
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    if (!k || !k->attention->transpose_keys) continue;
    int bad = 0;
    for (size_t si = 0; si < sizeof strides / sizeof *strides; si++) {
      const size_t ld = strides[si];
      float *K = randoms(64 * ld), *kt = randoms(129 * 64);
      for (int dh = 1; dh <= 128 && (size_t)dh <= ld; dh++) {
        for (int i = 0; i < 129 * 64; i++) kt[i] = -7.0f;
        k->attention->transpose_keys(dh, K, ld, kt);
        for (int i = 0; i < dh; i++)
          for (int key = 0; key < 64; key++)
            bad += memcmp(&kt[i * 64 + key], &K[(size_t)key * ld + i], sizeof(float)) != 0;
        for (int i = dh * 64; i < 129 * 64; i++) bad += kt[i] != -7.0f;
      }
      free(K);
      free(kt);
    }
    printf("  %s: transpose_keys, %d wrong words\n", k->name, bad);
    CHECK_INT_EQ(bad, 0);
    compared++;
  }
  if (!compared) CF_SKIP("no kernel set with its own key transpose runs here");
}

/* scores_file on tables joined by cf_cpu_join_head against the same set's
 * scores_pair on the reversed tables: every row bit for bit. */
static void test_scores_file(cf_test *t) {
  enum { DH = CF_CPU_JOINED_MAX_DEPTH, LD = 3 * 64 };
  int compared = 0;
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    if (!k || !k->attention->scores_file) continue;
    const cf_cpu_attention_math *m = k->attention;
    float *Q = randoms(64 * (size_t)LD), *kt = randoms((size_t)DH * 64);
    float *eq = randoms((size_t)DH * TABLE), *ek = randoms((size_t)DH * TABLE);
    float *jq = randoms(8 * cf_cpu_joined_block(DH)), *jk = randoms(8 * cf_cpu_joined_block(DH));
    float *want = randoms(64 * 64), *got = randoms(64 * 64);
    int bad = 0;
    for (int dh = 1; dh <= DH; dh++) {
      cf_cpu_join_head(dh, eq, jq);
      cf_cpu_join_head(dh, ek, jk);
      for (int combo = 0; combo < 4; combo++) {
        const bool uq = combo & 1, uk = combo & 2;
        for (int q = 0; q < 64; q = q % 8 == 7 ? q + 9 : q + 1) {
          const int c = TABLE - 1 - cf_cpu_query_base(q);
          for (int half = 0; half < 2; half++)
            m->scores_pair(dh, Q + (size_t)q * LD, Q + (size_t)(q + 8) * LD, kt,
                           uq ? eq + c : NULL, uk ? ek + c : NULL, half, want + 64 * q,
                           want + 64 * (q + 8));
        }
        for (int f = 0; f < 8; f++) {
          const size_t at = (size_t)f * cf_cpu_joined_block(dh);
          m->scores_file(dh, f, Q, LD, kt, uq ? jq + at : NULL, uk ? jk + at : NULL, got);
        }
        for (int i = 0; i < 64 * 64; i++) bad += memcmp(&got[i], &want[i], sizeof(float)) != 0;
      }
    }
    printf("  %s: scores_file, %d scores differ from scores_pair\n", k->name, bad);
    CHECK_INT_EQ(bad, 0);
    free(Q), free(kt), free(eq), free(ek), free(jq), free(jk), free(want), free(got);
    compared++;
  }
  if (!compared) CF_SKIP("no kernel set with scores_file runs here");
}

/* The op on onednn (float32, the CPU cores) at batch 5, where a set with
 * scores_file reads the joined tables, against each position alone at
 * batch 1, where it does not: equal bit for bit for every subset of the
 * RPE terms and the smolgen bias, at depths on both sides of the joined
 * form's limit. */
static void test_joined_op_matches_alone(cf_test *t) {
  enum { B = 5 };
  static const char OPTIONS[] = "precision=f32,threads=1,attention=cpu";
  static const int shapes[][2] = {{4, 16}, {2, 7}, {1, 1}, {3, 16}, {1, 17}};
  int compared = 0;
  for (int s = 0; s < N_SETS; s++)
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
      const int bad = attention_op_batch_vs_alone(t, SETS[s], OPTIONS, B, shapes[si][0],
                                                  shapes[si][1], 77 + si);
      if (bad < 0) continue;
      CHECK_INT_EQ(bad, 0);
      compared++;
    }
  printf("  op at batch %d against each position alone: %d set and shape cases\n", B, compared);
  if (!compared) CF_SKIP("onednn is not built here");
}

CF_TEST_MAIN(test_every_set_matches_portable, test_transpose_keys, test_scores_file,
             test_joined_op_matches_alone)
