/* test_netconv_import: `netconv import/export`: trainer-named safetensors of
 * a parity net's weights reproduce its expected outputs (our naming and the
 * Chessformer trainer's), the safetensors reader's dtypes, the config
 * syntaxes, and one test per error `import` reports. */
#include <stdlib.h>
#include <string.h>

#include "tests/net/cf_parity.h"
#include "tests/netconv/nc_test_util.h"
#include "tools/netconv/nc_common.h"
#include "tools/netconv/nc_config.h"
#include "tools/netconv/nc_import.h"
#include "tools/netconv/nc_safetensors.h"
#include "tools/random_net/cf_weights_random.h"

static char dir[256];

static const char *tmp(const char *name) {
  static char buf[8][512];
  static int turn;
  return nc_test_path(buf[turn++ & 7], sizeof buf[0], dir, name);
}

static const char *parity(const char *net) {
  static char buf[1024];
  snprintf(buf, sizeof buf, "%s/%s.pb.gz", cf_parity_dir(), net);
  return buf;
}

/* Imports path with cfg (the file's own metadata first when use_meta). */
static cf_status import_file(const char *path, const nc_config *extra, bool use_meta,
                             cf_weights **w, cf_error *err) {
  nc_st_file f;
  cf_status st = nc_st_read(path, &f, err);
  nc_config cfg;
  nc_config_init(&cfg);
  if (st == CF_OK && use_meta && f.metadata_config)
    st = nc_config_parse(f.metadata_config, strlen(f.metadata_config), path, &cfg, err);
  if (st == CF_OK && extra) {
    /* Overlay the keys extra sets. */
    if (extra->input_format) cfg.input_format = extra->input_format;
    if (extra->heads) cfg.heads = extra->heads;
    if (extra->layers) cfg.layers = extra->layers;
    if (extra->d) cfg.d = extra->d;
    if (extra->embedding) cfg.embedding = extra->embedding;
  }
  if (st == CF_OK) st = nc_import_weights(&f, &cfg, w, err);
  nc_st_free(&f);
  return st;
}

static void check_parity_via(cf_test *t, const char *net, const char *naming) {
  const char *st = tmp("p.safetensors");
  if (!CHECK_INT_EQ(nc_test_run(nc_cmd_export, "export", parity(net), "-o", st, "--naming", naming,
                                NULL), 0))
    return;
  cf_weights *w = NULL;
  cf_error err = {0};
  if (!CHECK(import_file(st, NULL, true, &w, &err) == CF_OK)) {
    fprintf(stderr, "%s\n", err.msg);
    return;
  }
  double d = nc_test_parity_error(t, net, w, 8);
  printf("  %s via %s naming: max |out - truth| %.3g\n", net, naming, d);
  CHECK(d >= 0 && d <= 1e-4);
  cf_weights_free(w);
}

/* Trainer-named safetensors of a parity net's weights reproduce its outputs. */
static void test_our_naming_reproduces_parity(cf_test *t) {
  check_parity_via(t, "cf-rpe-rms", "ours");
  check_parity_via(t, "lc0-smolgen-relu2", "ours");
}

/* The Chessformer naming: [in][out] kernels and the rule-50 fold (input
 * format 1 here) undone on import; within 1e-4 (the /99 costs an ulp). */
static void test_chessformer_naming_reproduces_parity(cf_test *t) {
  check_parity_via(t, "cf-rpe-rms", "chessformer");
  check_parity_via(t, "cf-rpe-ln-canonical", "chessformer");
}

/* The stored rule-50 column is 99x the engine's in the Chessformer naming. */
static void test_rule50_fold(cf_test *t) {
  const char *st = tmp("fold.safetensors");
  CHECK_INT_EQ(nc_test_run(nc_cmd_export, "export", parity("cf-rpe-rms"), "-o", st, "--naming",
                           "chessformer", NULL), 0);
  cf_weights *w = NULL;
  cf_error err = {0};
  CHECK(cf_weights_load_file(parity("cf-rpe-rms"), NULL, &w, &err) == CF_OK);
  nc_st_file f;
  if (!CHECK(w && nc_st_read(st, &f, &err) == CF_OK)) {
    cf_weights_free(w);
    return;
  }
  for (int i = 0; i < f.count; i++) {
    if (strcmp(f.tensors[i].name, "embedding/kernel") != 0) continue;
    float *v = malloc(f.tensors[i].numel * sizeof *v);
    nc_st_decode(&f.tensors[i], v);
    CHECK_INT_EQ(f.tensors[i].shape[0], 112); /* [in][out] */
    CHECK_INT_EQ(f.tensors[i].shape[1], 64);
    /* kernel[109][o] = 99 * ip_emb_w[o][109]; kernel[108][o] = ip_emb_w[o][108]. */
    CHECK(v[109 * 64 + 5] == 99.0f * w->ip_emb_w.data[5 * 112 + 109]);
    CHECK(v[108 * 64 + 5] == w->ip_emb_w.data[5 * 112 + 108]);
    free(v);
  }
  nc_st_free(&f);
  cf_weights_free(w);
}

/* Rewrites the safetensors file src as dst: every name passed through
 * rename(), then the extra tensors (1-D or [rows][2], zeros). */
typedef struct extra_tensor {
  const char *name;
  int ndim;
  uint64_t rows, cols;
} extra_tensor;

static bool rewrite(cf_test *t, const char *src, const char *dst,
                    void (*rename)(const char *in, char *out, size_t size),
                    const extra_tensor *extra, int n_extra) {
  nc_st_file f;
  cf_error err = {0};
  if (!CHECK(nc_st_read(src, &f, &err) == CF_OK)) {
    nc_st_free(&f);
    return false;
  }
  nc_st_out *o = calloc((size_t)(f.count + n_extra), sizeof *o);
  float **data = calloc((size_t)(f.count + n_extra), sizeof *data);
  int m = 0;
  for (int i = 0; i < f.count; i++, m++) {
    rename(f.tensors[i].name, o[m].name, sizeof o[m].name);
    o[m].ndim = f.tensors[i].ndim;
    o[m].shape[0] = f.tensors[i].shape[0];
    o[m].shape[1] = f.tensors[i].ndim == 2 ? f.tensors[i].shape[1] : 0;
    data[m] = malloc(f.tensors[i].numel * sizeof(float));
    nc_st_decode(&f.tensors[i], data[m]);
    o[m].data = data[m];
  }
  for (int i = 0; i < n_extra; i++, m++) {
    snprintf(o[m].name, sizeof o[m].name, "%s", extra[i].name);
    o[m].ndim = extra[i].ndim;
    o[m].shape[0] = extra[i].rows;
    o[m].shape[1] = extra[i].cols;
    data[m] = calloc(extra[i].rows * (extra[i].ndim == 2 ? extra[i].cols : 1), sizeof(float));
    o[m].data = data[m];
  }
  bool ok = CHECK(nc_st_write(dst, o, m, f.metadata_config, &err) == CF_OK);
  for (int i = 0; i < m; i++) free(data[i]);
  free(data);
  free(o);
  nc_st_free(&f);
  return ok;
}

/* TensorFlow's variable names: "name:0". */
static void add_output_suffix(const char *in, char *out, size_t size) {
  snprintf(out, size, "%s:0", in);
}

/* cformer's earlier name of the global smolgen tensor. */
static void old_smolgen_name(const char *in, char *out, size_t size) {
  if (strncmp(in, "smol_weight_gen/", 16) == 0) snprintf(out, size, "smolgen_weights/%s", in + 16);
  else snprintf(out, size, "%s", in);
}

/* The weights of a Chessformer-trainer model as TensorFlow names them
 * (model.weights: "encoder_1/mha/wq/kernel:0", the global smolgen
 * "smol_weight_gen/kernel:0"), with what that trainer has beyond the
 * network: quantisation step sizes (".../s:0"), the policy/next head and a
 * placeholder policy/opponent head (a 2-wide wq alone). The import keeps the
 * network's outputs and warns once per kind; the older cformer smolgen name
 * still reads. */
static void test_tf_variable_names(cf_test *t) {
  const char *net = "lc0-smolgen-relu2";
  const char *st = tmp("tf.safetensors"), *tf = tmp("tf-names.safetensors");
  if (!CHECK_INT_EQ(nc_test_run(nc_cmd_export, "export", parity(net), "-o", st, "--naming",
                                "chessformer", NULL), 0))
    return;
  nc_st_file f;
  cf_error err = {0};
  if (CHECK(nc_st_read(st, &f, &err) == CF_OK)) {
    bool trainer_name = false, old_name = false;
    for (int i = 0; i < f.count; i++) {
      trainer_name |= strcmp(f.tensors[i].name, "smol_weight_gen/kernel") == 0;
      old_name |= strncmp(f.tensors[i].name, "smolgen_weights/", 16) == 0;
    }
    CHECK(trainer_name && !old_name);
  }
  nc_st_free(&f);
  static const extra_tensor extra[] = {
      {"encoder_1/mha/quantize_1/s:0", 1, 1, 0},
      {"encoder_1/mha/wq/quantizer/s:0", 1, 64, 0},
      {"encoder_1/mha/quantize_2/s:0", 1, 1, 0},
      {"encoder_1/mha/dense/quantizer/s:0", 1, 64, 0},
      {"encoder_2/ffn/quantize_1/s:0", 1, 1, 0},
      {"encoder_2/ffn/dense1/quantizer/s:0", 1, 128, 0},
      {"policy/next/attention/wq/kernel:0", 2, 64, 2},
      {"policy/next/attention/wq/bias:0", 1, 2, 0},
      {"policy/opponent/attention/wq/kernel:0", 2, 64, 2},
      {"policy/opponent/attention/wq/bias:0", 1, 2, 0},
  };
  if (!rewrite(t, st, tf, add_output_suffix, extra, (int)(sizeof extra / sizeof extra[0]))) return;
  cf_weights *w = NULL;
  if (!CHECK(import_file(tf, NULL, true, &w, &err) == CF_OK)) {
    fprintf(stderr, "%s\n", err.msg);
    return;
  }
  double d = nc_test_parity_error(t, net, w, 4);
  printf("  %s via TensorFlow names: max |out - truth| %.3g\n", net, d);
  CHECK(d >= 0 && d <= 1e-4);
  CHECK(!w->arch.has_policy[CF_POLICY_OPPONENT]);
  if (CHECK_INT_EQ(w->n_notes, 3)) {
    CHECK_STR_CONTAINS(w->notes[0], "ignored 6 quantisation scales (.../s)");
    CHECK_STR_CONTAINS(w->notes[1], "ignored policy/next (2 tensors)");
    CHECK_STR_CONTAINS(w->notes[2], "ignored policy/opponent (2 tensors): it holds only wq");
  }
  cf_weights_free(w);
  /* The command says so on stderr and writes the net. */
  CHECK_INT_EQ(nc_test_run(nc_cmd_import, "import", tf, "-o", tmp("tf.pb.gz"), NULL), 0);
  CHECK(nc_test_file_exists(tmp("tf.pb.gz")));
  /* "smolgen_weights/kernel" (cformer's earlier export) still imports. */
  const char *old = tmp("old-names.safetensors");
  if (!rewrite(t, st, old, old_smolgen_name, NULL, 0)) return;
  w = NULL;
  if (CHECK(import_file(old, NULL, true, &w, &err) == CF_OK)) {
    d = nc_test_parity_error(t, net, w, 4);
    CHECK(d >= 0 && d <= 1e-4);
    CHECK_INT_EQ(w->n_notes, 0);
  } else {
    fprintf(stderr, "%s\n", err.msg);
  }
  cf_weights_free(w);
  /* A real opponent head (wk, ppo too) is not the placeholder: without its
   * ppo it is an error, as before. */
  static const extra_tensor half[] = {
      {"policy/opponent/attention/wq/kernel", 2, 64, 64},
      {"policy/opponent/attention/wk/kernel", 2, 64, 64},
  };
  const char *bad = tmp("half-opponent.safetensors");
  if (!rewrite(t, st, bad, old_smolgen_name, half, 2)) return;
  w = NULL;
  CHECK(import_file(bad, NULL, true, &w, &err) != CF_OK);
  CHECK_STR_CONTAINS(err.msg, "policy_heads.opponent.ip4_pol_w");
  CHECK(w == NULL);
}

/* F16 and BF16 payloads decode exactly; a header lying about sizes fails. */
static void test_safetensors_dtypes(cf_test *t) {
  const char header[] =
      "{\"a\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[0,8]},"
      "\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[8,12]},"
      "\"c\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[12,16]}}";
  const size_t hl = sizeof header - 1;
  const unsigned char data[16] = {0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38, 0x01, 0x00, /* 1, -2, .5, 2^-24 */
                                  0x80, 0x3f, 0x40, 0xc0,                         /* 1, -3 */
                                  0x00, 0x00, 0x80, 0x3e};                        /* 0.25 */
  unsigned char *buf = malloc(8 + hl + 16);
  for (int i = 0; i < 8; i++) buf[i] = (unsigned char)((uint64_t)hl >> (8 * i));
  memcpy(buf + 8, header, hl);
  memcpy(buf + 8 + hl, data, 16);
  nc_st_file f;
  cf_error err = {0};
  if (!CHECK(nc_st_parse(buf, 8 + hl + 16, "mem", &f, &err) == CF_OK)) {
    fprintf(stderr, "%s\n", err.msg);
    nc_st_free(&f);
    return;
  }
  CHECK_INT_EQ(f.count, 3);
  float v[4];
  nc_st_decode(&f.tensors[0], v);
  CHECK(v[0] == 1.0f && v[1] == -2.0f && v[2] == 0.5f && v[3] == 0x1p-24f);
  nc_st_decode(&f.tensors[1], v);
  CHECK(v[0] == 1.0f && v[1] == -3.0f);
  nc_st_decode(&f.tensors[2], v);
  CHECK(v[0] == 0.25f);
  nc_st_free(&f);

  /* Unsupported dtype, sizes that do not match, offsets past the end, short file. */
  const char *bad[] = {
      "{\"a\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
      "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}",
      "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,400]}}",
      "[1, 2]",
  };
  const char *want[] = {"unsupported dtype I32", "4 data bytes for 2 F32 values",
                        "data_offsets outside", "not a JSON object"};
  for (int k = 0; k < 4; k++) {
    size_t l = strlen(bad[k]);
    unsigned char *b = malloc(8 + l + 4);
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)((uint64_t)l >> (8 * i));
    memcpy(b + 8, bad[k], l);
    memset(b + 8 + l, 0, 4);
    CHECK(nc_st_parse(b, 8 + l + 4, "mem", &f, &err) != CF_OK);
    CHECK_STR_CONTAINS(err.msg, want[k]);
    nc_st_free(&f);
  }
  unsigned char *s = malloc(4);
  memset(s, 0, 4);
  CHECK(nc_st_parse(s, 4, "mem", &f, &err) == CF_ERR_FORMAT);
  nc_st_free(&f);
}

static void test_config_syntaxes(cf_test *t) {
  nc_config c;
  cf_error err = {0};
  nc_config_init(&c);
  const char yaml[] = "# trainer export\ninput_format: 4\nheads: 8\nffn_activation: relu2\n"
                      "embedding: dense\nnaming: chessformer\n";
  CHECK(nc_config_parse(yaml, sizeof yaml - 1, "c.yaml", &c, &err) == CF_OK);
  CHECK_INT_EQ(c.input_format, 4);
  CHECK_INT_EQ(c.heads, 8);
  CHECK_INT_EQ(c.ffn_act, CF_ACT_RELU2);
  CHECK_INT_EQ(c.embedding, 2);
  CHECK_INT_EQ(c.naming, NC_NAMING_CHESSFORMER);
  nc_config_init(&c);
  const char json[] = " {\"input_format\": 1, \"heads\": 4, \"default_activation\": \"relu\"}";
  CHECK(nc_config_parse(json, sizeof json - 1, "c.json", &c, &err) == CF_OK);
  CHECK_INT_EQ(c.heads, 4);
  CHECK_INT_EQ(c.default_act, CF_ACT_RELU);
  /* Errors name the key. */
  const char *bad[] = {"heads: 4\nhaeds: 4\n", "input_format: 7\n", "heads: [1, 2]\n",
                       "{\"heads\": true}", "heads: 4\n  bad: : :\n", "embedding: sparse\n"};
  const char *want[] = {"unknown key 'haeds'", "input_format: bad value '7'", "expected a plain value",
                        "heads: expected a string or a number", "c.cfg", "old or dense"};
  for (int k = 0; k < 6; k++) {
    nc_config_init(&c);
    CHECK(nc_config_parse(bad[k], strlen(bad[k]), "c.cfg", &c, &err) != CF_OK);
    CHECK_STR_CONTAINS(err.msg, want[k]);
  }
  /* Round trip through the exported form. */
  nc_config a, b;
  nc_config_init(&a);
  a.input_format = 5;
  a.heads = 2;
  a.smolgen_act = CF_ACT_SWISH;
  a.naming = NC_NAMING_OURS;
  char *s = nc_config_to_json(&a);
  nc_config_init(&b);
  CHECK(s && nc_config_parse(s, strlen(s), "j", &b, &err) == CF_OK);
  CHECK(memcmp(&a, &b, sizeof a) == 0);
  free(s);
}

/* A small net exported in our naming; the error tests rewrite it. */
static nc_st_file base;
static float **base_data;

static bool make_base(cf_test *t) {
  cf_random_spec s = {.layers = 2, .d = 8, .heads = 2, .dff = 8, .rpe_q = true, .rpe_k = true,
                      .rpe_v = true, .rms_norm = true, .gating = true, .value_cv = 3,
                      .moves_left = true, .mlh_cm = 2, .seed = 5};
  cf_weights *w = NULL;
  cf_error err = {0};
  if (!CHECK(cf_weights_random(&s, &w, &err) == CF_OK)) return false;
  bool ok = CHECK(cf_weights_save_file(w, tmp("base.pb.gz"), CF_ENC_FLOAT32, true, &err) == CF_OK);
  cf_weights_free(w);
  ok = ok && CHECK_INT_EQ(nc_test_run(nc_cmd_export, "export", tmp("base.pb.gz"), "-o",
                                      tmp("base.safetensors"), NULL), 0);
  ok = ok && CHECK(nc_st_read(tmp("base.safetensors"), &base, &err) == CF_OK);
  if (!ok) return false;
  base_data = calloc((size_t)base.count, sizeof *base_data);
  for (int i = 0; i < base.count; i++) {
    base_data[i] = malloc(base.tensors[i].numel * sizeof(float));
    nc_st_decode(&base.tensors[i], base_data[i]);
  }
  return true;
}

typedef enum edit { RENAME, DROP, TRANSPOSE } edit;

/* Writes base with one tensor edited to path. */
static void write_edited(cf_test *t, const char *path, const char *victim, edit e, const char *to) {
  nc_st_out *o = calloc((size_t)base.count, sizeof *o);
  int m = 0;
  for (int i = 0; i < base.count; i++) {
    const nc_st_tensor *bt = &base.tensors[i];
    bool hit = strcmp(bt->name, victim) == 0;
    if (hit && e == DROP) continue;
    nc_st_out *x = &o[m++];
    snprintf(x->name, sizeof x->name, "%s", hit && e == RENAME ? to : bt->name);
    x->ndim = bt->ndim;
    x->shape[0] = bt->shape[0];
    x->shape[1] = bt->ndim > 1 ? bt->shape[1] : 0;
    x->data = base_data[i];
    if (hit && e == TRANSPOSE) {
      x->shape[0] = bt->shape[1];
      x->shape[1] = bt->shape[0];
    }
  }
  cf_error err = {0};
  CHECK(nc_st_write(path, o, m, "{\"input_format\": 1, \"heads\": 2}", &err) == CF_OK);
  free(o);
}

/* import fails on path with a message containing want; no output is left. */
static void expect_import_error(cf_test *t, const char *path, const nc_config *extra,
                                const char *want) {
  cf_weights *w = NULL;
  cf_error err = {0};
  CHECK(import_file(path, extra, true, &w, &err) != CF_OK && w == NULL);
  CHECK_STR_CONTAINS(err.msg, want);
  if (extra) return; /* the command line has no way to pass an in-memory config */
  const char *out = tmp("never.pb.gz");
  CHECK(nc_test_run(nc_cmd_import, "import", path, "-o", out, NULL) != 0);
  CHECK(!nc_test_file_exists(out));
}

static void test_import_errors(cf_test *t) {
  if (!make_base(t)) return;
  const char *p = tmp("edited.safetensors");
  write_edited(t, p, "encoder.1.ffn1.weight", RENAME, "encoder.1.ffn_1.weight");
  expect_import_error(t, p, NULL, "unknown tensor name 'encoder.1.ffn_1.weight'");
  /* A transposed matrix keeps its size; only the shape can tell. */
  write_edited(t, p, "value_dense1.weight", TRANSPOSE, NULL);
  expect_import_error(t, p, NULL, "tensor 'value_dense1.weight': wrong shape [192][128], expected [128][192]");
  write_edited(t, p, "encoder.0.mha.rpe_q", TRANSPOSE, NULL);
  expect_import_error(t, p, NULL, "tensor 'encoder.0.mha.rpe_q': wrong shape [8][225]");
  write_edited(t, p, "encoder.0.ln2.weight", DROP, NULL);
  expect_import_error(t, p, NULL, "missing tensor 'encoder.0.ln2.weight'");
  write_edited(t, p, "encoder.1.mha.wk.weight", DROP, NULL);
  expect_import_error(t, p, NULL, "missing tensor 'encoder.1.mha.wk.weight'");
  /* A vector where a matrix belongs. */
  write_edited(t, p, "value_dense1.bias", RENAME, "value_dense_error.weight");
  expect_import_error(t, p, NULL, "tensor 'value_dense_error.weight': wrong shape [128] (expected 2 dimensions)");
  /* The same name twice. */
  write_edited(t, p, "policy_wq.bias", RENAME, "policy_wq.weight");
  expect_import_error(t, p, NULL, "given twice");
}

static void test_import_config_errors(cf_test *t) {
  if (!base.count && !make_base(t)) return;
  const char *p = tmp("base.safetensors");
  nc_config c;
  nc_config_init(&c);
  c.layers = 3;
  expect_import_error(t, p, &c, "config says layers 3 but the tensors have 2 layers");
  nc_config_init(&c);
  c.d = 16;
  expect_import_error(t, p, &c, "config says embedding_size 16 but the tensors give d 8");
  nc_config_init(&c);
  c.embedding = 2;
  expect_import_error(t, p, &c, "config says embedding dense but the tensors lack");
  nc_config_init(&c);
  c.heads = 3;
  expect_import_error(t, p, &c, "the tensors do not form a network");
  /* Without the metadata nothing says the head count or input format. */
  cf_weights *w = NULL;
  cf_error err = {0};
  CHECK(import_file(p, NULL, false, &w, &err) == CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "the config must give input_format");
  nc_config_init(&c);
  c.input_format = 1;
  CHECK(import_file(p, &c, false, &w, &err) == CF_ERR_ARG);
  CHECK_STR_CONTAINS(err.msg, "the config must give heads");
  /* With a config file (YAML) instead of the metadata: works. */
  const char *cfg = tmp("net.yaml");
  FILE *f = fopen(cfg, "w");
  if (f) {
    fputs("input_format: 1\nheads: 2\n", f);
    fclose(f);
  }
  CHECK_INT_EQ(nc_test_run(nc_cmd_import, "import", p, "--config", cfg, "-o", tmp("ok.pb.gz"), NULL), 0);
  CHECK(nc_test_file_exists(tmp("ok.pb.gz")));
  /* Unsupported dtype through the command: no output. */
  const char hdr[] = "{\"encoder.0.mha.wq.weight\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}}";
  f = fopen(tmp("f64.safetensors"), "wb");
  if (f) {
    unsigned char len[8] = {sizeof hdr - 1};
    fwrite(len, 1, 8, f);
    fwrite(hdr, 1, sizeof hdr - 1, f);
    fwrite("\0\0\0\0\0\0\0\0", 1, 8, f);
    fclose(f);
  }
  CHECK(nc_test_run(nc_cmd_import, "import", tmp("f64.safetensors"), "--config", cfg, "-o",
                    tmp("f64.pb.gz"), NULL) != 0);
  CHECK(!nc_test_file_exists(tmp("f64.pb.gz")));
  CHECK(nc_test_run(nc_cmd_import, "import", tmp("absent.safetensors"), "-o", tmp("x.pb.gz"), NULL) != 0);
}

/* Bad input never crashes: random byte edits of a valid checkpoint (mostly
 * in the JSON header) either import or fail with a message. */
static void test_mutated_checkpoints(cf_test *t) {
  if (!base.count && !make_base(t)) return;
  size_t size = 0;
  FILE *f = fopen(tmp("base.safetensors"), "rb");
  if (!CHECK(f != NULL)) return;
  fseek(f, 0, SEEK_END);
  size = (size_t)ftell(f);
  rewind(f);
  unsigned char *orig = malloc(size);
  bool read_ok = fread(orig, 1, size, f) == size;
  fclose(f);
  if (!CHECK(read_ok)) {
    free(orig);
    return;
  }
  size_t header = 8;
  for (int i = 0; i < 8; i++) header += (size_t)orig[i] << (8 * i);
  nc_config cfg;
  nc_config_init(&cfg);
  cfg.input_format = 1;
  cfg.heads = 2;
  /* Digits of the header: changing them keeps the JSON valid but changes
   * shapes, offsets and layer numbers, which reaches the deeper checks. */
  size_t *digits = malloc(header * sizeof *digits), nd = 0;
  for (size_t i = 8; i < header && i < size; i++)
    if (orig[i] >= '0' && orig[i] <= '9') digits[nd++] = i;
  uint64_t r = 12345;
  int parsed = 0, imported = 0, runs = 1000;
  for (int k = 0; k < runs; k++) {
    unsigned char *buf = malloc(size);
    memcpy(buf, orig, size);
    int edits = 1 + (int)(r % 4);
    for (int e = 0; e < edits; e++) {
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      if (k % 4 != 0 && nd) {
        buf[digits[(r >> 33) % nd]] = (unsigned char)('0' + (r >> 20) % 10);
      } else {
        size_t at = (r >> 33) % (k % 8 == 0 ? size : header);
        buf[at] = (unsigned char)(r >> 20);
      }
    }
    nc_st_file fl;
    cf_error err = {0};
    if (nc_st_parse(buf, size, "mutant", &fl, &err) == CF_OK) {
      parsed++;
      cf_weights *w = NULL;
      if (nc_import_weights(&fl, &cfg, &w, &err) == CF_OK) imported++;
      else CHECK(err.msg[0] != 0);
      cf_weights_free(w);
    } else {
      CHECK(err.msg[0] != 0);
    }
    nc_st_free(&fl); /* frees buf */
  }
  printf("  %d mutants: %d parsed, %d imported\n", runs, parsed, imported);
  CHECK(parsed < runs);   /* some edits broke the header */
  CHECK(parsed > imported); /* and some got past it to the import checks */
  free(digits);
  free(orig);
}

int main(int argc, char **argv) {
  if (!nc_test_tmpdir(dir, sizeof dir)) {
    perror("mkdtemp");
    return 1;
  }
  static const cf_test_fn fns[] = {test_our_naming_reproduces_parity,
                                   test_chessformer_naming_reproduces_parity, test_rule50_fold,
                                   test_safetensors_dtypes, test_config_syntaxes, test_import_errors,
                                   test_import_config_errors, test_mutated_checkpoints,
                                   test_tf_variable_names};
  static const char *names[] = {"test_our_naming_reproduces_parity",
                                "test_chessformer_naming_reproduces_parity", "test_rule50_fold",
                                "test_safetensors_dtypes", "test_config_syntaxes",
                                "test_import_errors", "test_import_config_errors",
                                "test_mutated_checkpoints", "test_tf_variable_names"};
  int rc = cf_test_run(names, fns, 9, argc, argv);
  for (int i = 0; base_data && i < base.count; i++) free(base_data[i]);
  nc_st_free(&base);
  free(base_data);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return rc;
}
