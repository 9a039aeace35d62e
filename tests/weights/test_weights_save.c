/* test_weights_save.c: the writer (load(save(w)) == w, exactly in FLOAT32,
 * within each encoding's precision otherwise), atomic file writes, the
 * tensor codecs, and architecture inference on hand-built nets. */
#include <dirent.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/cf_test.h"
#include "tests/weights/weights_test_util.h"
#include "weights/cf_weights_internal.h"

static const cf_test_shape full_shape = {
  .layers = 2, .d = 32, .heads = 4, .dff = 48, .input_format = 4, .input_embedding = 2,
  .dense_s = 3, .emb_dff = 40, .gating = true, .qkv_bias = true, .rpe = true, .smolgen = true,
  .de = 24, .dp = 20, .cv = 3, .cm = 5, .soft_head = true, .q_head = true, .seed = 11,
};

static cf_weights *reload(cf_test *t, const cf_weights *w, cf_encoding enc, bool gzip) {
  void *buf = NULL;
  size_t n = 0;
  cf_error err;
  cf_status st = cf_weights_save_memory(w, enc, gzip, &buf, &n, &err);
  if (!CHECK(st == CF_OK)) {
    fprintf(stderr, "  save: %s\n", err.msg);
    return NULL;
  }
  CHECK(gzip == (n >= 2 && ((uint8_t *)buf)[0] == 0x1f && ((uint8_t *)buf)[1] == 0x8b));
  cf_weights *got = NULL;
  st = cf_weights_load_memory(buf, n, "saved", NULL, &got, &err);
  if (!CHECK(st == CF_OK)) fprintf(stderr, "  reload: %s\n", err.msg);
  free(buf);
  return got;
}

static bool same_arch(const cf_net_arch *a, const cf_net_arch *b) {
  return memcmp(a, b, sizeof *a) == 0;
}

static cf_weights *load_parity(cf_test *t, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/parity/%s", cf_test_data_dir(), name);
  cf_weights *w = NULL;
  cf_error err;
  if (!CHECK(cf_weights_load_file(path, NULL, &w, &err) == CF_OK))
    fprintf(stderr, "  %s\n", err.msg);
  return w;
}

static const char *const parity_nets[] = {
  "cf-rpe-rms.pb.gz",          "lc0-smolgen-relu2.pb.gz",     "lc0-smolgen-relu2-bf16.pb.gz",
  "lc0-smolgen-relu2-f32.pb.gz", "lc0-map-classic.pb.gz",     "cf-rpe-ln-canonical.pb.gz",
};

/* Every parity net survives FLOAT32 and "keep each tensor's encoding"
 * round trips bit for bit, with the same architecture. */
static void test_roundtrip_parity(cf_test *t) {
  for (int i = 0; i < 6; i++) {
    cf_weights *w = load_parity(t, parity_nets[i]);
    if (!w) continue;
    const cf_encoding encs[2] = {CF_ENC_FLOAT32, CF_ENC_UNKNOWN};
    for (int e = 0; e < 2; e++) {
      cf_weights *r = reload(t, w, encs[e], e == 0);
      if (!r) continue;
      char where[256] = "";
      double worst = cf_test_compare_nets(w, r, 0, 0, where, sizeof where);
      if (!CHECK(worst == 0) || !CHECK(same_arch(&w->arch, &r->arch)))
        fprintf(stderr, "  %s (%s): %s\n", parity_nets[i], cf_encoding_name(encs[e]), where);
      CHECK_STR_EQ(r->license, w->license);
      CHECK_INT_EQ(r->raw_network_format, 7);
      if (e == 1) CHECK_INT_EQ(r->encodings_used, w->encodings_used);
      CHECK_INT_EQ(r->min_version.minor, (e == 1 && w->encodings_used == 2) ? 31 : 33);
      cf_weights_free(r);
    }
    cf_weights_free(w);
  }
}

/* The BFLOAT16 parity file is the FLOAT32 one rounded to nearest even: our
 * encoder reproduces it exactly. */
static void test_bf16_matches_parity(cf_test *t) {
  cf_weights *f32 = load_parity(t, "lc0-smolgen-relu2-f32.pb.gz");
  cf_weights *b16 = load_parity(t, "lc0-smolgen-relu2-bf16.pb.gz");
  if (f32 && b16) {
    cf_weights *r = reload(t, f32, CF_ENC_BFLOAT16, true);
    char where[256] = "";
    if (r && !CHECK(cf_test_compare_nets(r, b16, 0, 0, where, sizeof where) == 0))
      fprintf(stderr, "  %s\n", where);
    cf_weights_free(r);
  }
  cf_weights_free(f32);
  cf_weights_free(b16);
}

/* max over tensors of max |a - b| / (range / 65535): LINEAR16 rounds to the
 * nearest step, so <= 0.5 plus float32 rounding. */
static double linear16_steps(cf_weights *a, cf_weights *b) {
  static cf_test_tensor_list la, lb;
  la.n = lb.n = 0;
  cf_weights_visit(a, cf_test_collect_one, &la);
  cf_weights_visit(b, cf_test_collect_one, &lb);
  double worst = 0;
  for (int i = 0; i < la.n && i < lb.n; i++) {
    const cf_tensor *x = la.t[i], *y = lb.t[i];
    if (x->n != y->n) return 1e30;
    float lo = x->n ? x->data[0] : 0, hi = lo;
    for (size_t j = 0; j < x->n; j++) {
      lo = fminf(lo, x->data[j]);
      hi = fmaxf(hi, x->data[j]);
    }
    double step = ((double)hi - lo) / 65535.0;
    for (size_t j = 0; j < x->n; j++) {
      double diff = fabs((double)x->data[j] - y->data[j]);
      if (step > 0 && diff / step > worst) worst = diff / step;
      if (step == 0 && diff > 0) worst = 1e30;
    }
  }
  return worst;
}

static void test_roundtrip_encodings(cf_test *t) {
  cf_error err;
  cf_weights *w = cf_test_random_net(&full_shape, &err);
  if (!CHECK(w != NULL)) {
    fprintf(stderr, "  %s\n", err.msg);
    return;
  }
  CHECK(w->arch.smolgen && w->arch.rpe_v && w->arch.emb_dense_s == 3);
  CHECK_INT_EQ(w->arch.policy_dp[CF_POLICY_SOFT], 10);
  const cf_encoding encs[4] = {CF_ENC_FLOAT32, CF_ENC_BFLOAT16, CF_ENC_FLOAT16, CF_ENC_LINEAR16};
  /* Relative error bounds of round-to-nearest with p significant bits,
   * 2^-p: bf16 p = 8, f16 p = 11 (normal range; absolute 2^-25 below). */
  const double rel[4] = {0, 1.0 / 256, 1.0 / 2048, 0};
  const double abs_tol[4] = {0, 1e-38, 0x1p-25, 0};
  for (int e = 0; e < 4; e++) {
    for (int gz = 0; gz < 2; gz++) {
      cf_weights *r = reload(t, w, encs[e], gz);
      if (!r) continue;
      CHECK(same_arch(&w->arch, &r->arch));
      CHECK_INT_EQ(r->encodings_used, 1u << encs[e]);
      CHECK_INT_EQ(r->min_version.minor, encs[e] == CF_ENC_LINEAR16 ? 31 : 33);
      char where[256] = "";
      if (encs[e] == CF_ENC_LINEAR16) {
        double steps = linear16_steps(w, r);
        /* Half a step, plus float32 rounding in min*(1-t) + max*t. */
        if (!CHECK(steps <= 0.55)) fprintf(stderr, "  LINEAR16: %g steps\n", steps);
      } else {
        double worst = e == 0 ? cf_test_compare_nets(w, r, 0, 0, where, sizeof where)
                              : cf_test_compare_nets(w, r, abs_tol[e], rel[e], where, sizeof where);
        if (!CHECK(worst <= 1.0))
          fprintf(stderr, "  %s: %g x tolerance at %s\n", cf_encoding_name(encs[e]), worst, where);
      }
      cf_weights_free(r);
    }
  }
  cf_weights_free(w);
}

static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

static void test_save_file_atomic(cf_test *t) {
  char dir[] = "/tmp/cf_weights_save_XXXXXX";
  if (!CHECK(mkdtemp(dir) != NULL)) return;
  char path[256], bare[256];
  snprintf(path, sizeof path, "%s/net.pb.gz", dir);
  snprintf(bare, sizeof bare, "%s/net.pb", dir);
  cf_error err;
  cf_weights *w = cf_test_random_net(&full_shape, &err);
  if (!CHECK(w != NULL)) return;
  CHECK(cf_weights_save_file(w, path, CF_ENC_FLOAT16, true, &err) == CF_OK);
  CHECK(cf_weights_save_file(w, bare, CF_ENC_FLOAT32, false, &err) == CF_OK);
  CHECK_INT_EQ(count_entries(dir), 2); /* no temporary left behind */
  struct stat sb;
  CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0644);
  cf_weights *r = NULL;
  CHECK(cf_weights_load_file(bare, NULL, &r, &err) == CF_OK);
  char where[256];
  CHECK(r && cf_test_compare_nets(w, r, 0, 0, where, sizeof where) == 0);
  cf_weights_free(r);
  size_t before_size = 0;
  uint8_t *before = cf_test_read_file(path, &before_size);

  /* A failing save (a NaN) leaves the existing file untouched, no temp. */
  w->layers[1].mha.rpe_k.data[7] = NAN;
  CHECK_INT_EQ(cf_weights_save_file(w, path, CF_ENC_FLOAT16, true, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "net.pb.gz: weights.encoder[1].mha.rpe_k: element 7 of 7200 is NaN");
  size_t after_size = 0;
  uint8_t *after = cf_test_read_file(path, &after_size);
  CHECK(before && after && before_size == after_size && memcmp(before, after, before_size) == 0);
  CHECK_INT_EQ(count_entries(dir), 2);
  free(before);
  free(after);
  w->layers[1].mha.rpe_k.data[7] = 0;

  /* Unwritable destination. */
  CHECK_INT_EQ(cf_weights_save_file(w, "/nonexistent/dir/x.pb.gz", CF_ENC_FLOAT32, true, &err),
               CF_ERR_IO);
  CHECK_STR_CONTAINS(err.msg, "/nonexistent/dir/x.pb.gz: cannot create");
  cf_weights_free(w);
  unlink(path);
  unlink(bare);
  CHECK(rmdir(dir) == 0);
}

static void test_save_rejects(cf_test *t) {
  cf_error err;
  cf_weights *w = cf_test_random_net(&full_shape, &err);
  if (!CHECK(w != NULL)) return;
  void *buf = NULL;
  size_t n;
  /* Beyond binary16's range. */
  w->ip_emb_w.data[3] = 1e6f;
  CHECK_INT_EQ(cf_weights_save_memory(w, CF_ENC_FLOAT16, true, &buf, &n, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "weights.ip_emb_w: element 3 (1e+06) cannot be stored as FLOAT16");
  CHECK(buf == NULL);
  CHECK_INT_EQ(cf_weights_save_memory(w, CF_ENC_BFLOAT16, true, &buf, &n, &err), CF_OK);
  free(buf);
  w->ip_emb_w.data[3] = INFINITY;
  CHECK_INT_EQ(cf_weights_save_memory(w, CF_ENC_FLOAT32, true, &buf, &n, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "weights.ip_emb_w: element 3 of");
  w->ip_emb_w.data[3] = 0;
  /* Inconsistent sizes: validated before anything is written. */
  w->layers[1].ffn.dense2_b.n--;
  CHECK_INT_EQ(cf_weights_save_memory(w, CF_ENC_FLOAT32, true, &buf, &n, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg,
                     "invalid weights: weights.encoder[1].ffn.dense2_b: wrong size: 31 values, "
                     "expected 32");
  w->layers[1].ffn.dense2_b.n++;
  w->arch.default_act = CF_ACT_SWISH;
  CHECK_INT_EQ(cf_weights_save_memory(w, CF_ENC_FLOAT32, true, &buf, &n, &err), CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "default_activation: swish is not a default activation");
  w->arch.default_act = CF_ACT_MISH;
  CHECK_INT_EQ(cf_weights_save_memory(w, (cf_encoding)7, true, &buf, &n, &err), CF_ERR_ARG);
  CHECK_INT_EQ(cf_weights_save_memory(NULL, CF_ENC_FLOAT32, true, &buf, &n, &err), CF_ERR_ARG);
  cf_weights_free(w);
}

static void test_half_codec(cf_test *t) {
  int bad = 0;
  for (uint32_t h = 0; h < 65536; h++) {
    float f = cf_half_to_float((uint16_t)h);
    if (isnan(f)) {
      bad += !isnan(cf_half_to_float(cf_float_to_half(f)));
      continue;
    }
    bad += cf_float_to_half(f) != h;
  }
  CHECK_INT_EQ(bad, 0);
  CHECK_INT_EQ(cf_float_to_half(65504.0f), 0x7bff);
  CHECK_INT_EQ(cf_float_to_half(65519.0f), 0x7bff);
  CHECK_INT_EQ(cf_float_to_half(65520.0f), 0x7c00); /* ties to even: inf */
  CHECK_INT_EQ(cf_float_to_half(-1e9f), 0xfc00);
  CHECK_INT_EQ(cf_float_to_half(1.0f + 0x1p-11f), 0x3c00);        /* tie -> even */
  CHECK_INT_EQ(cf_float_to_half(1.0f + 3 * 0x1p-11f), 0x3c02);    /* tie -> even (up) */
  CHECK_INT_EQ(cf_float_to_half(0x1p-24f), 0x0001);               /* smallest subnormal */
  CHECK_INT_EQ(cf_float_to_half(0x1p-25f), 0x0000);               /* tie -> even (zero) */
  CHECK_INT_EQ(cf_float_to_half(3 * 0x1p-25f), 0x0002);
  CHECK_INT_EQ(cf_float_to_half(-0.0f), 0x8000);
  CHECK_INT_EQ(cf_float_to_half(0x1p-14f - 0x1p-26f), 0x0400);    /* rounds up into normal */
  CHECK(cf_half_to_float(0x0001) == 0x1p-24f);
  CHECK(cf_half_to_float(0x7c00) == INFINITY);
  CHECK(cf_half_to_float(0xc000) == -2.0f);
}

static void test_bf16_codec(cf_test *t) {
  CHECK_INT_EQ(cf_float_to_bf16(1.0f), 0x3f80);
  CHECK_INT_EQ(cf_float_to_bf16(1.0f + 0x1p-8f), 0x3f80);         /* tie -> even */
  CHECK_INT_EQ(cf_float_to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82);     /* tie -> even (up) */
  CHECK_INT_EQ(cf_float_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
  CHECK(isnan(cf_bf16_to_float(cf_float_to_bf16(NAN))));
  CHECK(cf_bf16_to_float(0xc040) == -3.0f);
  int bad = 0;
  for (uint32_t b = 0; b < 65536; b++) {
    float f = cf_bf16_to_float((uint16_t)b);
    if (!isnan(f)) bad += cf_float_to_bf16(f) != b;
  }
  CHECK_INT_EQ(bad, 0);
}

static void test_linear16_codec(cf_test *t) {
  const float x[5] = {-1.0f, -0.25f, 0.0f, 0.5f, 3.0f};
  uint8_t bytes[10];
  float lo, hi, y[5];
  size_t bad;
  CHECK(cf_encode_params(x, 5, CF_ENC_LINEAR16, bytes, &lo, &hi, &bad));
  CHECK(lo == -1.0f && hi == 3.0f);
  cf_decode_params(bytes, 5, CF_ENC_LINEAR16, lo, hi, y);
  CHECK(y[0] == -1.0f && y[4] == 3.0f);
  for (int i = 0; i < 5; i++) CHECK_NEAR(y[i], x[i], 4.0 / 65535 / 2 + 1e-7);
  /* A constant tensor encodes as all zeros and decodes back exactly. */
  const float c[3] = {0.75f, 0.75f, 0.75f};
  CHECK(cf_encode_params(c, 3, CF_ENC_LINEAR16, bytes, &lo, &hi, &bad));
  cf_decode_params(bytes, 3, CF_ENC_LINEAR16, lo, hi, y);
  CHECK(y[0] == 0.75f && y[2] == 0.75f);
  /* The decoder's float32 range would overflow: refused. */
  const float wide[2] = {-3e38f, 3e38f};
  CHECK(!cf_encode_params(wide, 2, CF_ENC_LINEAR16, bytes, &lo, &hi, &bad));
}

static void test_infer_arch_shapes(cf_test *t) {
  cf_error err;
  cf_test_shape sh = {.layers = 1, .d = 8, .heads = 2, .dff = 8, .pos_table = true, .cm = -1};
  cf_weights *w = cf_test_random_net(&sh, &err);
  if (CHECK(w != NULL)) {
    CHECK_INT_EQ(w->arch.emb_inputs, 176);
    CHECK(w->arch.norm_eps == 1e-6f);
    CHECK(!w->arch.has_moves_left && w->arch.moves_left_format == 0);
    CHECK_INT_EQ(w->arch.ffn_act, CF_ACT_MISH); /* DEFAULT resolved */
    CHECK_INT_EQ(w->arch.smolgen_act, CF_ACT_SWISH);
  }
  cf_weights_free(w);
  sh.pos_table = false;
  sh.rms = true;
  sh.dm = 12;
  sh.ffn_act = CF_ACT_RELU2;
  w = cf_test_random_net(&sh, &err);
  if (CHECK(w != NULL)) {
    CHECK(w->arch.rms_norm && w->arch.norm_eps == 1e-5f);
    CHECK_INT_EQ(w->arch.dm, 12);
    CHECK_INT_EQ(w->arch.dh, 6);
    CHECK_INT_EQ(w->arch.ffn_act, CF_ACT_RELU2);
    size_t params = 0;
    static cf_test_tensor_list l;
    l.n = 0;
    cf_weights_visit(w, cf_test_collect_one, &l);
    for (int i = 0; i < l.n; i++) params += l.t[i]->n;
    CHECK_INT_EQ(w->param_count, params);
    CHECK_STR_EQ(l.path[0], "weights.ip_emb_preproc_w");
    bool found = false;
    for (int i = 0; i < l.n; i++)
      found |= strcmp(l.path[i], "weights.encoder[0].mha.smolgen.ln2_betas") == 0;
    CHECK(found);
  }
  cf_weights_free(w);
  sh.rms = false;
  sh.rpe = true;
  w = cf_test_random_net(&sh, &err);
  CHECK(w && w->arch.norm_eps == 1e-3f); /* RPE: the trainer's epsilon */
  cf_weights_free(w);
}

CF_TEST_MAIN(test_roundtrip_parity, test_bf16_matches_parity, test_roundtrip_encodings,
             test_save_file_atomic, test_save_rejects, test_half_codec, test_bf16_codec,
             test_linear16_codec, test_infer_arch_shapes)
