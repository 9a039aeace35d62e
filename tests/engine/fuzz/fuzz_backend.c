/* fuzz_backend.c: the `fuzz` backend, a test double for the UCI fuzz
 * target (see fuzz_backend.h). It is the reference backend (memory,
 * weights, norm, gate, copy: cheap) with its three costly ops replaced by
 * cheap deterministic ones that still read their inputs, so a network on
 * it runs every layer of its forward pass and its outputs depend on the
 * position (the search sees different priors and values per position), at
 * a small part of the reference's cost:
 *   linear:     y[r][o] = act(x[r][o % in] / 2 + x[r][(7 o + 1) % in] / 4)
 *               (rows * out work instead of rows * in * out)
 *   attention:  out = (v + q) / 2 per token (no 64 x 64 scores)
 *   matmul_nt:  C[b][i][j] = scale * (a[b][i][0] b[b][j][0] + a[b][i][k-1] b[b][j][k-1])
 * The layer norms between keep the values bounded. The weights are
 * uploaded and kept (the reference's own weight_create) but these ops do
 * not read them. */
#include "fuzz_backend.h"

#include <math.h>
#include <stddef.h>

#include "backends/ref/cf_ref_backend.h"

static float act(cf_op_act a, float x) {
  switch (a) {
    case CF_OP_ACT_RELU: return x > 0 ? x : 0;
    case CF_OP_ACT_RELU2: return x > 0 ? x * x : 0;
    case CF_OP_ACT_TANH: return tanhf(x);
    case CF_OP_ACT_SIGMOID: return 1 / (1 + expf(-x));
    case CF_OP_ACT_MISH:
    case CF_OP_ACT_SELU:
    case CF_OP_ACT_SWISH: return x / (1 + expf(-x)); /* bounded below, cheap enough */
    case CF_OP_ACT_NONE: return x;
  }
  return x;
}

static void fake_linear(void *ctx, int rows, int in, int out, const float *x, const cf_bweight *w,
                        const cf_bweight *b, cf_op_act a, float *y) {
  (void)ctx, (void)w, (void)b;
  for (int r = 0; r < rows; r++) {
    const float *xr = x + (size_t)r * (size_t)in;
    float *yr = y + (size_t)r * (size_t)out;
    /* i = o % in and j = (7 o + 1) % in, stepped without a division. */
    for (int o = 0, i = 0, j = 1 % in; o < out; o++) {
      yr[o] = xr[i] / 2 + xr[j] / 4;
      if (++i == in) i = 0;
      j += 7;
      while (j >= in) j -= in;
    }
    if (a != CF_OP_ACT_NONE)
      for (int o = 0; o < out; o++) yr[o] = act(a, yr[o]);
  }
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
  for (int i = 0; i < batch * m; i++) {
    const float *ai = a + (size_t)i * (size_t)k;
    const int bb = i / m;
    for (int j = 0; j < n; j++) {
      const float *bj = bm + ((size_t)bb * (size_t)n + (size_t)j) * (size_t)k;
      c[(size_t)i * (size_t)n + (size_t)j] = scale * (ai[0] * bj[0] + ai[k - 1] * bj[k - 1]);
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
