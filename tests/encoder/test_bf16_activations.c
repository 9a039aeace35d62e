/* test_bf16_activations.c: with bf16 activations (onednn at
 * precision=bf16: cf_backend_iface.bf16_activations) an encoder layer's
 * matmuls read the bf16 the op before wrote (the norms' copy, the FFN's
 * hidden layer; and where the AMX tiles take the attention, q, k, v and
 * its output) instead of converting float32 that went through memory.
 * Each value is rounded the same way at the same point, so the encoder's
 * output must be the same bits as with the float32 round trips
 * (bf16_activations=0).
 *
 * Checked on random nets at depths 16, 32, 48 (the AMX tiles where they
 * run, the cores below their smallest batch) and 80 (deeper than the
 * tiles take: the cores), with smolgen, at batches 3 and 21 (a full layer
 * chunk and a partial one), one and two threads, and attention=cpu; which
 * instances keep which bf16 activations (none with a body matrix kept
 * float32); and the attention op with q, k,
 * v and its output in bf16 on both paths (the cores widening and
 * narrowing them). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "encoder/cf_encoder_internal.h"
#include "tests/cf_test.h"
#include "tools/random_net/cf_weights_random.h"

enum { MAX_BATCH = 21 };

static void random_planes(cf_planes *p, int n) {
  uint64_t s = 0x2545f4914f6cdd1du;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < CF_PLANE_COUNT; k++) {
      s ^= s << 13;
      s ^= s >> 7;
      s ^= s << 17;
      p[i].mask[k] = s & (s >> 3);
      p[i].value[k] = 1.0f;
    }
}

/* The onednn backend with these options, or NULL (with the reason in
 * err). */
static cf_backend *make(const char *options, cf_error *err) {
  cf_backend_config cfg = {.max_batch = MAX_BATCH, .options = options};
  cf_backend *be = NULL;
  return cf_backend_create("onednn", &cfg, &be, err) == CF_OK ? be : NULL;
}

/* The encoder's output for `batch` positions on a backend made with
 * options, into out; false when it could not run. */
static bool encode(cf_test *t, const cf_weights *w, const char *options, bool want_bf16,
                   const cf_planes *planes, int batch, float *out) {
  cf_error err = {0};
  cf_backend *be = make(options, &err);
  cf_encoder *enc = NULL;
  bool ok = CHECK(be != NULL) && CHECK(cf_backend_bf16_activations(be) == want_bf16) &&
            CHECK(cf_encoder_create(w, be, MAX_BATCH, &enc, &err) == CF_OK);
  if (ok) {
    cf_op_download(be, out, cf_encoder_forward(enc, batch, planes),
                   (size_t)batch * 64 * w->arch.d);
    ok = CHECK(cf_op_sync(be, &err) == CF_OK);
  }
  if (!ok) fprintf(stderr, "%s: %s\n", options, err.msg);
  cf_encoder_free(enc);
  cf_backend_free(be);
  return ok;
}

static void test_same_bits(cf_test *t) {
  cf_error err = {0};
  cf_backend *probe = make("precision=bf16", &err);
  if (!probe) {
    printf("onednn at precision=bf16: %s\n", err.msg);
    CF_SKIP("onednn at precision=bf16 does not run here (no oneDNN or no bf16 on this CPU)");
    return;
  }
  cf_backend_free(probe);
  const struct {
    int d, heads;
    bool smolgen;
  } shapes[] = {{64, 4, false}, {64, 2, true}, {96, 2, false}, {160, 2, false}};
  const char *options[] = {"threads=1", "threads=2", "threads=1,attention=cpu"};
  const int batches[] = {3, MAX_BATCH};
  cf_planes planes[MAX_BATCH];
  random_planes(planes, MAX_BATCH);
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    cf_random_spec spec = cf_random_spec_cf6m();
    spec.layers = 3;
    spec.d = shapes[s].d;
    spec.dff = 2 * shapes[s].d;
    spec.heads = shapes[s].heads;
    spec.smolgen = shapes[s].smolgen;
    spec.seed = 11 + s;
    cf_weights *w = NULL;
    if (!CHECK(cf_weights_random(&spec, &w, &err) == CF_OK)) {
      fprintf(stderr, "%s\n", err.msg);
      continue;
    }
    const size_t n = (size_t)MAX_BATCH * 64 * w->arch.d;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (size_t o = 0; a && b && o < sizeof options / sizeof options[0]; o++)
      for (size_t k = 0; k < sizeof batches / sizeof batches[0]; k++) {
        char on[128], off[128];
        snprintf(on, sizeof on, "precision=bf16,%s", options[o]);
        snprintf(off, sizeof off, "precision=bf16,bf16_activations=0,%s", options[o]);
        const int batch = batches[k];
        const size_t m = (size_t)batch * 64 * w->arch.d;
        if (!encode(t, w, on, true, planes, batch, a) ||
            !encode(t, w, off, false, planes, batch, b))
          continue;
        size_t differ = 0;
        for (size_t i = 0; i < m; i++) differ += memcmp(&a[i], &b[i], sizeof a[i]) != 0;
        printf("depth %d%s, %s, batch %d: %zu of %zu values differ\n", w->arch.dh,
               shapes[s].smolgen ? " (smolgen)" : "", options[o], batch, differ, m);
        CHECK(differ == 0);
      }
    free(a);
    free(b);
    cf_weights_free(w);
  }
}

/* Only bf16 instances keep bf16 activations, and not on the oneDNN
 * attention path (which reads and writes float32); q, k and v only where
 * the AMX tiles take the call (every batch, up to their deepest head). */
static void test_which_instances(cf_test *t) {
  const struct {
    const char *options;
    bool acts, qkv16, qkv1, qkv16_deep; /* q, k, v at batch 16 and 1, depth 32; depth 80 */
  } cases[] = {{"precision=f32", false, false, false, false},
               {"precision=bf16,attention=cpu", true, false, false, false},
               {"precision=bf16,attention=amx", true, true, true, false},
               {"precision=bf16,attention=amx,bf16_activations=0", false, false, false, false},
               {"precision=bf16,attention=onednn", false, false, false, false},
               {"precision=int8", false, false, false, false}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cf_error err = {0};
    cf_backend *be = make(cases[i].options, &err);
    if (!be) {
      printf("%s: does not run here (%s)\n", cases[i].options, err.msg);
      continue;
    }
    printf("%s: bf16 activations %d\n", cases[i].options, cf_backend_bf16_activations(be));
    CHECK(cf_backend_bf16_activations(be) == cases[i].acts);
    CHECK(cf_backend_attention_takes_bf16(be, 16, 32) == cases[i].qkv16);
    CHECK(cf_backend_attention_takes_bf16(be, 1, 32) == cases[i].qkv1);
    CHECK(cf_backend_attention_takes_bf16(be, 16, 80) == cases[i].qkv16_deep);
    cf_backend_free(be);
  }
  cf_error err = {0};
  CHECK(make("precision=bf16,bf16_activations=2", &err) == NULL);
  CHECK(strstr(err.msg, "bf16_activations") != NULL);
}

/* A net with a body matrix kept float32 (a value beyond bf16's range):
 * its projection would read a rounded input the round trip does not
 * round, so the instance declines bf16 activations once it holds it, and
 * says so after the upload, where the encoder asks. */
static void test_body_kept_f32(cf_test *t) {
  cf_error err = {0};
  cf_backend *be = make("precision=bf16", &err);
  if (!be) {
    CF_SKIP("onednn at precision=bf16 does not run here (no oneDNN or no bf16 on this CPU)");
    return;
  }
  CHECK(cf_backend_bf16_activations(be));
  cf_random_spec spec = cf_random_spec_cf6m();
  spec.layers = 2, spec.d = 64, spec.dff = 64, spec.heads = 2;
  cf_weights *w = NULL;
  cf_encoder *enc = NULL;
  if (CHECK(cf_weights_random(&spec, &w, &err) == CF_OK)) {
    w->layers[1].ffn.dense1_w.data[5] = 3.4e38f; /* past bf16's ~3.39e38 */
    if (CHECK(cf_encoder_create(w, be, MAX_BATCH, &enc, &err) == CF_OK)) {
      CHECK(!cf_backend_bf16_activations(be));
      CHECK(!enc->bf16);
      CHECK(strstr(cf_backend_variant(be), "bf16 activations") == NULL);
    }
  }
  if (err.msg[0]) fprintf(stderr, "%s\n", err.msg);
  cf_encoder_free(enc);
  cf_weights_free(w);
  cf_backend_free(be);
}

/* x rounded to bf16, nearest even (finite x). */
static cf_bf16 round_bf16(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return (cf_bf16)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static float widen(cf_bf16 b) {
  const uint32_t u = (uint32_t)b << 16;
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* The attention op itself with q, k, v and its output in bf16 (qkv_bf16,
 * out_bf16) against float32 in and out on the same (bf16-exact) inputs:
 * the output must be the float32 one rounded, bit for bit, where the
 * tiles take the call (batch 16, depth 32: groups; batch 1 at depth 32
 * and 3 at depth 64: one position a task, reading bf16 q and k where they
 * are, against packing the float32 ones) and where the cores do (depth
 * 80, or every call without AMX: q, k, v widened, the output narrowed in
 * place). */
static void test_attention_op(cf_test *t) {
  cf_error err = {0};
  cf_backend *be = make("precision=bf16", &err);
  if (!be) {
    CF_SKIP("onednn at precision=bf16 does not run here (no oneDNN or no bf16 on this CPU)");
    return;
  }
  const struct {
    int batch, dh;
  } calls[] = {{16, 32}, {1, 32}, {3, 64}, {16, 80}};
  const int H = 2;
  uint64_t s = 0x9e3779b97f4a7c15u;
  for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
    const int B = calls[c].batch, dh = calls[c].dh, dm = H * dh;
    const size_t n_qkv = (size_t)B * 64 * 3 * dm, n_out = (size_t)B * 64 * dm;
    const size_t n_bias = (size_t)B * H * 4096, n_e = (size_t)225 * dm;
    float *qf = malloc(n_qkv * sizeof *qf), *bias = malloc(n_bias * sizeof *bias);
    float *e[3] = {malloc(n_e * sizeof(float)), malloc(n_e * sizeof(float)),
                   malloc(n_e * sizeof(float))};
    cf_bf16 *qb = malloc(n_qkv * sizeof *qb), *got = malloc(n_out * sizeof *got);
    float *want = malloc(n_out * sizeof *want);
    float *all[] = {qf, bias, e[0], e[1], e[2], want};
    const size_t sizes[] = {n_qkv, n_bias, n_e, n_e, n_e, 0};
    for (int a = 0; a < 6; a++)
      for (size_t i = 0; all[a] && i < sizes[a]; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        all[a][i] = (float)((double)(s >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
      }
    for (size_t i = 0; qb && i < n_qkv; i++) {
      qb[i] = round_bf16(qf[i]);
      qf[i] = widen(qb[i]);
    }
    cf_bweight *E[3] = {NULL, NULL, NULL};
    const cf_weight_role side[3] = {CF_WEIGHT_RPE_Q, CF_WEIGHT_RPE_K, CF_WEIGHT_RPE_V};
    for (int i = 0; i < 3; i++) cf_op_weight_rpe(be, side[i], H, 225, dm, e[i], &E[i], &err);
    float *dq = cf_op_alloc(be, n_qkv), *dqb = cf_op_alloc(be, (n_qkv + 1) / 2);
    float *dbias = cf_op_alloc(be, n_bias), *dout = cf_op_alloc(be, n_out);
    if (CHECK(qf && bias && e[0] && e[1] && e[2] && qb && got && want && E[0] && E[1] && E[2] &&
              dq && dqb && dbias && dout)) {
      cf_op_upload(be, dq, qf, n_qkv);
      cf_op_upload(be, dqb, (const float *)(const void *)qb, n_qkv / 2); /* bytes: even n */
      cf_op_upload(be, dbias, bias, n_bias);
      cf_attention_args a = {.batch = B, .heads = H, .depth = dh, .qkv = dq, .rpe_q = E[0],
                             .rpe_k = E[1], .rpe_v = E[2], .bias = dbias,
                             .scale = 1.0f / sqrtf((float)dh), .out = dout};
      cf_op_attention(be, &a);
      cf_op_download(be, want, dout, n_out);
      a.qkv = dqb;
      a.qkv_bf16 = a.out_bf16 = true;
      cf_op_attention(be, &a);
      CHECK(cf_op_sync(be, &err) == CF_OK);
      cf_op_download(be, (float *)(void *)got, dout, n_out / 2);
      size_t differ = 0;
      for (size_t i = 0; i < n_out; i++) differ += got[i] != round_bf16(want[i]);
      printf("attention op, batch %d, depth %d, bf16 in and out: %zu of %zu outputs differ\n", B,
             dh, differ, n_out);
      CHECK(differ == 0);
    }
    for (int i = 0; i < 3; i++) cf_op_weight_free(be, E[i]), free(e[i]);
    cf_op_free(be, dq);
    cf_op_free(be, dqb);
    cf_op_free(be, dbias);
    cf_op_free(be, dout);
    free(qf), free(bias), free(qb), free(got), free(want);
  }
  cf_backend_free(be);
}

CF_TEST_MAIN(test_same_bits, test_which_instances, test_body_kept_f32, test_attention_op)
