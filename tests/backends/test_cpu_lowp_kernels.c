/* test_cpu_lowp_kernels.c: the reduced-precision row ops of every CPU
 * kernel set (backends/cpu/cf_cpu_kernels.h: to_bf16_row, quantize_row,
 * quantize_row_u8, dequant_bias_act_row), which the oneDNN backend's
 * precision=bf16|int8 runs.
 *
 *   portable: against references written here (bf16 nearest even picked
 *             by distance in double, NaN quieted; int8 scale and
 *             nearbyintf), so the definition itself is checked;
 *   each set: bit for bit equal to portable over row lengths covering
 *             every tail, special values (zeros, denormals, infinities,
 *             NaNs, rounding ties) and every activation (the epilogue's
 *             activation equal to that set's own bias_act_row).
 *
 * A set is fetched through cf_cpu_kernels_select with CFORMER_CPU_KERNELS
 * forcing it, so the dispatch's CPU checks guard it; a set this CPU or
 * build cannot run is reported and skipped (backends/cpu-kernels checks
 * that refusal). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cf_cpu_kernels.h"
#include "tests/backends/cf_kernel_sets.h"
#include "tests/cf_test.h"

enum { MAXN = 1100 };

static uint32_t rng_state = 12345u;
static uint32_t rnd(void) {
  rng_state = rng_state * 1664525u + 1013904223u;
  return rng_state;
}
static float uniform(void) { return (float)(rnd() >> 8) / 16777216.0f * 2.0f - 1.0f; }
static float from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* Row lengths: every tail of the 8- and 16-wide loops and of the 32-wide
 * int8 packing, the model's widths, one long row. */
static const int LENGTHS[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65,
                              100, 255, 256, 257, 1024, 1100};
enum { N_LENGTHS = sizeof LENGTHS / sizeof LENGTHS[0] };

/* A row with values of every magnitude and, when special, the edge cases. */
static void fill(float *x, int n, bool special) {
  static const uint32_t edges[] = {
      0x00000000u, 0x80000000u,             /* +-0 */
      0x00000001u, 0x807fffffu, 0x00008000u, /* denormals, one a rounding tie */
      0x00018000u,                          /* a tie with an odd kept bit */
      0x3f808000u, 0x3f818000u, 0xbf808000u, /* ties to even, down and up */
      0x3f808001u, 0x3f807fffu,             /* just past / short of a tie */
      0x7f7fffffu, 0xff7fffffu,             /* largest finite: rounds to infinity */
      0x7f800000u, 0xff800000u,             /* infinities */
      0x7fc00000u, 0xffc00001u, 0x7f800001u, /* NaNs, one signaling */
      0x7fffffffu,
  };
  for (int i = 0; i < n; i++) {
    const int e = (int)(rnd() % 60) - 40; /* 2^-40 .. 2^19 */
    x[i] = ldexpf(uniform(), e);
    if (special && rnd() % 4 == 0) x[i] = from_bits(edges[rnd() % (sizeof edges / sizeof *edges)]);
  }
}

/* bf16 of f by definition: the nearer of the two bf16 values around f
 * (ties to the even one), infinity past the largest, NaN quieted. */
static uint16_t bf16_reference(float f) {
  const uint32_t u = bits_of(f);
  if (isnan(f)) return (uint16_t)((u >> 16) | 0x40u);
  const uint16_t lo = (uint16_t)(u >> 16);
  if ((u & 0xffffu) == 0) return lo;
  const uint16_t hi = (uint16_t)(lo + 1); /* next magnitude up (may be infinity) */
  /* Infinity counts as 2^128, the next step of the format had it one
   * more exponent: the largest finite float rounds to it, as IEEE has. */
  const double v_hi = (hi & 0x7f80u) == 0x7f80u ? copysign(ldexp(1.0, 128), (double)f)
                                                : (double)from_bits((uint32_t)hi << 16);
  const double d_lo = fabs((double)f - (double)from_bits((uint32_t)lo << 16));
  const double d_hi = fabs(v_hi - (double)f);
  if (d_lo < d_hi) return lo;
  if (d_hi < d_lo) return hi;
  return (lo & 1u) ? hi : lo;
}

static void test_bf16(cf_test *t) {
  const cf_cpu_kernels *ref = set_named("portable");
  if (!CHECK(ref != NULL)) return;
  float x[MAXN];
  uint16_t want[MAXN], got[MAXN + 8];
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    if (!k) continue;
    int bad = 0, guard_bad = 0;
    for (int li = 0; li < N_LENGTHS; li++)
      for (int rep = 0; rep < 4; rep++) {
        const int n = LENGTHS[li];
        fill(x, n, rep > 0);
        ref->to_bf16_row(n, x, want);
        for (int i = 0; i < n + 8; i++) got[i] = 0xABCD;
        k->to_bf16_row(n, x, got);
        for (int i = 0; i < n; i++) {
          const int wrong = got[i] != want[i] || (s == 0 && want[i] != bf16_reference(x[i]));
          if (wrong && !bad)
            printf("  %s: bf16 of %08x: %04x, portable %04x, reference %04x\n", SETS[s],
                   bits_of(x[i]), got[i], want[i], bf16_reference(x[i]));
          bad += wrong;
        }
        for (int i = n; i < n + 8; i++) guard_bad += got[i] != 0xABCD; /* no write past n */
      }
    printf("  %s: bf16 rows compared\n", SETS[s]);
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(guard_bad, 0);
  }
}

static void test_quantize(cf_test *t) {
  const cf_cpu_kernels *ref = set_named("portable");
  if (!CHECK(ref != NULL)) return;
  float x[MAXN];
  int8_t want[MAXN], got[MAXN + 8];
  uint8_t got_u8[MAXN + 8];
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    if (!k) continue;
    int bad = 0, scale_bad = 0, guard_bad = 0, u8_bad = 0;
    for (int li = 0; li < N_LENGTHS; li++)
      for (int rep = 0; rep < 5; rep++) {
        const int n = LENGTHS[li];
        fill(x, n, false);
        if (rep == 1)
          for (int i = 0; i < n; i++) x[i] = 0.0f; /* scale 1 */
        if (rep == 2 && n > 0) x[rnd() % (unsigned)n] = -1000.0f; /* one outlier, negative */
        if (rep == 3) /* x / scale lands on k + 0.5: ties to even */
          for (int i = 0; i < n; i++) x[i] = (i == 0 ? 127.0f : (float)(int)(rnd() % 254) - 126.5f);
        if (rep == 4 && n > 0) x[n - 1] = 3.0e4f; /* the largest in the tail */
        const float want_s = ref->quantize_row(n, x, want);
        for (int i = 0; i < n + 8; i++) got[i] = 0x55;
        const float got_s = k->quantize_row(n, x, got);
        scale_bad += bits_of(got_s) != bits_of(want_s);
        for (int i = 0; i < n; i++) bad += got[i] != want[i];
        for (int i = n; i < n + 8; i++) guard_bad += got[i] != 0x55;
        /* u8: the same scale, portable's s8 values plus 128. */
        for (int i = 0; i < n + 8; i++) got_u8[i] = 0x55;
        scale_bad += bits_of(k->quantize_row_u8(n, x, got_u8)) != bits_of(want_s);
        for (int i = 0; i < n; i++) {
          const int wrong = got_u8[i] != want[i] + 128;
          if (wrong && !u8_bad)
            printf("  %s: u8 of %.9g: %d, s8 %d\n", SETS[s], (double)x[i], got_u8[i], want[i]);
          u8_bad += wrong;
        }
        for (int i = n; i < n + 8; i++) guard_bad += got_u8[i] != 0x55;
        if (s == 0) {
          float amax = 0;
          for (int i = 0; i < n; i++) amax = fmaxf(amax, fabsf(x[i]));
          const float sc = amax > 0 ? amax / 127.0f : 1.0f;
          scale_bad += bits_of(want_s) != bits_of(sc);
          const float inv = 1.0f / sc;
          for (int i = 0; i < n; i++) {
            const float p = x[i] * inv;
            bad += want[i] != (int8_t)nearbyintf(p);
          }
        }
      }
    printf("  %s: int8 rows compared (s8 and u8)\n", SETS[s]);
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(u8_bad, 0);
    CHECK_INT_EQ(scale_bad, 0);
    CHECK_INT_EQ(guard_bad, 0);
  }
}

static const cf_op_act ACTS[] = {CF_OP_ACT_NONE,    CF_OP_ACT_MISH,  CF_OP_ACT_RELU,
                                 CF_OP_ACT_TANH,    CF_OP_ACT_SIGMOID, CF_OP_ACT_SWISH,
                                 CF_OP_ACT_SELU,    CF_OP_ACT_RELU2};
enum { N_ACTS = sizeof ACTS / sizeof ACTS[0] };

static void test_dequant_bias_act(cf_test *t) {
  const cf_cpu_kernels *ref = set_named("portable");
  if (!CHECK(ref != NULL)) return;
  int32_t acc[MAXN], offset[MAXN];
  float cs[MAXN], bias[MAXN], want[MAXN], got[MAXN + 8], own[MAXN];
  for (int s = 0; s < N_SETS; s++) {
    const cf_cpu_kernels *k = set_named(SETS[s]);
    if (!k) continue;
    int scaled_bad = 0, own_bad = 0, guard_bad = 0, cases = 0;
    double worst = 0;
    for (int li = 0; li < N_LENGTHS; li++)
      for (int a = 0; a < N_ACTS; a++)
        for (int with_bias = 0; with_bias < 2; with_bias++) {
          const int n = LENGTHS[li];
          /* u8 x s8 products as the matmul writes them (up to 255 * 127 *
           * 1024) and 128 times a weight row's sum, so the differences
           * pass 2^24, where the conversion to float rounds; positive
           * scales. */
          for (int i = 0; i < n; i++) {
            acc[i] = (int32_t)(rnd() % 66000001u) - 33000000;
            offset[i] = 128 * ((int32_t)(rnd() % 260097u) - 130048);
            cs[i] = ldexpf(1.0f + 0.5f * uniform(), -14);
            bias[i] = uniform();
          }
          if (n > 0) offset[0] = acc[0]; /* a zero difference */
          if (n > 1) acc[1] = offset[1] + (1 << 24) + 3; /* rounds to even */
          const float rs = ldexpf(1.0f + 0.5f * uniform(), -7);
          const float *b = with_bias ? bias : NULL;
          /* The scaling and bias: bit for bit portable's. */
          for (int i = n; i < n + 8; i++) got[i] = 7.0f;
          ref->dequant_bias_act_row(n, acc, offset, rs, cs, b, CF_OP_ACT_NONE, want);
          k->dequant_bias_act_row(n, acc, offset, rs, cs, b, CF_OP_ACT_NONE, got);
          for (int i = 0; i < n; i++) scaled_bad += bits_of(got[i]) != bits_of(want[i]);
          if (s == 0) /* portable against the formula, the difference in double */
            for (int i = 0; i < n; i++) {
              const double d = (double)acc[i] - (double)offset[i];
              float v = (float)d * (rs * cs[i]);
              if (b) v += b[i];
              scaled_bad += bits_of(want[i]) != bits_of(v);
            }
          /* With the activation: the set's own bias_act_row on the scaled
           * row, bit for bit, and near portable's. */
          const cf_op_act act = ACTS[a];
          for (int i = 0; i < n; i++) own[i] = (float)(acc[i] - offset[i]) * (rs * cs[i]);
          k->bias_act_row(n, own, b, act);
          k->dequant_bias_act_row(n, acc, offset, rs, cs, b, act, got);
          ref->dequant_bias_act_row(n, acc, offset, rs, cs, b, act, want);
          for (int i = 0; i < n; i++) {
            const int wrong = bits_of(got[i]) != bits_of(own[i]);
            if (wrong && !own_bad)
              printf("  %s: act %d of %d: %.9g, its bias_act_row %.9g\n", SETS[s], (int)act,
                     acc[i] - offset[i], (double)got[i], (double)own[i]);
            own_bad += wrong;
            const double d = fabs((double)got[i] - want[i]) / (1.0 + fabs((double)want[i]));
            if (d > worst) worst = d;
          }
          for (int i = n; i < n + 8; i++) guard_bad += got[i] != 7.0f;
          cases++;
        }
    printf("  %s: %d epilogue rows compared, worst activation difference from portable %.2g\n",
           SETS[s], cases, worst);
    CHECK_INT_EQ(scaled_bad, 0);
    CHECK_INT_EQ(own_bad, 0);
    CHECK_INT_EQ(guard_bad, 0);
    CHECK(worst <= 1e-5);
  }
}

CF_TEST_MAIN(test_bf16, test_quantize, test_dequant_bias_act)
