/* cf_weights_gzip_tree.c: the gzip layer of the weight file without zlib,
 * for builds that have no zlib to link (WebAssembly: emscripten's zlib is a
 * "port" it would download). Same interface and limits as
 * cf_weights_gzip.c (cf_weights_internal.h); the build compiles one of the
 * two (weights/meson.build, option gzip).
 *
 * Reading: an inflater of RFC 1951 over the gzip members of RFC 1952, each
 * member's CRC-32 and length checked. Huffman codes are decoded canonically
 * (a count per code length, symbols in code order), one bit at a time:
 * simple, and a network inflates once per load.
 * Writing: stored (uncompressed) deflate blocks in a gzip member, which
 * every gzip reader takes; a file is as large as its payload plus 5 bytes
 * per 64 KiB (no compression). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "weights/cf_weights_internal.h"

/* ---- CRC-32 (the gzip trailer's), four bits a step ---- */

static const uint32_t crc_nibble[16] = {
    0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
    0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
    0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu};

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    crc = (crc >> 4) ^ crc_nibble[crc & 15];
    crc = (crc >> 4) ^ crc_nibble[crc & 15];
  }
  return ~crc;
}

/* ---- reading ---- */

typedef struct bit_in {
  const uint8_t *p;
  size_t len, pos; /* bytes; pos: the next byte not yet in bits */
  uint32_t bits;   /* low bits first */
  int nbits;
} bit_in;

typedef enum { INF_OK, INF_TRUNCATED, INF_CORRUPT, INF_LIMIT, INF_NOMEM } inf_result;

typedef struct out_buf {
  uint8_t *buf;
  size_t len, cap;
  uint64_t max_out;
} out_buf;

typedef struct huff {
  uint16_t count[16]; /* codes of each length */
  uint16_t symbol[288];
} huff;

typedef struct inflater {
  bit_in in;
  out_buf out;
  const char *why; /* what was corrupt */
} inflater;

static bool need_bits(bit_in *b, int n) {
  while (b->nbits < n) {
    if (b->pos >= b->len) return false;
    b->bits |= (uint32_t)b->p[b->pos++] << b->nbits;
    b->nbits += 8;
  }
  return true;
}

static inf_result get_bits(inflater *f, int n, unsigned *v) {
  if (n == 0) {
    *v = 0;
    return INF_OK;
  }
  if (!need_bits(&f->in, n)) return INF_TRUNCATED;
  *v = f->in.bits & ((1u << n) - 1);
  f->in.bits >>= n;
  f->in.nbits -= n;
  return INF_OK;
}

static inf_result put_byte(out_buf *o, uint8_t c) {
  if (o->len == o->cap) {
    if (o->cap > o->max_out) return INF_LIMIT;
    size_t ncap = o->cap > (SIZE_MAX >> 1) ? SIZE_MAX : o->cap * 2;
    if (ncap > o->max_out + 1) ncap = (size_t)o->max_out + 1;
    uint8_t *nb = realloc(o->buf, ncap);
    if (!nb) return INF_NOMEM;
    o->buf = nb;
    o->cap = ncap;
  }
  o->buf[o->len++] = c;
  return o->len > o->max_out ? INF_LIMIT : INF_OK;
}

/* Builds the canonical code of n symbols from their lengths (0: unused).
 * Fails on an over-subscribed set; an incomplete one is allowed (a
 * distance code of one symbol is). */
static bool huff_build(huff *h, const uint8_t *lengths, int n) {
  uint16_t offs[16];
  memset(h->count, 0, sizeof h->count);
  for (int s = 0; s < n; s++) h->count[lengths[s]]++;
  int left = 1;
  for (int len = 1; len < 16; len++) {
    left = 2 * left - h->count[len];
    if (left < 0) return false;
  }
  offs[1] = 0;
  for (int len = 1; len < 15; len++) offs[len + 1] = (uint16_t)(offs[len] + h->count[len]);
  for (int s = 0; s < n; s++)
    if (lengths[s]) h->symbol[offs[lengths[s]]++] = (uint16_t)s;
  return true;
}

/* One symbol: code bits arrive most significant first, so the code is
 * extended a bit at a time and compared with the first code of each
 * length. */
static inf_result huff_decode(inflater *f, const huff *h, int *sym) {
  int code = 0, first = 0, index = 0;
  for (int len = 1; len < 16; len++) {
    unsigned bit;
    inf_result r = get_bits(f, 1, &bit);
    if (r != INF_OK) return r;
    code |= (int)bit;
    int count = h->count[len];
    if (code - first < count) {
      *sym = h->symbol[index + (code - first)];
      return INF_OK;
    }
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  f->why = "invalid Huffman code";
  return INF_CORRUPT;
}

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                       33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                       1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/* The literal/length and distance symbols of one compressed block, up to
 * its end-of-block symbol. Distances reach back into everything inflated
 * so far (the whole output is the window). */
static inf_result inflate_codes(inflater *f, size_t member_start, const huff *lit,
                                const huff *dist) {
  for (;;) {
    int sym;
    inf_result r = huff_decode(f, lit, &sym);
    if (r != INF_OK) return r;
    if (sym < 256) {
      r = put_byte(&f->out, (uint8_t)sym);
      if (r != INF_OK) return r;
      continue;
    }
    if (sym == 256) return INF_OK;
    sym -= 257;
    if (sym >= 29) {
      f->why = "invalid literal/length symbol";
      return INF_CORRUPT;
    }
    unsigned extra;
    r = get_bits(f, len_extra[sym], &extra);
    if (r != INF_OK) return r;
    size_t len = len_base[sym] + extra;
    int dsym;
    r = huff_decode(f, dist, &dsym);
    if (r != INF_OK) return r;
    if (dsym >= 30) {
      f->why = "invalid distance symbol";
      return INF_CORRUPT;
    }
    r = get_bits(f, dist_extra[dsym], &extra);
    if (r != INF_OK) return r;
    size_t d = dist_base[dsym] + extra;
    if (d > f->out.len - member_start) {
      f->why = "invalid distance too far back";
      return INF_CORRUPT;
    }
    for (size_t i = 0; i < len; i++) {
      r = put_byte(&f->out, f->out.buf[f->out.len - d]);
      if (r != INF_OK) return r;
    }
  }
}

static inf_result inflate_stored(inflater *f) {
  f->in.bits = 0; /* to the byte boundary */
  f->in.nbits = 0;
  if (f->in.len - f->in.pos < 4) return INF_TRUNCATED;
  const uint8_t *h = f->in.p + f->in.pos;
  unsigned len = h[0] | (unsigned)h[1] << 8, nlen = h[2] | (unsigned)h[3] << 8;
  if (len != (~nlen & 0xffffu)) {
    f->why = "invalid stored block lengths";
    return INF_CORRUPT;
  }
  f->in.pos += 4;
  for (unsigned i = 0; i < len; i++) {
    if (f->in.pos >= f->in.len) return INF_TRUNCATED;
    inf_result r = put_byte(&f->out, f->in.p[f->in.pos++]);
    if (r != INF_OK) return r;
  }
  return INF_OK;
}

static inf_result inflate_fixed(inflater *f, size_t member_start) {
  uint8_t lengths[288 + 30];
  int s = 0;
  for (; s < 144; s++) lengths[s] = 8;
  for (; s < 256; s++) lengths[s] = 9;
  for (; s < 280; s++) lengths[s] = 7;
  for (; s < 288; s++) lengths[s] = 8;
  for (s = 0; s < 30; s++) lengths[288 + s] = 5;
  huff lit, dist;
  huff_build(&lit, lengths, 288);
  huff_build(&dist, lengths + 288, 30);
  return inflate_codes(f, member_start, &lit, &dist);
}

static inf_result inflate_dynamic(inflater *f, size_t member_start) {
  static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
  unsigned hlit, hdist, hclen;
  inf_result r;
  if ((r = get_bits(f, 5, &hlit)) != INF_OK || (r = get_bits(f, 5, &hdist)) != INF_OK ||
      (r = get_bits(f, 4, &hclen)) != INF_OK)
    return r;
  hlit += 257;
  hdist += 1;
  hclen += 4;
  if (hlit > 286 || hdist > 30) {
    f->why = "too many length or distance symbols";
    return INF_CORRUPT;
  }
  uint8_t lengths[286 + 30];
  memset(lengths, 0, 19);
  for (unsigned i = 0; i < hclen; i++) {
    unsigned v;
    if ((r = get_bits(f, 3, &v)) != INF_OK) return r;
    lengths[order[i]] = (uint8_t)v;
  }
  huff code_len;
  if (!huff_build(&code_len, lengths, 19)) {
    f->why = "invalid code lengths set";
    return INF_CORRUPT;
  }
  unsigned n = 0;
  while (n < hlit + hdist) {
    int sym;
    if ((r = huff_decode(f, &code_len, &sym)) != INF_OK) return r;
    if (sym < 16) {
      lengths[n++] = (uint8_t)sym;
      continue;
    }
    uint8_t value = 0;
    unsigned repeat;
    if (sym == 16) {
      if (n == 0) {
        f->why = "invalid bit length repeat";
        return INF_CORRUPT;
      }
      value = lengths[n - 1];
      if ((r = get_bits(f, 2, &repeat)) != INF_OK) return r;
      repeat += 3;
    } else if (sym == 17) {
      if ((r = get_bits(f, 3, &repeat)) != INF_OK) return r;
      repeat += 3;
    } else {
      if ((r = get_bits(f, 7, &repeat)) != INF_OK) return r;
      repeat += 11;
    }
    if (n + repeat > hlit + hdist) {
      f->why = "invalid bit length repeat";
      return INF_CORRUPT;
    }
    while (repeat--) lengths[n++] = value;
  }
  if (lengths[256] == 0) {
    f->why = "invalid code -- missing end-of-block";
    return INF_CORRUPT;
  }
  huff lit, dist;
  if (!huff_build(&lit, lengths, (int)hlit)) {
    f->why = "invalid literal/lengths set";
    return INF_CORRUPT;
  }
  if (!huff_build(&dist, lengths + hlit, (int)hdist)) {
    f->why = "invalid distances set";
    return INF_CORRUPT;
  }
  return inflate_codes(f, member_start, &lit, &dist);
}

/* One gzip member at f->in.pos: header, deflate blocks, trailer checked. */
static inf_result inflate_member(inflater *f) {
  bit_in *b = &f->in;
  if (b->len - b->pos < 10) return INF_TRUNCATED;
  const uint8_t *h = b->p + b->pos;
  if (h[0] != 0x1f || h[1] != 0x8b) {
    f->why = "incorrect header check";
    return INF_CORRUPT;
  }
  if (h[2] != 8) {
    f->why = "unknown compression method";
    return INF_CORRUPT;
  }
  const unsigned flags = h[3];
  if (flags & 0xe0) {
    f->why = "unknown header flags set";
    return INF_CORRUPT;
  }
  b->pos += 10;
  if (flags & 4) { /* FEXTRA */
    if (b->len - b->pos < 2) return INF_TRUNCATED;
    size_t xlen = b->p[b->pos] | (size_t)b->p[b->pos + 1] << 8;
    b->pos += 2;
    if (b->len - b->pos < xlen) return INF_TRUNCATED;
    b->pos += xlen;
  }
  for (unsigned flag = 8; flag <= 16; flag <<= 1) /* FNAME, FCOMMENT: zero-terminated */
    if (flags & flag) {
      while (b->pos < b->len && b->p[b->pos] != 0) b->pos++;
      if (b->pos >= b->len) return INF_TRUNCATED;
      b->pos++;
    }
  if (flags & 2) { /* FHCRC */
    if (b->len - b->pos < 2) return INF_TRUNCATED;
    b->pos += 2;
  }
  const size_t start = f->out.len;
  unsigned last;
  do {
    unsigned type;
    inf_result r;
    if ((r = get_bits(f, 1, &last)) != INF_OK || (r = get_bits(f, 2, &type)) != INF_OK) return r;
    if (type == 0) r = inflate_stored(f);
    else if (type == 1) r = inflate_fixed(f, start);
    else if (type == 2) r = inflate_dynamic(f, start);
    else {
      f->why = "invalid block type";
      r = INF_CORRUPT;
    }
    if (r != INF_OK) return r;
  } while (!last);
  /* The trailer starts at the next byte boundary: drop the partial byte
   * and give back whole bytes the bit buffer took. */
  b->pos -= (size_t)(b->nbits / 8);
  b->bits = 0;
  b->nbits = 0;
  if (b->len - b->pos < 8) return INF_TRUNCATED;
  const uint8_t *t = b->p + b->pos;
  uint32_t crc = t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
  uint32_t isize = t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 | (uint32_t)t[7] << 24;
  b->pos += 8;
  if (crc32_update(0, f->out.buf + start, f->out.len - start) != crc) {
    f->why = "incorrect data check";
    return INF_CORRUPT;
  }
  if ((uint32_t)(f->out.len - start) != isize) {
    f->why = "incorrect length check";
    return INF_CORRUPT;
  }
  return INF_OK;
}

/* The whole source in memory: a file is read at once (the WebAssembly
 * build's files are in memory anyway). */
static cf_status read_source(cf_byte_source *src, const uint8_t **data, size_t *len,
                             uint8_t **owned, cf_error *err) {
  *owned = NULL;
  if (!src->file) {
    *data = src->mem;
    *len = src->mem_size;
    return CF_OK;
  }
  if (src->file_size > SIZE_MAX - 1)
    return cf_error_set(err, CF_ERR_NOMEM, "file of %llu bytes does not fit in memory",
                        (unsigned long long)src->file_size);
  size_t cap = (size_t)src->file_size + 1, n = 0;
  uint8_t *buf = malloc(cap);
  if (!buf) return cf_error_set(err, CF_ERR_NOMEM, "cannot allocate %zu bytes for the file", cap);
  for (;;) {
    if (n == cap) {
      size_t ncap = cap > (SIZE_MAX >> 1) ? SIZE_MAX : cap * 2;
      uint8_t *nb = ncap > cap ? realloc(buf, ncap) : NULL;
      if (!nb) {
        free(buf);
        return cf_error_set(err, CF_ERR_NOMEM, "cannot grow the file buffer past %zu bytes", cap);
      }
      buf = nb;
      cap = ncap;
    }
    size_t got = fread(buf + n, 1, cap - n, src->file);
    n += got;
    if (got == 0) {
      if (ferror(src->file)) {
        free(buf);
        return cf_error_set(err, CF_ERR_IO, "read error after %zu bytes", n);
      }
      break;
    }
  }
  *data = buf;
  *len = n;
  *owned = buf;
  return CF_OK;
}

cf_status cf_gunzip(cf_byte_source *src, uint64_t max_out, uint8_t **out, size_t *out_size,
                    bool *over_limit, cf_error *err) {
  *out = NULL;
  *out_size = 0;
  *over_limit = false;
  if (max_out >= SIZE_MAX) max_out = SIZE_MAX - 1;
  const uint8_t *data = NULL;
  size_t len = 0;
  uint8_t *owned = NULL;
  cf_status st = read_source(src, &data, &len, &owned, err);
  if (st != CF_OK) return st;
  inflater f = {.in = {.p = data, .len = len}, .out = {.max_out = max_out}};
  /* As cf_weights_gzip.c: the trailer's size when plausible (at most 4x the
   * compressed size), else 4x the compressed size up to 1 MiB. */
  uint64_t cap = len * (uint64_t)4 < ((uint64_t)1 << 20) ? len * (uint64_t)4 : (uint64_t)1 << 20;
  if (len >= 18) {
    const uint8_t *t = data + len - 4;
    uint64_t isize = t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 | (uint64_t)t[3] << 24;
    if (isize > 0 && isize <= len * (uint64_t)4) cap = isize;
  }
  if (cap < 64) cap = 64;
  if (cap > max_out + 1) cap = max_out + 1;
  f.out.cap = (size_t)cap;
  f.out.buf = malloc(f.out.cap);
  if (!f.out.buf) {
    free(owned);
    return cf_error_set(err, CF_ERR_NOMEM, "cannot allocate %zu bytes for decompression",
                        f.out.cap);
  }
  inf_result r;
  for (;;) {
    r = inflate_member(&f);
    if (r != INF_OK) break;
    /* Another member may follow; anything else is ignored. */
    if (!(f.in.len - f.in.pos >= 2 && f.in.p[f.in.pos] == 0x1f && f.in.p[f.in.pos + 1] == 0x8b))
      break;
  }
  free(owned);
  switch (r) {
    case INF_OK:
      *out = f.out.buf;
      *out_size = f.out.len;
      return CF_OK;
    case INF_TRUNCATED:
      st = cf_error_set(err, CF_ERR_FORMAT,
                        "truncated gzip stream: the compressed data ends after %zu bytes "
                        "before the end of the stream (%zu bytes decompressed so far)",
                        len, f.out.len);
      break;
    case INF_CORRUPT:
      st = cf_error_set(err, CF_ERR_FORMAT, "corrupt gzip data near compressed byte %zu: %s",
                        f.in.pos, f.why);
      break;
    case INF_LIMIT:
      /* The caller words the message: it knows how the limit was chosen. */
      *over_limit = true;
      st = cf_error_set(err, CF_ERR_NOMEM, "decompressed size exceeds the limit of %llu bytes",
                        (unsigned long long)max_out);
      break;
    case INF_NOMEM:
      st = cf_error_set(err, CF_ERR_NOMEM, "cannot grow the decompression buffer past %zu bytes",
                        f.out.cap);
      break;
  }
  free(f.out.buf);
  return st;
}

/* ---- writing: stored blocks ---- */

enum { STORED_MAX = 65535 };

struct cf_byte_sink {
  cf_sink_out out; /* where the bytes go */
  bool gzip;
  uint8_t *block; /* pending bytes of the next stored block */
  size_t block_len;
  uint32_t crc, isize;
};

static void emit(cf_byte_sink *s, const uint8_t *data, size_t len) {
  cf_sink_out_emit(&s->out, data, len);
}

static void emit_block(cf_byte_sink *s, bool last) {
  const unsigned n = (unsigned)s->block_len;
  const uint8_t head[5] = {last ? 1 : 0, (uint8_t)n, (uint8_t)(n >> 8), (uint8_t)~n,
                           (uint8_t)(~n >> 8)};
  emit(s, head, sizeof head);
  emit(s, s->block, s->block_len);
  s->block_len = 0;
}

cf_byte_sink *cf_sink_open(FILE *file, bool gzip, cf_error *err) {
  cf_byte_sink *s = calloc(1, sizeof *s);
  if (!s || (gzip && !(s->block = malloc(STORED_MAX)))) {
    free(s);
    cf_error_set(err, CF_ERR_NOMEM, "out of memory");
    return NULL;
  }
  s->out.file = file;
  s->gzip = gzip;
  if (gzip) {
    /* Magic, deflate, no flags, no time, no extra flags, OS unknown. */
    static const uint8_t header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255};
    emit(s, header, sizeof header);
  }
  return s;
}

void cf_sink_write(cf_byte_sink *s, const uint8_t *data, size_t len) {
  if (!s->gzip) {
    emit(s, data, len);
    return;
  }
  s->crc = crc32_update(s->crc, data, len);
  s->isize += (uint32_t)len;
  while (len > 0 && s->out.status == CF_OK) {
    size_t take = STORED_MAX - s->block_len;
    if (take > len) take = len;
    memcpy(s->block + s->block_len, data, take);
    s->block_len += take;
    data += take;
    len -= take;
    if (s->block_len == STORED_MAX) emit_block(s, false);
  }
}

cf_status cf_sink_close(cf_byte_sink *s, uint8_t **out, size_t *out_size, cf_error *err) {
  if (s->gzip) {
    emit_block(s, true);
    const uint8_t trailer[8] = {(uint8_t)s->crc,          (uint8_t)(s->crc >> 8),
                                (uint8_t)(s->crc >> 16),  (uint8_t)(s->crc >> 24),
                                (uint8_t)s->isize,        (uint8_t)(s->isize >> 8),
                                (uint8_t)(s->isize >> 16), (uint8_t)(s->isize >> 24)};
    emit(s, trailer, sizeof trailer);
    free(s->block);
  }
  const cf_status st = cf_sink_out_finish(&s->out, out, out_size, err);
  free(s);
  return st;
}
