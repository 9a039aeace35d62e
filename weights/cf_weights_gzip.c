/* cf_weights_gzip.c: the gzip layer of the weight file, on zlib.
 *
 * Reading inflates into one buffer that grows geometrically (doubling) with
 * what was inflated and never past the caller's limit + 1 bytes, so a
 * decompression bomb is stopped as soon as it passes the limit and costs
 * memory in proportion to what it really produced. Writing streams through
 * deflate into a file or a memory buffer. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "weights/cf_weights_internal.h"

#define CF_GZ_CHUNK ((size_t)1 << 20)
/* The gzip trailer's ISIZE is trusted as a size hint only up to this many
 * times the compressed size: networks inflate to ~1.3x, and the trailer is
 * simply the file's last 4 bytes, so appended bytes (or a lie) must not buy
 * a large allocation. A larger payload grows the buffer instead. */
#define CF_GZ_HINT_RATIO 4u

static uint64_t sat_mul(uint64_t a, uint64_t b) {
  return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The gzip trailer's ISIZE (uncompressed size mod 2^32), the last 4 bytes
 * of the source; false when there is none. Leaves a file at its start. */
static bool trailer_isize(cf_byte_source *src, uint64_t *isize) {
  uint8_t t[4];
  bool have = false;
  if (src->file) {
    if (src->file_size >= 18 && fseek(src->file, -4, SEEK_END) == 0 &&
        fread(t, 1, 4, src->file) == 4)
      have = true;
    if (fseek(src->file, 0, SEEK_SET) != 0) have = false;
  } else if (src->mem_size >= 18) {
    memcpy(t, src->mem + src->mem_size - 4, 4);
    have = true;
  }
  if (have)
    *isize = (uint64_t)t[0] | ((uint64_t)t[1] << 8) | ((uint64_t)t[2] << 16) |
             ((uint64_t)t[3] << 24);
  return have;
}

/* Initial output capacity: the trailer's ISIZE when it is plausible, which
 * makes the common single-member case exactly one allocation; else four
 * times the compressed size, at most 1 MiB, grown as needed. */
static size_t initial_capacity(cf_byte_source *src, uint64_t max_out) {
  const uint64_t csize = src->file ? src->file_size : src->mem_size;
  uint64_t cap = sat_mul(csize, 4) < ((uint64_t)1 << 20) ? csize * 4 : ((uint64_t)1 << 20);
  uint64_t isize;
  if (trailer_isize(src, &isize) && isize > 0 && isize <= sat_mul(csize, CF_GZ_HINT_RATIO))
    cap = isize;
  if (cap < 64) cap = 64;
  if (cap > max_out + 1) cap = max_out + 1;
  return (size_t)cap;
}

/* Makes more compressed input available after what zlib has not consumed
 * yet (kept, so that a gzip magic split across two reads is still seen
 * whole); *eof once the source has nothing more. */
static cf_status refill(cf_byte_source *src, z_stream *zs, uint8_t *inbuf, uint64_t *pos,
                        bool *eof, cf_error *err) {
  if (src->file) {
    if (zs->avail_in > 0) memmove(inbuf, zs->next_in, zs->avail_in);
    size_t got = fread(inbuf + zs->avail_in, 1, CF_GZ_CHUNK - zs->avail_in, src->file);
    if (got == 0 && ferror(src->file))
      return cf_error_set(err, CF_ERR_IO, "read error after %llu bytes", (unsigned long long)*pos);
    zs->next_in = inbuf;
    zs->avail_in += (uInt)got;
    *pos += got;
    *eof = got == 0;
  } else {
    /* The unconsumed bytes end at mem + *pos: extend them in place. */
    size_t left = src->mem_size - (size_t)*pos;
    size_t take = left < (size_t)1 << 30 ? left : (size_t)1 << 30;
    zs->next_in = (Bytef *)(uintptr_t)(src->mem + *pos - zs->avail_in);
    zs->avail_in += (uInt)take;
    *pos += take;
    *eof = take == 0;
  }
  return CF_OK;
}

cf_status cf_gunzip(cf_byte_source *src, uint64_t max_out, uint8_t **out, size_t *out_size,
                    bool *over_limit, cf_error *err) {
  *out = NULL;
  *out_size = 0;
  *over_limit = false;
  if (max_out >= SIZE_MAX) max_out = SIZE_MAX - 1;
  size_t cap = initial_capacity(src, max_out), len = 0;
  uint8_t *buf = malloc(cap);
  uint8_t *inbuf = src->file ? malloc(CF_GZ_CHUNK) : NULL;
  if (!buf || (src->file && !inbuf)) {
    free(buf);
    free(inbuf);
    return cf_error_set(err, CF_ERR_NOMEM, "cannot allocate %zu bytes for decompression", cap);
  }
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
    free(buf);
    free(inbuf);
    return cf_error_set(err, CF_ERR_NOMEM, "cannot initialise zlib");
  }
  cf_status st = CF_OK;
  uint64_t pos = 0; /* compressed bytes handed to zlib so far */
  bool eof = false;
  for (;;) {
    if (zs.avail_in == 0 && !eof) {
      st = refill(src, &zs, inbuf, &pos, &eof, err);
      if (st != CF_OK) break;
    }
    if (len == cap) {
      if (cap > max_out) goto bomb;
      size_t ncap = cap > (SIZE_MAX >> 1) ? SIZE_MAX : cap * 2;
      if (ncap > max_out + 1) ncap = (size_t)max_out + 1;
      uint8_t *nb = realloc(buf, ncap);
      if (!nb) {
        st = cf_error_set(err, CF_ERR_NOMEM, "cannot grow the decompression buffer to %zu bytes",
                          ncap);
        break;
      }
      buf = nb;
      cap = ncap;
    }
    size_t room = cap - len;
    zs.next_out = buf + len;
    zs.avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
    uInt before = zs.avail_out;
    int ret = inflate(&zs, Z_NO_FLUSH);
    len += before - zs.avail_out;
    if (len > max_out) goto bomb;
    if (ret == Z_STREAM_END) {
      /* Another gzip member may follow; anything else is ignored. Its
       * 2-byte magic may straddle the end of a read. */
      while (zs.avail_in < 2 && !eof && st == CF_OK) st = refill(src, &zs, inbuf, &pos, &eof, err);
      if (st != CF_OK) break;
      if (zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
        inflateReset(&zs);
        continue;
      }
      break;
    }
    if (ret == Z_BUF_ERROR) {
      if (zs.avail_in == 0 && eof) {
        st = cf_error_set(err, CF_ERR_FORMAT,
                          "truncated gzip stream: the compressed data ends after %llu bytes "
                          "before the end of the stream (%zu bytes decompressed so far)",
                          (unsigned long long)pos, len);
        break;
      }
      continue; /* needs more input or more room: both are provided above */
    }
    if (ret == Z_MEM_ERROR) {
      st = cf_error_set(err, CF_ERR_NOMEM, "zlib ran out of memory");
      break;
    }
    if (ret != Z_OK) {
      st = cf_error_set(err, CF_ERR_FORMAT, "corrupt gzip data near compressed byte %llu: %s",
                        (unsigned long long)(pos - zs.avail_in), zs.msg ? zs.msg : "zlib error");
      break;
    }
  }
  inflateEnd(&zs);
  free(inbuf);
  if (st != CF_OK) {
    free(buf);
    return st;
  }
  *out = buf;
  *out_size = len;
  return CF_OK;

bomb:
  /* The caller words the message: it knows how the limit was chosen. */
  inflateEnd(&zs);
  free(inbuf);
  free(buf);
  *over_limit = true;
  return cf_error_set(err, CF_ERR_NOMEM,
                      "decompressed size exceeds the limit of %llu bytes",
                      (unsigned long long)max_out);
}

/* ---- writing ---- */

struct cf_byte_sink {
  cf_sink_out out; /* where the bytes go */
  bool gzip;
  z_stream zs;
  uint8_t *zbuf;    /* deflate output chunk */
};

static void emit(cf_byte_sink *s, const uint8_t *data, size_t len) {
  cf_sink_out_emit(&s->out, data, len);
}

static void deflate_some(cf_byte_sink *s, int flush) {
  int ret;
  do {
    s->zs.next_out = s->zbuf;
    s->zs.avail_out = (uInt)CF_GZ_CHUNK;
    ret = deflate(&s->zs, flush);
    if (ret == Z_STREAM_ERROR) {
      s->out.status = cf_error_set(&s->out.err, CF_ERR_INTERNAL, "deflate failed");
      return;
    }
    emit(s, s->zbuf, CF_GZ_CHUNK - s->zs.avail_out);
  } while (s->zs.avail_out == 0 && s->out.status == CF_OK);
  (void)ret;
}

cf_byte_sink *cf_sink_open(FILE *file, bool gzip, cf_error *err) {
  cf_byte_sink *s = calloc(1, sizeof *s);
  if (!s) {
    cf_error_set(err, CF_ERR_NOMEM, "out of memory");
    return NULL;
  }
  s->out.file = file;
  s->gzip = gzip;
  if (gzip) {
    s->zbuf = malloc(CF_GZ_CHUNK);
    if (!s->zbuf ||
        deflateInit2(&s->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
      free(s->zbuf);
      free(s);
      cf_error_set(err, CF_ERR_NOMEM, "cannot initialise zlib");
      return NULL;
    }
  }
  return s;
}

void cf_sink_write(cf_byte_sink *s, const uint8_t *data, size_t len) {
  if (!s->gzip) {
    emit(s, data, len);
    return;
  }
  while (len > 0 && s->out.status == CF_OK) {
    size_t take = len > UINT_MAX ? UINT_MAX : len;
    s->zs.next_in = (Bytef *)(uintptr_t)data;
    s->zs.avail_in = (uInt)take;
    deflate_some(s, Z_NO_FLUSH);
    data += take;
    len -= take;
  }
}

cf_status cf_sink_close(cf_byte_sink *s, uint8_t **out, size_t *out_size, cf_error *err) {
  if (s->gzip) {
    if (s->out.status == CF_OK) {
      s->zs.next_in = NULL;
      s->zs.avail_in = 0;
      deflate_some(s, Z_FINISH);
    }
    deflateEnd(&s->zs);
    free(s->zbuf);
  }
  const cf_status st = cf_sink_out_finish(&s->out, out, out_size, err);
  free(s);
  return st;
}
