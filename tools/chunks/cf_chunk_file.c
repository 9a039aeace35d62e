/* cf_chunk_file.c: chunk files written under a temporary name and renamed
 * when closed, and read back with every way a file can be wrong named
 * (cf_chunk_file.h). */
#include "tools/chunks/cf_chunk_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PATH_MAX_LEN 4096

struct cf_chunk_writer {
  gzFile gz;
  char tmp[PATH_MAX_LEN];
  char path[PATH_MAX_LEN];
};

void cf_chunk_name(long game, char *out, size_t size) {
  snprintf(out, size, "training.%06ld.gz", game);
}

cf_status cf_chunk_writer_open(const char *dir, long game, cf_chunk_writer **out, cf_error *err) {
  *out = NULL;
  cf_chunk_writer *w = calloc(1, sizeof *w);
  if (!w) return cf_error_set(err, CF_ERR_NOMEM, "chunks: out of memory");
  char name[64];
  cf_chunk_name(game, name, sizeof name);
  if (snprintf(w->path, sizeof w->path, "%s/%s", dir, name) >= (int)sizeof w->path ||
      snprintf(w->tmp, sizeof w->tmp, "%s/.%s.tmp", dir, name) >= (int)sizeof w->tmp) {
    free(w);
    return cf_error_set(err, CF_ERR_ARG, "chunks: directory name too long: %s", dir);
  }
  /* "wb6": zlib's default level, a good size at little cost next to the search */
  w->gz = gzopen(w->tmp, "wb6");
  if (!w->gz) {
    const int e = errno;
    free(w);
    return cf_error_set(err, CF_ERR_IO, "chunks: cannot write %s/.%s.tmp: %s", dir, name,
                        e ? strerror(e) : "out of memory");
  }
  *out = w;
  return CF_OK;
}

cf_status cf_chunk_writer_add(cf_chunk_writer *w, const cf_v6 *r, cf_error *err) {
  uint8_t buf[CF_V6_BYTES];
  cf_v6_pack(r, buf);
  if (gzwrite(w->gz, buf, CF_V6_BYTES) != CF_V6_BYTES) {
    int zerr = 0;
    const char *msg = gzerror(w->gz, &zerr);
    return cf_error_set(err, CF_ERR_IO, "chunks: writing %s failed: %s", w->tmp,
                        zerr == Z_ERRNO ? strerror(errno) : msg);
  }
  return CF_OK;
}

cf_status cf_chunk_writer_close(cf_chunk_writer *w, cf_error *err) {
  const int rc = gzclose(w->gz);
  cf_status st = CF_OK;
  if (rc != Z_OK)
    st = cf_error_set(err, CF_ERR_IO, "chunks: closing %s failed (%s)", w->tmp,
                      rc == Z_ERRNO ? strerror(errno) : "zlib error");
  else if (rename(w->tmp, w->path) != 0)
    st = cf_error_set(err, CF_ERR_IO, "chunks: cannot rename %s to %s: %s", w->tmp, w->path,
                      strerror(errno));
  if (st != CF_OK) remove(w->tmp);
  free(w);
  return st;
}

void cf_chunk_writer_abort(cf_chunk_writer *w) {
  if (!w) return;
  gzclose(w->gz);
  remove(w->tmp);
  free(w);
}

/* Reads up to n bytes; returns how many, or -1 with err set. */
static long read_some(gzFile gz, const char *path, uint8_t *buf, long n, cf_error *err) {
  long got = 0;
  while (got < n) {
    const int k = gzread(gz, buf + got, (unsigned)(n - got));
    if (k < 0) {
      int zerr = 0;
      const char *msg = gzerror(gz, &zerr);
      cf_error_set(err, CF_ERR_FORMAT, "%s: not a whole gzip file (%s)", path,
                   zerr == Z_ERRNO ? strerror(errno) : msg);
      return -1;
    }
    if (k == 0) break;
    got += k;
  }
  /* zlib reports a stream cut short only as the end of the data, with
   * Z_BUF_ERROR left behind. */
  int zerr = 0;
  gzerror(gz, &zerr);
  if (got < n && zerr == Z_BUF_ERROR) {
    cf_error_set(err, CF_ERR_FORMAT, "%s: truncated (the gzip stream ends early)", path);
    return -1;
  }
  return got;
}

cf_status cf_chunk_read(const char *path, cf_chunk_record_fn fn, void *ctx, long *count,
                        cf_error *err) {
  if (count) *count = 0;
  gzFile gz = gzopen(path, "rb");
  if (!gz)
    return cf_error_set(err, CF_ERR_IO, "%s: cannot open: %s", path,
                        errno ? strerror(errno) : "out of memory");
  uint8_t *buf = malloc(CF_V6_BYTES);
  cf_v6 *r = malloc(sizeof *r);
  cf_status st = buf && r ? CF_OK : cf_error_set(err, CF_ERR_NOMEM, "%s: out of memory", path);
  long index = 0;
  while (st == CF_OK) {
    const long got = read_some(gz, path, buf, CF_V6_BYTES, err);
    if (got < 0) st = CF_ERR_FORMAT;
    if (st != CF_OK || got == 0) break;
    /* gzread passes a file that is not gzip through as it is: the test
     * comes after the first read, when zlib has looked at the header. */
    if (index == 0 && gzdirect(gz)) {
      st = cf_error_set(err, CF_ERR_FORMAT, "%s: not a training chunk (not gzip)", path);
      break;
    }
    if (got < CF_V6_BYTES) {
      st = cf_error_set(err, CF_ERR_FORMAT,
                        "%s: truncated: %ld bytes after record %ld, not a whole %d-byte V6 "
                        "record",
                        path, got, index, CF_V6_BYTES);
      break;
    }
    cf_v6_unpack(buf, r);
    if (r->version != CF_V6_VERSION) {
      st = cf_error_set(err, CF_ERR_FORMAT,
                        "%s: record %ld has version %u: not a V6 training chunk", path, index,
                        (unsigned)r->version);
      break;
    }
    st = fn ? fn(ctx, index, r, err) : CF_OK;
    index++;
  }
  if (st == CF_OK && index == 0)
    st = cf_error_set(err, CF_ERR_FORMAT, "%s: empty: no training records", path);
  gzclose(gz);
  free(buf);
  free(r);
  if (count) *count = index;
  return st;
}
