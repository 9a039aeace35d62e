/* The tree's gzip layer and protobuf-c runtime (the WebAssembly build's,
 * weights/cf_weights_gzip_tree.c and cf_weights_protobuf_tree.c) against
 * zlib and libprotobuf-c themselves, in one binary: the tree files are
 * compiled in here under other names (tree_*), the libraries come linked
 * through cf_weights_lib.
 *   inflate: zlib's output at every level and strategy, several members,
 *     corrupt, truncated and oversized streams;
 *   stored-block writer: zlib inflates it back;
 *   protobuf: the parity nets and the default net unpack and pack to the
 *     same bytes and the same structs both ways, unknown and packed fields
 *     included. */
#define cf_gunzip tree_gunzip
#define cf_sink_open tree_sink_open
#define cf_sink_write tree_sink_write
#define cf_sink_close tree_sink_close
#define cf_byte_sink tree_byte_sink
#include "weights/cf_weights_gzip_tree.c"
#undef cf_gunzip
#undef cf_sink_open
#undef cf_sink_write
#undef cf_sink_close
#undef cf_byte_sink

#define protobuf_c_empty_string tree_empty_string
#define protobuf_c_message_descriptor_get_field tree_get_field
#define protobuf_c_message_free_unpacked tree_free_unpacked
#define protobuf_c_message_unpack tree_unpack
#define protobuf_c_message_get_packed_size tree_get_packed_size
#define protobuf_c_message_pack tree_pack
#define protobuf_c_message_pack_to_buffer tree_pack_to_buffer
#include "weights/cf_weights_protobuf_tree.c"
#undef protobuf_c_empty_string
#undef protobuf_c_message_descriptor_get_field
#undef protobuf_c_message_free_unpacked
#undef protobuf_c_message_unpack
#undef protobuf_c_message_get_packed_size
#undef protobuf_c_message_pack
#undef protobuf_c_message_pack_to_buffer

#include <zlib.h>

#include "cf_net.pb-c.h"
#include "tests/cf_test.h"

/* Test data: a mix that every deflate strategy codes differently. */
static uint8_t *sample(size_t n, uint64_t seed) {
  uint8_t *p = malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const unsigned r = (unsigned)(seed >> 33);
    if ((i / 4096) % 3 == 0) p[i] = (uint8_t)r;                 /* noise */
    else if ((i / 4096) % 3 == 1) p[i] = (uint8_t)("abcab"[i % 5]); /* runs and matches */
    else p[i] = (uint8_t)(r % 7 == 0 ? r : p[i > 300 ? i - 300 : 0]); /* far matches */
  }
  return p;
}

static uint8_t *zlib_gzip(const uint8_t *in, size_t n, int level, int strategy, size_t *out_n) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, strategy) != Z_OK) return NULL;
  size_t cap = deflateBound(&zs, (uLong)n) + 64;
  uint8_t *out = malloc(cap);
  zs.next_in = (Bytef *)(uintptr_t)in;
  zs.avail_in = (uInt)n;
  zs.next_out = out;
  zs.avail_out = (uInt)cap;
  int rc = deflate(&zs, Z_FINISH);
  *out_n = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    free(out);
    return NULL;
  }
  return out;
}

static uint8_t *zlib_gunzip(const uint8_t *in, size_t n, size_t cap, size_t *out_n) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return NULL;
  uint8_t *out = malloc(cap ? cap : 1);
  zs.next_in = (Bytef *)(uintptr_t)in;
  zs.avail_in = (uInt)n;
  zs.next_out = out;
  zs.avail_out = (uInt)cap;
  int rc = inflate(&zs, Z_FINISH);
  *out_n = zs.total_out;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    free(out);
    return NULL;
  }
  return out;
}

static cf_status tree_inflate_mem(const uint8_t *gz, size_t n, uint64_t limit, uint8_t **out,
                                  size_t *out_n, bool *over, cf_error *err) {
  cf_byte_source src = {.mem = gz, .mem_size = n};
  return tree_gunzip(&src, limit, out, out_n, over, err);
}

static void test_inflate_matches_zlib(cf_test *t) {
  const size_t sizes[] = {0, 1, 100, 70000, 300000};
  const int levels[] = {0, 1, 6, 9};
  const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED};
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
    uint8_t *data = sample(sizes[si], si + 1);
    for (size_t li = 0; li < sizeof levels / sizeof *levels; li++)
      for (size_t st = 0; st < sizeof strategies / sizeof *strategies; st++) {
        size_t gn;
        uint8_t *gz = zlib_gzip(data, sizes[si], levels[li], strategies[st], &gn);
        if (!CHECK(gz != NULL)) continue;
        uint8_t *out = NULL;
        size_t on = 0;
        bool over;
        cf_error err = {0};
        cf_status s = tree_inflate_mem(gz, gn, 1u << 30, &out, &on, &over, &err);
        if (!CHECK_INT_EQ(s, CF_OK)) fprintf(stderr, "  size %zu level %d strategy %d: %s\n",
                                             sizes[si], levels[li], strategies[st], err.msg);
        else if (CHECK_INT_EQ(on, sizes[si]))
          CHECK(sizes[si] == 0 || memcmp(out, data, sizes[si]) == 0);
        free(out);
        free(gz);
      }
    free(data);
  }
}

static void test_members_and_trailing_bytes(cf_test *t) {
  uint8_t *a = sample(5000, 7), *b = sample(3000, 8);
  size_t an, bn;
  uint8_t *ga = zlib_gzip(a, 5000, 9, Z_DEFAULT_STRATEGY, &an);
  uint8_t *gb = zlib_gzip(b, 3000, 1, Z_DEFAULT_STRATEGY, &bn);
  uint8_t *both = malloc(an + bn + 3);
  memcpy(both, ga, an);
  memcpy(both + an, gb, bn);
  memcpy(both + an + bn, "xyz", 3); /* not a member: ignored, as zlib's gzread does */
  uint8_t *out = NULL;
  size_t on = 0;
  bool over;
  cf_error err = {0};
  if (CHECK_INT_EQ(tree_inflate_mem(both, an + bn + 3, 1u << 20, &out, &on, &over, &err), CF_OK) &&
      CHECK_INT_EQ(on, 8000))
    CHECK(memcmp(out, a, 5000) == 0 && memcmp(out + 5000, b, 3000) == 0);
  free(out);
  free(both);
  free(ga);
  free(gb);
  free(a);
  free(b);
}

static void test_bad_streams(cf_test *t) {
  uint8_t *data = sample(20000, 3);
  size_t gn;
  uint8_t *gz = zlib_gzip(data, 20000, 6, Z_DEFAULT_STRATEGY, &gn);
  uint8_t *out = NULL;
  size_t on;
  bool over = false;
  cf_error err = {0};
  /* Truncated. */
  CHECK_INT_EQ(tree_inflate_mem(gz, gn / 2, 1u << 20, &out, &on, &over, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "truncated gzip stream");
  CHECK(out == NULL);
  /* A wrong CRC. */
  gz[gn - 6] ^= 0x55;
  CHECK_INT_EQ(tree_inflate_mem(gz, gn, 1u << 20, &out, &on, &over, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "incorrect data check");
  gz[gn - 6] ^= 0x55;
  /* A reserved block type. */
  gz[10] |= 6;
  CHECK_INT_EQ(tree_inflate_mem(gz, gn, 1u << 20, &out, &on, &over, &err), CF_ERR_FORMAT);
  CHECK_STR_CONTAINS(err.msg, "corrupt gzip data near compressed byte");
  /* Over the limit: refused as soon as it is passed. */
  free(gz);
  gz = zlib_gzip(data, 20000, 6, Z_DEFAULT_STRATEGY, &gn);
  CHECK_INT_EQ(tree_inflate_mem(gz, gn, 19999, &out, &on, &over, &err), CF_ERR_NOMEM);
  CHECK(over);
  CHECK_STR_CONTAINS(err.msg, "decompressed size exceeds the limit of 19999 bytes");
  over = false;
  CHECK_INT_EQ(tree_inflate_mem(gz, gn, 20000, &out, &on, &over, &err), CF_OK);
  CHECK(!over);
  free(out);
  free(gz);
  free(data);
}

static void test_stored_writer_read_by_zlib(cf_test *t) {
  const size_t n = 200000; /* several stored blocks of 65535 */
  uint8_t *data = sample(n, 11);
  cf_error err = {0};
  tree_byte_sink *s = tree_sink_open(NULL, true, &err);
  if (!CHECK(s != NULL)) return;
  tree_sink_write(s, data, 1000);
  tree_sink_write(s, data + 1000, n - 1000);
  uint8_t *gz = NULL;
  size_t gn = 0;
  if (!CHECK_INT_EQ(tree_sink_close(s, &gz, &gn, &err), CF_OK)) return;
  size_t on = 0;
  uint8_t *out = zlib_gunzip(gz, gn, n + 16, &on);
  if (CHECK(out != NULL) && CHECK_INT_EQ(on, n)) CHECK(memcmp(out, data, n) == 0);
  free(out);
  free(gz);
  free(data);
}

static uint8_t *read_all(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc((size_t)len + 1);
  *n = fread(p, 1, (size_t)len, f);
  fclose(f);
  return p;
}

/* A net file's protobuf payload, inflated by zlib. */
static uint8_t *net_payload(const char *name, size_t *n) {
  const char *dir = getenv("CF_TESTDATA");
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir ? dir : "data", name);
  size_t gn = 0;
  uint8_t *gz = read_all(path, &gn);
  if (!gz) return NULL;
  uint8_t *out = zlib_gunzip(gz, gn, 64u << 20, n);
  free(gz);
  return out;
}

static void check_same_bytes_both_ways(cf_test *t, const char *what, const uint8_t *payload,
                                       size_t n) {
  /* The tree unpacks, libprotobuf-c packs; and the other way round. */
  Pblczero__Net *mine = (Pblczero__Net *)tree_unpack(&pblczero__net__descriptor, NULL, n, payload);
  Pblczero__Net *theirs = pblczero__net__unpack(NULL, n, payload);
  if (!CHECK(mine != NULL) || !CHECK(theirs != NULL)) {
    fprintf(stderr, "  %s: unpack failed\n", what);
    return;
  }
  CHECK_INT_EQ(tree_get_packed_size(&theirs->base), pblczero__net__get_packed_size(theirs));
  CHECK_INT_EQ(pblczero__net__get_packed_size(mine), pblczero__net__get_packed_size(theirs));
  size_t size = pblczero__net__get_packed_size(theirs);
  uint8_t *a = malloc(size), *b = malloc(size);
  CHECK_INT_EQ(pblczero__net__pack(mine, a), size);
  CHECK_INT_EQ(tree_pack(&theirs->base, b), size);
  if (!CHECK(memcmp(a, b, size) == 0)) fprintf(stderr, "  %s: packed bytes differ\n", what);
  /* The real library's own round trip is the reference of "the same". */
  uint8_t *c = malloc(size);
  pblczero__net__pack(theirs, c);
  CHECK(memcmp(a, c, size) == 0);
  CHECK_INT_EQ(mine->base.n_unknown_fields, theirs->base.n_unknown_fields);
  free(a);
  free(b);
  free(c);
  tree_free_unpacked(&mine->base, NULL);
  pblczero__net__free_unpacked(theirs, NULL);
}

static void test_protobuf_real_nets(cf_test *t) {
  const char *nets[] = {"parity/cf-rpe-rms.pb.gz", "parity/lc0-smolgen-relu2-bf16.pb.gz",
                        "parity/lc0-map-classic.pb.gz", "../weights/default/cformer-default.pb.gz"};
  for (size_t i = 0; i < sizeof nets / sizeof *nets; i++) {
    size_t n = 0;
    uint8_t *payload = net_payload(nets[i], &n);
    if (!CHECK(payload != NULL)) {
      fprintf(stderr, "  cannot read %s\n", nets[i]);
      continue;
    }
    check_same_bytes_both_ways(t, nets[i], payload, n);
    free(payload);
  }
}

static void test_protobuf_unknown_packed_and_bad(cf_test *t) {
  /* Net { magic = 0x1c0 (fixed32 1); field 99 varint 300; field 100 bytes
   * "hi"; weights (10) { encoder[0] { mha { q_w { dims packed [3, 200] } } } };
   * weights.headcount given twice (the last wins) } */
  const uint8_t msg[] = {0x0d, 0xc0, 0x01, 0x00, 0x00,       /* magic */
                         0x98, 0x06, 0xac, 0x02,             /* 99: varint 300 */
                         0xa2, 0x06, 0x02, 'h', 'i',         /* 100: "hi" */
                         0x52, 0x12,                         /* weights (10), 18 bytes */
                         0xda, 0x01, 0x09,                   /* encoder (27), 9 bytes */
                         0x0a, 0x07,                         /* mha (1) */
                         0x0a, 0x05,                         /* q_w (1) */
                         0x2a, 0x03, 0x03, 0xc8, 0x01,       /* dims (5) packed: 3, 200 */
                         0xe0, 0x01, 0x04,                   /* headcount (28) = 4 */
                         0xe0, 0x01, 0x08};                  /* headcount = 8 */
  check_same_bytes_both_ways(t, "crafted", msg, sizeof msg);
  Pblczero__Net *m = (Pblczero__Net *)tree_unpack(&pblczero__net__descriptor, NULL, sizeof msg, msg);
  if (CHECK(m != NULL)) {
    CHECK_INT_EQ(m->base.n_unknown_fields, 2);
    CHECK_INT_EQ(m->base.unknown_fields[0].tag, 99);
    CHECK_INT_EQ(m->base.unknown_fields[1].len, 3);
    if (CHECK(m->weights && m->weights->n_encoder == 1 && m->weights->encoder[0]->mha &&
              m->weights->encoder[0]->mha->q_w)) {
      const Pblczero__Weights__Layer *q = m->weights->encoder[0]->mha->q_w;
      CHECK_INT_EQ(q->n_dims, 2);
      if (q->n_dims == 2) CHECK(q->dims[0] == 3 && q->dims[1] == 200);
    }
    CHECK(m->weights && m->weights->has_headcount && m->weights->headcount == 8);
    tree_free_unpacked(&m->base, NULL);
  }
  /* Truncated anywhere, or a group wire type: refused (NULL), nothing leaked
   * (the ASan run checks). */
  for (size_t cut = 1; cut < sizeof msg; cut++) {
    Pblczero__Net *r = (Pblczero__Net *)tree_unpack(&pblczero__net__descriptor, NULL, cut, msg);
    Pblczero__Net *l = pblczero__net__unpack(NULL, cut, msg);
    CHECK((r == NULL) == (l == NULL));
    if (r) tree_free_unpacked(&r->base, NULL);
    if (l) pblczero__net__free_unpacked(l, NULL);
  }
  const uint8_t group[] = {0x0b, 0x0c};
  CHECK(tree_unpack(&pblczero__net__descriptor, NULL, sizeof group, group) == NULL);
}

CF_TEST_MAIN(test_inflate_matches_zlib, test_members_and_trailing_bytes, test_bad_streams,
             test_stored_writer_read_by_zlib, test_protobuf_real_nets,
             test_protobuf_unknown_packed_and_bad)
