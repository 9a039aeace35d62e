/* test_weights_errors.c: every error class of the loader, each checked for
 * its status and for a message naming the file, the field path and the
 * sizes involved. Broken files are crafted from a small random net through
 * the writer and the generated protobuf-c header. */
#include <sys/stat.h>
#include <unistd.h>

#include "tests/cf_test.h"
#include "tests/weights/weights_test_pb.h"

/* Small, with every optional part the checks below poke at. */
static const cf_test_shape small_shape = {
  .layers = 2, .d = 16, .heads = 2, .dff = 24, .rpe = true, .gating = true, .qkv_bias = true,
  .cv = 2, .cm = 2, .soft_head = true, .q_head = true, .seed = 7,
};

typedef void (*mutate_fn)(Pblczero__Net *net);

/* Loads small_shape after mutate (in encoding enc), as a bare payload named
 * "mutated.pb". */
static cf_status load_mutated(cf_test *t, cf_encoding enc, mutate_fn mutate, cf_weights **out,
                              cf_error *err) {
  cf_weights *w = cf_test_random_net(&small_shape, err);
  if (!CHECK(w != NULL)) return CF_ERR_INTERNAL;
  Pblczero__Net *net = cf_test_unpack_net(w, enc);
  cf_weights_free(w);
  if (!CHECK(net != NULL)) return CF_ERR_INTERNAL;
  if (mutate) mutate(net);
  size_t n;
  uint8_t *buf = cf_test_pack_net(net, &n);
  protobuf_c_message_free_unpacked(&net->base, NULL);
  cf_weights *got = NULL;
  cf_status st = cf_weights_load_memory(buf, n, "mutated.pb", NULL, &got, err);
  free(buf);
  CHECK((st == CF_OK) == (got != NULL));
  if (out)
    *out = got;
  else
    cf_weights_free(got);
  return st;
}

/* A valid gzip'd small net. */
static uint8_t *small_gz(size_t *n) {
  cf_weights *w = cf_test_random_net(&small_shape, NULL);
  void *buf = NULL;
  if (w) cf_weights_save_memory(w, CF_ENC_LINEAR16, true, &buf, n, NULL);
  cf_weights_free(w);
  return buf;
}

static char tmpdir[64];

static const char *tmp_path(const char *name) {
  static char path[256];
  if (!tmpdir[0]) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cf_weights_errors_XXXXXX");
    if (!mkdtemp(tmpdir)) return NULL;
  }
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  return path;
}

static void test_baseline_loads(cf_test *t) {
  cf_error err;
  cf_weights *w = NULL;
  CHECK(load_mutated(t, CF_ENC_FLOAT32, NULL, &w, &err) == CF_OK);
  CHECK(w && w->arch.rpe_q && w->arch.has_value[CF_VALUE_Q] && w->arch.value_cat[CF_VALUE_Q] == 16);
  cf_weights_free(w);
}

static void test_file_errors(cf_test *t) {
  cf_error err;
  cf_weights *w = (cf_weights *)1;
  CHECK_INT_EQ(cf_weights_load_file("/nonexistent/dir/net.pb.gz", NULL, &w, &err), CF_ERR_IO);
  CHECK(w == NULL);
  CHECK_STR_CONTAINS(err.msg, "/nonexistent/dir/net.pb.gz: cannot open");
  const char *dir = tmp_path("");
  CHECK_INT_EQ(cf_weights_load_file(dir, NULL, &w, &err), CF_ERR_IO);
  CHECK_STR_CONTAINS(err.msg, "directory");
  const char *empty = tmp_path("empty.pb.gz");
  CHECK(cf_test_write_file(empty, "", 0));
  CHECK_INT_EQ(cf_weights_load_file(empty, NULL, &w, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "empty.pb.gz: empty file");
  CHECK_INT_EQ(cf_weights_load_memory("", 0, "nothing", NULL, &w, &err), CF_ERR_FORMAT);
  CHECK_INT_EQ(cf_weights_load_memory("x", 1, "x", NULL, NULL, &err), CF_ERR_ARG);
  /* A NULL error record is allowed. */
  CHECK_INT_EQ(cf_weights_load_memory("", 0, "nothing", NULL, &w, NULL), CF_ERR_FORMAT);
}

static void test_not_gzip(cf_test *t) {
  cf_error err;
  cf_weights *w;
  const char *path = tmp_path("readme.pb.gz");
  const char text[] = "This is a README, not a network.\n";
  CHECK(cf_test_write_file(path, text, sizeof text - 1));
  CHECK_INT_EQ(cf_weights_load_file(path, NULL, &w, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "readme.pb.gz: not a gzip stream (starts with 54 68 69 73)");
  const uint8_t png[] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13};
  CHECK_INT_EQ(cf_weights_load_memory(png, sizeof png, "image.png", NULL, &w, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "image.png: not a gzip stream (starts with 89 50 4e 47)");
}

static void test_truncated_gzip(cf_test *t) {
  size_t n;
  uint8_t *gz = small_gz(&n);
  if (!CHECK(gz != NULL)) return;
  cf_error err;
  cf_weights *w;
  const char *path = tmp_path("cut.pb.gz");
  CHECK(cf_test_write_file(path, gz, n / 2));
  CHECK_INT_EQ(cf_weights_load_file(path, NULL, &w, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "cut.pb.gz: truncated gzip stream");
  char bytes[64];
  snprintf(bytes, sizeof bytes, "ends after %zu bytes", n / 2);
  CHECK_STR_CONTAINS(err.msg, bytes);
  /* Missing only the trailer. */
  CHECK_INT_EQ(cf_weights_load_memory(gz, n - 4, "cut.pb.gz", NULL, &w, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "truncated gzip stream");
  free(gz);
}

static void test_corrupt_gzip(cf_test *t) {
  size_t n;
  uint8_t *gz = small_gz(&n);
  if (!CHECK(gz != NULL)) return;
  cf_error err;
  cf_weights *w;
  gz[n - 6] ^= 0x55; /* CRC32 of the trailer */
  CHECK_INT_EQ(cf_weights_load_memory(gz, n, "crc.pb.gz", NULL, &w, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "crc.pb.gz: corrupt gzip data");
  CHECK_STR_CONTAINS(err.msg, "incorrect data check");
  free(gz);
  gz = small_gz(&n);
  gz[3] = 0xe0; /* reserved header flag bits */
  CHECK_INT_EQ(cf_weights_load_memory(gz, n, "flags.pb.gz", NULL, &w, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "corrupt gzip data");
  free(gz);
}

/* A highly compressible net (all-zero FLOAT32 tensors) against a small
 * limit: refused before the payload is ever held. */
static void test_decompression_bomb(cf_test *t) {
  cf_test_shape sh = small_shape;
  sh.d = 128;
  sh.dff = 512;
  cf_weights *w = cf_test_random_net(&sh, NULL);
  if (!CHECK(w != NULL)) return;
  for (int i = 0; i < w->arch.layers; i++) {
    memset(w->layers[i].ffn.dense1_w.data, 0, w->layers[i].ffn.dense1_w.n * sizeof(float));
    memset(w->layers[i].ffn.dense2_w.data, 0, w->layers[i].ffn.dense2_w.n * sizeof(float));
  }
  void *gz;
  size_t n;
  CHECK(cf_weights_save_memory(w, CF_ENC_FLOAT32, true, &gz, &n, NULL) == CF_OK);
  void *raw;
  size_t rn;
  CHECK(cf_weights_save_memory(w, CF_ENC_FLOAT32, false, &raw, &rn, NULL) == CF_OK);
  cf_weights_free(w);
  cf_error err;
  cf_weights *got;
  cf_weights_load_options opts = {.max_decompressed_bytes = 64 << 10};
  CHECK_INT_EQ(cf_weights_load_memory(gz, n, "bomb.pb.gz", &opts, &got, &err), CF_ERR_NOMEM);
  CHECK_STR_CONTAINS(err.msg, "bomb.pb.gz: decompressed size exceeds the limit of 65536 bytes");
  CHECK_INT_EQ(cf_weights_load_memory(raw, rn, "bomb.pb", &opts, &got, &err), CF_ERR_NOMEM);
  CHECK_STR_CONTAINS(err.msg, "bomb.pb: uncompressed payload of");
  /* Exactly at the limit is fine, one byte under is not. */
  opts.max_decompressed_bytes = rn;
  CHECK_INT_EQ(cf_weights_load_memory(gz, n, "bomb.pb.gz", &opts, &got, &err), CF_OK);
  cf_weights_free(got);
  opts.max_decompressed_bytes = rn - 1;
  CHECK_INT_EQ(cf_weights_load_memory(gz, n, "bomb.pb.gz", &opts, &got, &err), CF_ERR_NOMEM);
  /* The same through a file, whose size hint (gzip ISIZE) is also capped. */
  const char *path = tmp_path("bomb.pb.gz");
  CHECK(cf_test_write_file(path, gz, n));
  CHECK_INT_EQ(cf_weights_load_file(path, &opts, &got, &err), CF_ERR_NOMEM);
  CHECK_STR_CONTAINS(err.msg, "bomb.pb.gz: decompressed size exceeds the limit");
  /* The automatic limit: 16 times the source, at least 64 MiB, at most 4 GiB. */
  CHECK(cf_weights_max_payload(NULL, 1000) == 64ull << 20);
  CHECK(cf_weights_max_payload(NULL, 100ull << 20) == 1600ull << 20);
  CHECK(cf_weights_max_payload(NULL, 1ull << 40) == 4ull << 30);
  CHECK(cf_weights_max_payload(&opts, 1ull << 40) == rn - 1);
  free(gz);
  free(raw);
}

static void set_magic(Pblczero__Net *net) { net->magic = 0x1c1; }
static void clear_magic(Pblczero__Net *net) { net->has_magic = 0; }

static void test_bad_magic(cf_test *t) {
  cf_error err;
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, set_magic, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "mutated.pb: not a gzip stream");
  CHECK_STR_CONTAINS(err.msg, "bad magic 0x1c1 (expected 0x1c0)");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, clear_magic, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "bad magic absent");
  /* Inside gzip, the message does not claim the file is not gzip. */
  cf_weights *w = cf_test_random_net(&small_shape, NULL);
  Pblczero__Net *net = cf_test_unpack_net(w, CF_ENC_FLOAT16);
  cf_weights_free(w);
  net->magic = 0xdead;
  size_t n, gn = 0;
  uint8_t *raw = cf_test_pack_net(net, &n);
  protobuf_c_message_free_unpacked(&net->base, NULL);
  uint8_t *gz = cf_test_gzip_stored(raw, n, &gn);
  cf_weights *got;
  CHECK_INT_EQ(cf_weights_load_memory(gz, gn, "magic.pb.gz", NULL, &got, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "magic.pb.gz: bad magic 0xdead (expected 0x1c0)");
  free(raw);
  free(gz);
}

static void test_text_format(cf_test *t) {
  const char text[] = "2\n0.1 0.2 0.3\n0.4 0.5\n";
  cf_error err;
  cf_weights *w;
  CHECK_INT_EQ(cf_weights_load_memory(text, sizeof text - 1, "old.txt", NULL, &w, &err),
               CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "old.txt: obsolete text weight format (version 2)");
  size_t gn = 0;
  uint8_t *gz = cf_test_gzip_stored((const uint8_t *)"1\n0.5\n", 6, &gn);
  CHECK_INT_EQ(cf_weights_load_memory(gz, gn, "old.txt.gz", NULL, &w, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "old.txt.gz: obsolete text weight format (version 1)");
  free(gz);
}

static void test_protobuf_parse_failure(cf_test *t) {
  cf_weights *w = cf_test_random_net(&small_shape, NULL);
  void *raw;
  size_t n;
  CHECK(cf_weights_save_memory(w, CF_ENC_FLOAT32, false, &raw, &n, NULL) == CF_OK);
  cf_weights_free(w);
  cf_error err;
  cf_weights *got;
  /* Cut short: the Weights field's length runs past the end. */
  size_t gn = 0;
  uint8_t *gz = cf_test_gzip_stored(raw, n - 100, &gn);
  CHECK_INT_EQ(cf_weights_load_memory(gz, gn, "short.pb.gz", NULL, &got, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "short.pb.gz: protobuf parse failure at byte");
  CHECK_STR_CONTAINS(err.msg, "field 10 (weights): length");
  CHECK_STR_CONTAINS(err.msg, "runs past the end of its message (");
  free(gz);
  /* A group (wire type 3) after the message. */
  uint8_t *g = malloc(n + 2);
  memcpy(g, raw, n);
  g[n] = (12 << 3) | 3;
  g[n + 1] = (12 << 3) | 4;
  CHECK_INT_EQ(cf_weights_load_memory(g, n + 2, "group.pb", NULL, &got, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "group.pb");
  CHECK_STR_CONTAINS(err.msg, "groups (wire type 3) are not supported");
  /* magic (fixed32) sent as a varint. */
  g[n] = (1 << 3) | 0;
  g[n + 1] = 5;
  CHECK_INT_EQ(cf_weights_load_memory(g, n + 2, "wt.pb", NULL, &got, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "field 1 (magic): wire type 0, expected 5");
  free(g);
  free(raw);
}

static void drop_bytes(Pblczero__Net *net) {
  net->weights->encoder[1]->mha->q_w->params.len -= 4 * 16; /* one row of [dm][d] */
}
static void drop_one_byte(Pblczero__Net *net) {
  net->weights->encoder[0]->ffn->dense1_w->params.len -= 1;
}
static void grow_gate(Pblczero__Net *net) {
  net->weights->ip_mult_gate->params.len -= 4 * 64;
}

static void test_wrong_size(cf_test *t) {
  cf_error err;
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, drop_bytes, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg,
                     "mutated.pb: weights.encoder[1].mha.q_w: wrong size: 240 values, expected "
                     "256 ([dm 16][d 16])");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, drop_one_byte, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "weights.encoder[0].ffn.dense1_w: wrong size: 1535 bytes");
  CHECK_STR_CONTAINS(err.msg, "4-byte FLOAT32 values");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, grow_gate, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "weights.ip_mult_gate: wrong size: 960 values, expected 1024");
}

static void drop_dense2(Pblczero__Net *net) {
  cf_test_drop_layer(&net->weights->encoder[0]->ffn->dense2_w);
}
static void drop_rpe(Pblczero__Net *net) {
  cf_test_drop_layer(&net->weights->encoder[1]->mha->rpe_k);
}
static void drop_emb_bias(Pblczero__Net *net) { cf_test_drop_layer(&net->weights->ip_emb_b); }
static void drop_betas(Pblczero__Net *net) {
  cf_test_drop_layer(&net->weights->encoder[1]->ln2_betas);
}
static void drop_vanilla(Pblczero__Net *net) {
  protobuf_c_message_free_unpacked(&net->weights->policy_heads->vanilla->base, NULL);
  net->weights->policy_heads->vanilla = NULL;
}
static void drop_ppo(Pblczero__Net *net) {
  cf_test_drop_layer(&net->weights->policy_heads->soft->ip4_pol_w);
}
static void drop_mlh(Pblczero__Net *net) { cf_test_drop_layer(&net->weights->ip1_mov_w); }

static void test_missing_tensor(cf_test *t) {
  cf_error err;
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, drop_dense2, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg,
                     "mutated.pb: weights.encoder[0].ffn.dense2_w: required tensor missing "
                     "(expected 384 values ([d 16][dff 24]))");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, drop_rpe, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "weights.encoder[1].mha.rpe_k: required tensor missing");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, drop_emb_bias, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "weights.ip_emb_b: required tensor missing (its size gives d)");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, drop_betas, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "weights.encoder[1].ln2_betas: required tensor missing");
  CHECK_STR_CONTAINS(err.msg, "LayerNorm net");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, drop_vanilla, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "weights.policy_heads.vanilla: required policy head missing");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, drop_ppo, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "weights.policy_heads.soft.ip4_pol_w: required tensor missing");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, drop_mlh, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "weights.ip1_mov_w: required tensor missing");
}

static void put_nan(Pblczero__Net *net) {
  const float nan = NAN;
  memcpy(net->weights->encoder[1]->mha->v_w->params.data + 4 * 5, &nan, 4);
}
static void put_inf_range(Pblczero__Net *net) {
  net->weights->policy_heads->ip_pol_w->max_val = INFINITY;
}
static void put_half_inf(Pblczero__Net *net) {
  uint8_t *p = net->weights->ip_emb_w->params.data;
  p[6] = 0x00;
  p[7] = 0x7c; /* binary16 +inf */
}

static void test_nan_inf(cf_test *t) {
  cf_error err;
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, put_nan, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "mutated.pb: weights.encoder[1].mha.v_w: element 5 of 256 is NaN");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_LINEAR16, put_inf_range, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "weights.policy_heads.ip_pol_w: element");
  CHECK_STR_CONTAINS(err.msg, "max_val inf");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT16, put_half_inf, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "weights.ip_emb_w: element 3 of 1792 is Inf (FLOAT16)");
}

static void residual(Pblczero__Net *net) { net->format->network_format->network = 3; }
static void onnx_kind(Pblczero__Net *net) { net->format->network_format->network = 5; }
static void no_format(Pblczero__Net *net) {
  protobuf_c_message_free_unpacked(&net->format->base, NULL);
  net->format = NULL;
}
static void onnx_model(Pblczero__Net *net) {
  static uint8_t model[100];
  net->has_onnx_model = 1;
  net->onnx_model.len = sizeof model;
  net->onnx_model.data = malloc(sizeof model);
  memcpy(net->onnx_model.data, model, sizeof model);
}
static void odd_encoding(Pblczero__Net *net) {
  net->weights->encoder[0]->mha->k_w->encoding = 9;
}
static void classical_policy(Pblczero__Net *net) { net->format->network_format->policy = 1; }
static void odd_network(Pblczero__Net *net) { net->format->network_format->network = 42; }

static void test_unsupported_kinds(cf_test *t) {
  cf_error err;
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, residual, NULL, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg,
                     "mutated.pb: format.network_format.network: 3 (CLASSICAL_WITH_HEADFORMAT) is "
                     "a residual (convolutional) network");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, onnx_kind, NULL, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "5 is an embedded ONNX network");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, onnx_model, NULL, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "onnx_model: embedded ONNX networks are not supported (100 bytes)");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, no_format, NULL, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "format.network_format.network: missing");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, odd_network, NULL, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "unknown network format 42");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, odd_encoding, NULL, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "weights.encoder[0].mha.k_w: unknown tensor encoding 9");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, classical_policy, NULL, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "policy format 1 is not supported");
}

static void newer_minor(Pblczero__Net *net) {
  net->min_version->minor = 34;
  net->min_version->patch = 2;
}
static void newer_major(Pblczero__Net *net) { net->min_version->major = 1; }

static void test_newer_version(cf_test *t) {
  cf_error err;
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, newer_minor, NULL, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg,
                     "mutated.pb: min_version: the file requires engine version 0.34.2 or newer; "
                     "cformer reads network files up to version 0.33");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, newer_major, NULL, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "requires engine version 1.");
}

static void add_unknown(Pblczero__Net *net) {
  /* Unknown fields of every wire type inside a tensor and the Weights. */
  static uint8_t blob[3] = {1, 2, 3};
  ProtobufCMessage *msgs[2] = {&net->weights->encoder[0]->mha->q_w->base, &net->weights->base};
  for (int m = 0; m < 2; m++) {
    ProtobufCMessageUnknownField *u = malloc(4 * sizeof *u);
    const ProtobufCWireType wt[4] = {PROTOBUF_C_WIRE_TYPE_VARINT, PROTOBUF_C_WIRE_TYPE_64BIT,
                                     PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED,
                                     PROTOBUF_C_WIRE_TYPE_32BIT};
    const size_t len[4] = {1, 8, 3, 4};
    for (int i = 0; i < 4; i++) {
      u[i].tag = 1000 + (uint32_t)i;
      u[i].wire_type = wt[i];
      u[i].len = wt[i] == PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED ? 1 + len[i] : len[i];
      u[i].data = calloc(1, 16);
      if (wt[i] == PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED) {
        u[i].data[0] = 3;
        memcpy(u[i].data + 1, blob, 3);
      }
    }
    msgs[m]->n_unknown_fields = 4;
    msgs[m]->unknown_fields = u;
  }
}

static void test_unknown_fields_skipped(cf_test *t) {
  cf_error err;
  cf_weights *w = NULL;
  CHECK_INT_EQ(load_mutated(t, CF_ENC_BFLOAT16, add_unknown, &w, &err), CF_OK);
  CHECK(w && w->layers[0].mha.q_w.n == 256);
  /* Skipped, but not silently: one note per message type. */
  if (w && CHECK_INT_EQ(w->n_notes, 2)) {
    CHECK_STR_CONTAINS(w->notes[0], "ignored 4 unknown fields in Weights (field numbers 1000, "
                                    "1001, 1002, 1003)");
    CHECK_STR_CONTAINS(w->notes[1], "ignored 4 unknown fields in Weights.Layer (field numbers "
                                    "1000, 1001, 1002, 1003)");
  }
  cf_weights_free(w);
}

/* Multi-head -> single-head top-level layout, as network 6 nets have it. */
static void to_single_head(Pblczero__Net *net) {
  Pblczero__Weights *pw = net->weights;
  net->format->network_format->network = 6;
  Pblczero__Weights__PolicyHeads *ph = pw->policy_heads;
  pw->ip_pol_w = ph->ip_pol_w;
  pw->ip_pol_b = ph->ip_pol_b;
  pw->ip2_pol_w = ph->vanilla->ip2_pol_w;
  pw->ip2_pol_b = ph->vanilla->ip2_pol_b;
  pw->ip3_pol_w = ph->vanilla->ip3_pol_w;
  pw->ip3_pol_b = ph->vanilla->ip3_pol_b;
  pw->ip4_pol_w = ph->vanilla->ip4_pol_w;
  ph->ip_pol_w = ph->ip_pol_b = NULL;
  ph->vanilla->ip2_pol_w = ph->vanilla->ip2_pol_b = ph->vanilla->ip3_pol_w = NULL;
  ph->vanilla->ip3_pol_b = ph->vanilla->ip4_pol_w = NULL;
  protobuf_c_message_free_unpacked(&ph->base, NULL);
  pw->policy_heads = NULL;
  Pblczero__Weights__ValueHead *v = pw->value_heads->winner;
  pw->ip_val_w = v->ip_val_w;
  pw->ip_val_b = v->ip_val_b;
  pw->ip1_val_w = v->ip1_val_w;
  pw->ip1_val_b = v->ip1_val_b;
  pw->ip2_val_w = v->ip2_val_w;
  pw->ip2_val_b = v->ip2_val_b;
  v->ip_val_w = v->ip_val_b = v->ip1_val_w = v->ip1_val_b = v->ip2_val_w = v->ip2_val_b = NULL;
  protobuf_c_message_free_unpacked(&pw->value_heads->base, NULL);
  pw->value_heads = NULL;
}

static void single_and_multi(Pblczero__Net *net) {
  Pblczero__Weights *pw = net->weights;
  pw->ip2_pol_w = pw->policy_heads->vanilla->ip2_pol_w;
  pw->policy_heads->vanilla->ip2_pol_w = NULL;
}

static void test_legacy_single_head(cf_test *t) {
  cf_error err;
  cf_weights *legacy = NULL, *multi = NULL;
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, to_single_head, &legacy, &err), CF_OK);
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, NULL, &multi, &err), CF_OK);
  if (legacy && multi) {
    CHECK_INT_EQ(legacy->raw_network_format, 6);
    CHECK_INT_EQ(legacy->arch.network_format, 6);
    CHECK(legacy->arch.has_policy[CF_POLICY_VANILLA]);
    CHECK(!legacy->arch.has_policy[CF_POLICY_SOFT]); /* single-head: only vanilla */
    CHECK(legacy->arch.has_value[CF_VALUE_WINNER] && !legacy->arch.has_value[CF_VALUE_Q]);
    CHECK_INT_EQ(legacy->policy_ip_pol_w.n, multi->policy_ip_pol_w.n);
    CHECK(memcmp(legacy->policy[CF_POLICY_VANILLA].ip4_pol_w.data,
                 multi->policy[CF_POLICY_VANILLA].ip4_pol_w.data,
                 multi->policy[CF_POLICY_VANILLA].ip4_pol_w.n * sizeof(float)) == 0);
    CHECK(memcmp(legacy->value[CF_VALUE_WINNER].ip1_val_w.data,
                 multi->value[CF_VALUE_WINNER].ip1_val_w.data,
                 multi->value[CF_VALUE_WINNER].ip1_val_w.n * sizeof(float)) == 0);
  }
  cf_weights_free(legacy);
  cf_weights_free(multi);
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, single_and_multi, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "both top-level policy tensors");
}

static void mix_rpe(Pblczero__Net *net) {
  cf_test_drop_layer(&net->weights->encoder[0]->mha->rpe_q);
}
static void bad_heads(Pblczero__Net *net) { net->weights->headcount = 3; }
static void no_heads(Pblczero__Net *net) { net->weights->has_headcount = 0; }
static void no_layers(Pblczero__Net *net) {
  for (size_t i = 0; i < net->weights->n_encoder; i++)
    protobuf_c_message_free_unpacked(&net->weights->encoder[i]->base, NULL);
  net->weights->n_encoder = 0;
}
static void bad_default_act(Pblczero__Net *net) {
  net->format->network_format->default_activation = 4;
}
static void wdl_one_output(Pblczero__Net *net) { net->format->network_format->value = 1; }

static void test_inconsistent_arch(cf_test *t) {
  cf_error err;
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, mix_rpe, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "weights.encoder[1].mha.rpe_q: unexpected tensor (3600 values)");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, bad_heads, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "dm = 16 is not a multiple of headcount 3");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, no_heads, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "weights.headcount: missing or 0");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, no_layers, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "weights.encoder: no encoder layers");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, bad_default_act, NULL, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "default_activation: unknown value 4");
  CHECK_INT_EQ(load_mutated(t, CF_ENC_FLOAT32, wdl_one_output, NULL, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "value_heads.winner.ip2_val_w: 3 outputs, but value format 1");
}

/* More encoder layers than CF_WEIGHTS_MAX_LAYERS: refused by the wire scan
 * before protobuf-c allocates anything per layer. */
static void test_layer_cap(cf_test *t) {
  cf_weights *w = cf_test_random_net(&small_shape, NULL);
  Pblczero__Net *net = cf_test_unpack_net(w, CF_ENC_LINEAR16);
  cf_weights_free(w);
  if (!CHECK(net != NULL)) return;
  Pblczero__Weights *pw = net->weights;
  Pblczero__Weights__EncoderLayer **saved = pw->encoder;
  size_t saved_n = pw->n_encoder;
  const size_t n_layers = CF_WEIGHTS_MAX_LAYERS + 1;
  Pblczero__Weights__EncoderLayer **many = malloc(n_layers * sizeof *many);
  for (size_t i = 0; i < n_layers; i++) many[i] = saved[0];
  pw->encoder = many;
  pw->n_encoder = n_layers;
  size_t n;
  uint8_t *buf = cf_test_pack_net(net, &n);
  pw->encoder = saved;
  pw->n_encoder = saved_n;
  free(many);
  protobuf_c_message_free_unpacked(&net->base, NULL);
  cf_error err;
  cf_weights *got;
  CHECK_INT_EQ(cf_weights_load_memory(buf, n, "deep.pb", NULL, &got, &err), CF_ERR_UNSUPPORTED);
  CHECK_STR_CONTAINS(err.msg, "deep.pb: protobuf parse failure at byte");
  CHECK_STR_CONTAINS(err.msg, "in weights: more than 4096 encoder layers");
  free(buf);
}

static void test_cleanup(cf_test *t) {
  const char *names[] = {"empty.pb.gz", "readme.pb.gz", "cut.pb.gz", "bomb.pb.gz"};
  for (int i = 0; i < 4; i++) unlink(tmp_path(names[i]));
  CHECK(rmdir(tmpdir) == 0);
}

CF_TEST_MAIN(test_baseline_loads, test_file_errors, test_not_gzip, test_truncated_gzip,
             test_corrupt_gzip, test_decompression_bomb, test_bad_magic, test_text_format,
             test_protobuf_parse_failure, test_wrong_size, test_missing_tensor, test_nan_inf,
             test_unsupported_kinds, test_newer_version, test_unknown_fields_skipped,
             test_legacy_single_head, test_inconsistent_arch, test_layer_cap, test_cleanup)
