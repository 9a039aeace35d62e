/* analyse_source.c: plain, gzip and zstd input behind one read call
 * (analyse_source.h). The raw file is read in RAW_CHUNK pieces into a
 * buffer the decoder drains; gzip members and zstd frames may follow one
 * another (concatenated files), as gzip and zstd themselves allow. */
#include "tools/analyse/analyse_source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define RAW_CHUNK (256 * 1024)

typedef enum { PLAIN, GZIP, ZSTD } codec;

struct analyse_source {
  int fd;
  codec kind;
  unsigned char raw[RAW_CHUNK];
  size_t raw_at, raw_end; /* unread raw bytes: raw[raw_at .. raw_end) */
  int raw_eof;
  uint64_t consumed, size;
  z_stream z;
  ZSTD_DStream *zs;
  int stream_done; /* the current gzip member / zstd frame has ended */
};

static cf_status fill_raw(analyse_source *s, cf_error *err) {
  if (s->raw_at < s->raw_end || s->raw_eof) return CF_OK;
  ssize_t n;
  do n = read(s->fd, s->raw, sizeof s->raw);
  while (n < 0 && errno == EINTR);
  if (n < 0) return cf_error_set(err, CF_ERR_IO, "read error: %s", strerror(errno));
  s->raw_at = 0;
  s->raw_end = (size_t)n;
  s->raw_eof = n == 0;
  s->consumed += (uint64_t)n;
  return CF_OK;
}

cf_status analyse_source_open(const char *path, analyse_source **out, cf_error *err) {
  *out = NULL;
  analyse_source *s = calloc(1, sizeof *s);
  if (!s) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  s->fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY);
  if (s->fd < 0) {
    cf_status st = cf_error_set(err, CF_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    free(s);
    return st;
  }
  struct stat st;
  if (fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode)) s->size = (uint64_t)st.st_size;
  if (fstat(s->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(s->fd);
    free(s);
    return cf_error_set(err, CF_ERR_IO, "'%s' is a directory", path);
  }
  /* the magic: at least the first 4 bytes, if the file has them */
  while (s->raw_end < 4 && !s->raw_eof) {
    ssize_t n = read(s->fd, s->raw + s->raw_end, sizeof s->raw - s->raw_end);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      cf_status rc = cf_error_set(err, CF_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
      analyse_source_close(s);
      return rc;
    }
    s->raw_eof = n == 0;
    s->raw_end += (size_t)n;
    s->consumed += (uint64_t)n;
  }
  const unsigned char *m = s->raw;
  if (s->raw_end >= 2 && m[0] == 0x1f && m[1] == 0x8b) {
    s->kind = GZIP;
    if (inflateInit2(&s->z, 15 + 32) != Z_OK) {
      analyse_source_close(s);
      return cf_error_set(err, CF_ERR_NOMEM, "zlib: cannot start a decoder");
    }
  } else if (s->raw_end >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) {
    s->kind = ZSTD;
    s->zs = ZSTD_createDStream();
    if (!s->zs || ZSTD_isError(ZSTD_initDStream(s->zs))) {
      analyse_source_close(s);
      return cf_error_set(err, CF_ERR_NOMEM, "zstd: cannot start a decoder");
    }
  }
  *out = s;
  return CF_OK;
}

static ssize_t read_plain(analyse_source *s, char *buf, size_t size, cf_error *err) {
  if (fill_raw(s, err) != CF_OK) return -1;
  size_t n = s->raw_end - s->raw_at;
  if (n > size) n = size;
  memcpy(buf, s->raw + s->raw_at, n);
  s->raw_at += n;
  return (ssize_t)n;
}

static ssize_t read_gzip(analyse_source *s, char *buf, size_t size, cf_error *err) {
  s->z.next_out = (unsigned char *)buf;
  s->z.avail_out = (unsigned)size;
  while (s->z.avail_out == size) {
    if (fill_raw(s, err) != CF_OK) return -1;
    if (s->raw_at == s->raw_end) { /* end of the file */
      if (!s->stream_done) {
        cf_error_set(err, CF_ERR_FORMAT, "gzip: the file ends inside a compressed stream");
        return -1;
      }
      return 0;
    }
    if (s->stream_done) { /* another member follows */
      inflateReset(&s->z);
      s->stream_done = 0;
    }
    s->z.next_in = s->raw + s->raw_at;
    s->z.avail_in = (unsigned)(s->raw_end - s->raw_at);
    int rc = inflate(&s->z, Z_NO_FLUSH);
    s->raw_at = s->raw_end - s->z.avail_in;
    if (rc == Z_STREAM_END) s->stream_done = 1;
    else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      cf_error_set(err, CF_ERR_FORMAT, "gzip: %s", s->z.msg ? s->z.msg : "corrupt data");
      return -1;
    }
  }
  return (ssize_t)(size - s->z.avail_out);
}

static ssize_t read_zstd(analyse_source *s, char *buf, size_t size, cf_error *err) {
  ZSTD_outBuffer o = {buf, size, 0};
  while (o.pos == 0) {
    if (fill_raw(s, err) != CF_OK) return -1;
    if (s->raw_at == s->raw_end) {
      if (!s->stream_done) {
        cf_error_set(err, CF_ERR_FORMAT, "zstd: the file ends inside a compressed frame");
        return -1;
      }
      return 0;
    }
    ZSTD_inBuffer in = {s->raw + s->raw_at, s->raw_end - s->raw_at, 0};
    size_t rc = ZSTD_decompressStream(s->zs, &o, &in);
    s->raw_at += in.pos;
    if (ZSTD_isError(rc)) {
      cf_error_set(err, CF_ERR_FORMAT, "zstd: %s", ZSTD_getErrorName(rc));
      return -1;
    }
    s->stream_done = rc == 0;
  }
  return (ssize_t)o.pos;
}

ssize_t analyse_source_read(analyse_source *s, char *buf, size_t size, cf_error *err) {
  if (size == 0) return 0;
  switch (s->kind) {
  case GZIP: return read_gzip(s, buf, size, err);
  case ZSTD: return read_zstd(s, buf, size, err);
  default: return read_plain(s, buf, size, err);
  }
}

uint64_t analyse_source_consumed(const analyse_source *s) {
  return s->consumed - (s->raw_end - s->raw_at);
}

uint64_t analyse_source_size(const analyse_source *s) { return s->size; }

void analyse_source_close(analyse_source *s) {
  if (!s) return;
  if (s->kind == GZIP) inflateEnd(&s->z);
  ZSTD_freeDStream(s->zs);
  if (s->fd > STDIN_FILENO) close(s->fd);
  free(s);
}
