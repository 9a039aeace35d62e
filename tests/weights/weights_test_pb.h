/* weights_test_pb.h: crafting broken weight files for tests (header only).
 * Uses the generated protobuf-c header, which only weights/ and its tests
 * may include. */
#ifndef CF_WEIGHTS_TEST_PB_H
#define CF_WEIGHTS_TEST_PB_H

#include <protobuf-c/protobuf-c.h>

#include "cf_net.pb-c.h"
#include "tests/weights/weights_test_util.h"

/* The bare protobuf of w in encoding enc, unpacked (free with
 * protobuf_c_message_free_unpacked(&net->base, NULL)). */
static inline Pblczero__Net *cf_test_unpack_net(const cf_weights *w, cf_encoding enc) {
  void *buf;
  size_t n;
  if (cf_weights_save_memory(w, enc, false, &buf, &n, NULL) != CF_OK) return NULL;
  Pblczero__Net *net = (Pblczero__Net *)protobuf_c_message_unpack(&pblczero__net__descriptor, NULL,
                                                                  n, buf);
  free(buf);
  return net;
}

/* Packs net into a new malloc'd buffer. */
static inline uint8_t *cf_test_pack_net(const Pblczero__Net *net, size_t *n) {
  *n = protobuf_c_message_get_packed_size(&net->base);
  uint8_t *buf = malloc(*n ? *n : 1);
  if (buf) protobuf_c_message_pack(&net->base, buf);
  return buf;
}

/* Frees a Layer taken out of a message. */
static inline void cf_test_drop_layer(Pblczero__Weights__Layer **slot) {
  if (*slot) protobuf_c_message_free_unpacked(&(*slot)->base, NULL);
  *slot = NULL;
}

/* CRC-32 (IEEE), for hand-made gzip streams. */
static inline uint32_t cf_test_crc32(const uint8_t *p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return ~c;
}

/* A gzip stream of data made of stored (uncompressed) deflate blocks: lets
 * the tests gzip any bytes without zlib. */
static inline uint8_t *cf_test_gzip_stored(const uint8_t *data, size_t n, size_t *out_n) {
  size_t blocks = n / 65535 + 1;
  uint8_t *out = malloc(10 + n + 5 * blocks + 8);
  if (!out) return NULL;
  static const uint8_t hdr[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
  memcpy(out, hdr, 10);
  size_t o = 10, i = 0;
  do {
    size_t len = n - i > 65535 ? 65535 : n - i;
    out[o++] = i + len == n ? 1 : 0; /* BFINAL, BTYPE 00 */
    out[o++] = (uint8_t)len;
    out[o++] = (uint8_t)(len >> 8);
    out[o++] = (uint8_t)~len;
    out[o++] = (uint8_t)(~len >> 8);
    memcpy(out + o, data + i, len);
    o += len;
    i += len;
  } while (i < n);
  uint32_t crc = cf_test_crc32(data, n), isz = (uint32_t)n;
  for (int k = 0; k < 4; k++) out[o++] = (uint8_t)(crc >> (8 * k));
  for (int k = 0; k < 4; k++) out[o++] = (uint8_t)(isz >> (8 * k));
  *out_n = o;
  return out;
}

#endif /* CF_WEIGHTS_TEST_PB_H */
