/* fuzz_backend.c: the `fuzz` backend, a test double for the UCI fuzz
 * target (see fuzz_backend.h). It is the reference backend (memory,
 * weights, norm, gate, copy: cheap) with its three costly ops replaced by
 * cheap deterministic ones that still read their inputs, so a network on
 * it runs every layer of its forward pass and its outputs depend on the
 * position (the search sees different priors and values per position), at
 * a small part of the reference's cost:
 *   linear:     y[r][o] = act(v), act a cheap rational stand-in of the same
 *               shape, with v = x[r][o] / 2 + x[r][o ^ 1] / 4 when in = out
 *               (even), the mean of x[r][o + t out] over t < min(in / out, 4)
 *               times 3/4 when in > out (an embedding reads the first
 *               planes), and 3/4 x[r][o % in] when in < out: rows * out work
 *               (at most 4 rows * out) instead of rows * in * out
 *   attention:  out = (v + q) / 2 per token (no 64 x 64 scores)
 *   matmul_nt:  C[b][i][j] = scale a[b][i][0] b[b][j][0] + scale a[b][i][k-1] b[b][j][k-1]
 * The layer norms between keep the values bounded. The weights are
 * uploaded and kept (the reference's own weight_create) but these ops do
 * not read them. */
#include "fuzz_backend.h"

#include <math.h>
#include <stddef.h>

#include "backends/ref/cf_ref_backend.h"

/* y[i] = act(y[i]) for i < n, with cheap bounded stand-ins for the
 * activations (no exp: this runs for every output of every linear): the
 * same sign and growth as the real ones, rational instead of
 * transcendental. One plain loop per activation, so it vectorizes. */
static void act_in_place(cf_op_act a, size_t n, float *y) {
  switch (a) {
    case CF_OP_ACT_RELU:
      for (size_t i = 0; i < n; i++) y[i] = y[i] > 0 ? y[i] : 0;
      return;
    case CF_OP_ACT_RELU2:
      for (size_t i = 0; i < n; i++) y[i] = y[i] > 0 ? y[i] * y[i] : 0;
      return;
    case CF_OP_ACT_TANH: /* in (-1, 1) */
      for (size_t i = 0; i < n; i++) y[i] = y[i] / (1 + fabsf(y[i]));
      return;
    case CF_OP_ACT_SIGMOID: /* in (0, 1) */
      for (size_t i = 0; i < n; i++) y[i] = 0.5f + 0.5f * y[i] / (1 + fabsf(y[i]));
      return;
    case CF_OP_ACT_MISH:
    case CF_OP_ACT_SELU:
    case CF_OP_ACT_SWISH: /* above 0 as is, bounded below by -1 */
      for (size_t i = 0; i < n; i++) y[i] = y[i] > 0 ? y[i] : y[i] / (1 - y[i]);
      return;
    case CF_OP_ACT_NONE: return;
  }
}

/* Terms of a narrowing linear's sum (see the header comment). */
enum { NARROW_TERMS = 4 };

static void fake_linear(void *ctx, int rows, int in, int out, const float *x, const cf_bweight *w,
                        const cf_bweight *b, cf_op_act a, float *y) {
  (void)ctx, (void)w, (void)b;
  const size_t n = (size_t)rows * (size_t)out;
  if (in == out && in % 2 == 0) {
    /* Most of a small net's linears: one pass over all rows; k ^ 1 stays
     * in k's row since rows are an even number of values wide. */
    for (size_t k = 0; k < n; k++) y[k] = x[k] / 2 + x[k ^ 1] / 4;
  } else if (in > out) {
    const int terms = in / out < NARROW_TERMS ? in / out : NARROW_TERMS;
    for (int r = 0; r < rows; r++) {
      const float *xr = x + (size_t)r * (size_t)in;
      float *yr = y + (size_t)r * (size_t)out;
      for (int o = 0; o < out; o++) {
        float sum = 0;
        for (int t = 0; t < terms; t++) sum += xr[o + t * out];
        yr[o] = sum * (0.75f / (float)terms);
      }
    }
  } else {
    for (int r = 0; r < rows; r++) {
      const float *xr = x + (size_t)r * (size_t)in;
      float *yr = y + (size_t)r * (size_t)out;
      for (int o = 0, i = 0; o < out; o++) {
        yr[o] = 0.75f * xr[i];
        if (++i == in) i = 0;
      }
    }
  }
  act_in_place(a, n, y);
}

static void fake_attention(void *ctx, const cf_attention_args *args) {
  (void)ctx;
  const int dm = args->heads * args->depth;
  for (int t = 0; t < args->batch * 64; t++) {
    const float *q = args->qkv + (size_t)t * 3 * (size_t)dm, *v = q + 2 * dm;
    float *o = args->out + (size_t)t * (size_t)dm;
    for (int c = 0; c < dm; c++) o[c] = (v[c] + q[c]) / 2;
  }
}

static void fake_matmul_nt(void *ctx, int batch, int m, int n, int k, const float *a,
                           const float *bm, float scale, float *c) {
  (void)ctx;
  enum { CHUNK = 64 };
  float first[CHUNK], last[CHUNK];
  for (int bb = 0; bb < batch; bb++)
    for (int j0 = 0; j0 < n; j0 += CHUNK) {
      const int nj = n - j0 < CHUNK ? n - j0 : CHUNK;
      /* b's first and last columns, gathered once for the m rows of a */
      for (int j = 0; j < nj; j++) {
        const float *bj = bm + ((size_t)bb * (size_t)n + (size_t)(j0 + j)) * (size_t)k;
        first[j] = bj[0];
        last[j] = bj[k - 1];
      }
      for (int i = bb * m; i < (bb + 1) * m; i++) {
        const float *ai = a + (size_t)i * (size_t)k;
        const float a0 = scale * ai[0], ak = scale * ai[k - 1];
        float *ci = c + (size_t)i * (size_t)n + j0;
        for (int j = 0; j < nj; j++) ci[j] = a0 * first[j] + ak * last[j];
      }
    }
}

static cf_backend_iface fake_iface;
static cf_backend_desc fake_desc;

const cf_backend_desc *cf_fuzz_backend_register(void) {
  if (!fake_desc.name) {
    fake_iface = *cf_backend_ref_desc.iface;
    fake_iface.linear = fake_linear;
    fake_iface.attention = fake_attention;
    fake_iface.matmul_nt = fake_matmul_nt;
    fake_desc = cf_backend_ref_desc;
    fake_desc.name = CF_FUZZ_BACKEND;
    fake_desc.summary = "test double: the reference with cheap deterministic linear, attention "
                        "and matmul (fuzz target only)";
    fake_desc.priority = -1;
    fake_desc.iface = &fake_iface;
  }
  cf_backend_set_test_double(&fake_desc);
  return &fake_desc;
}
