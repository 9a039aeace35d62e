/* cf_weights_load.c: the reader's entry points: a file or memory ->
 * payload (gzip inflated within a size limit) -> cf_weights
 * (cf_weights_message.c).
 *
 * Memory plan (peak RSS must stay well under 2.5x the decoded float32 size):
 * the compressed file is streamed through zlib in 1 MiB chunks, never held
 * whole; the decompressed payload lives only until protobuf-c has unpacked
 * it; then each tensor is decoded to float32 and its protobuf-c copy freed at
 * once. The peak is therefore payload + unpacked copies (2x the stored size)
 * or decoded floats + what is left of the copies, whichever is larger. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "weights/cf_weights_internal.h"

uint64_t cf_weights_max_payload(const cf_weights_load_options *opts, uint64_t source_size) {
  if (opts && opts->max_decompressed_bytes) return opts->max_decompressed_bytes;
  uint64_t limit = source_size > CF_WEIGHTS_AUTO_MAX / CF_WEIGHTS_AUTO_RATIO
                       ? CF_WEIGHTS_AUTO_MAX
                       : source_size * CF_WEIGHTS_AUTO_RATIO;
  return limit < CF_WEIGHTS_AUTO_MIN ? CF_WEIGHTS_AUTO_MIN : limit;
}

cf_status cf_weights_parse_max_mb(const char *text, const char *limit_name,
                                  cf_weights_load_options *opts, cf_error *err) {
  char *end;
  errno = 0;
  long long mb = text ? strtoll(text, &end, 10) : -1;
  if (!text || !*text || *end || errno || text[0] < '0' || text[0] > '9' || mb < 0 ||
      mb > CF_WEIGHTS_MAX_MB_LIMIT)
    return cf_error_set(err, CF_ERR_ARG, "%s: bad value '%s' (expected MiB, 0 = automatic, to %d)",
                        limit_name, text ? text : "", CF_WEIGHTS_MAX_MB_LIMIT);
  opts->max_decompressed_bytes = (uint64_t)mb << 20;
  opts->limit_name = limit_name;
  return CF_OK;
}

/* Completes the message of a payload over the limit: how the limit was
 * chosen and how the user raises it (opts->limit_name). */
static cf_status over_limit(cf_error *err, const cf_weights_load_options *opts,
                            uint64_t source_size, bool gzip) {
  char why[160];
  /* Only the automatic rule suspects a bomb; a set limit was a choice. */
  const bool bomb = gzip && !(opts && opts->max_decompressed_bytes);
  if (opts && opts->max_decompressed_bytes)
    snprintf(why, sizeof why, " (as set)");
  else
    snprintf(why, sizeof why, " (automatic: %u times the %llu-byte file, at least %llu MiB)%s",
             CF_WEIGHTS_AUTO_RATIO, (unsigned long long)source_size,
             (unsigned long long)(CF_WEIGHTS_AUTO_MIN >> 20),
             bomb ? ": a decompression bomb?" : "");
  const char *name = opts ? opts->limit_name : NULL;
  char msg[CF_ERROR_MSG_MAX];
  snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
  if (!name) return cf_error_set(err, CF_ERR_NOMEM, "%s%s", msg, why);
  return cf_error_set(err, CF_ERR_NOMEM, "%s%s%s the limit with %s to load it%s", msg, why,
                      bomb ? " Raise" : "; raise", name, bomb ? " anyway" : "");
}

static cf_status too_big(cf_error *err, const cf_weights_load_options *opts, uint64_t size,
                         uint64_t limit) {
  cf_error_set(err, CF_ERR_NOMEM,
               "uncompressed payload of %llu bytes exceeds the limit of %llu bytes",
               (unsigned long long)size, (unsigned long long)limit);
  return over_limit(err, opts, size, false);
}

/* Inflates src within the limit for its size and parses the payload. */
static cf_status load_gzip(cf_byte_source *src, uint64_t source_size,
                           const cf_weights_load_options *opts, cf_weights **out, cf_error *err) {
  uint8_t *payload;
  size_t len;
  bool over = false;
  cf_status st = cf_gunzip(src, cf_weights_max_payload(opts, source_size), &payload, &len, &over,
                           err);
  if (over) return over_limit(err, opts, source_size, true);
  if (st != CF_OK) return st;
  return cf_weights_parse_payload(payload, len, true, true, out, err);
}

static cf_status load_memory(const void *data, size_t size, const cf_weights_load_options *opts,
                             cf_weights **out, cf_error *err) {
  const uint8_t *p = data;
  if (size >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
    cf_byte_source src = {.mem = p, .mem_size = size};
    return load_gzip(&src, size, opts, out, err);
  }
  const uint64_t limit = cf_weights_max_payload(opts, size);
  if (size > limit) return too_big(err, opts, size, limit);
  return cf_weights_parse_payload((uint8_t *)(uintptr_t)p, size, false, false, out, err);
}

cf_status cf_weights_load_memory(const void *data, size_t size, const char *name,
                                 const cf_weights_load_options *opts, cf_weights **out,
                                 cf_error *err) {
  if (!out) return cf_error_set(err, CF_ERR_ARG, "cf_weights_load_memory: out is NULL");
  *out = NULL;
  if (!data && size)
    return cf_error_set(err, CF_ERR_ARG, "cf_weights_load_memory: data is NULL");
  cf_status st = load_memory(size ? data : "", size, opts, out, err);
  if (st != CF_OK) cf_error_prefix(err, "%s", name ? name : "(memory)");
  return st;
}

static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "of an unknown kind";
}

static cf_status not_regular(cf_error *err, mode_t mode) {
  return cf_error_set(err, CF_ERR_IO, "is %s, not a regular file", file_kind(mode));
}

/* Opens path for reading only if it is a regular file. Anything else is
 * refused before a read that could block or eat someone else's input:
 * opening a FIFO waits for a writer, /dev/stdin or a terminal would take
 * the engine's own UCI input, a device may never end. stat() decides before
 * anything is opened (opening some devices has effects); O_NONBLOCK and
 * fstat() on the descriptor catch a path swapped for a FIFO in between. */
static cf_status open_regular(const char *path, FILE **out, uint64_t *size, cf_error *err) {
  struct stat sb;
  if (stat(path, &sb) != 0) return cf_error_set(err, CF_ERR_IO, "cannot open: %s", strerror(errno));
  if (!S_ISREG(sb.st_mode)) return not_regular(err, sb.st_mode);
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return cf_error_set(err, CF_ERR_IO, "cannot open: %s", strerror(errno));
  cf_status st = CF_OK;
  int flags;
  if (fstat(fd, &sb) != 0)
    st = cf_error_set(err, CF_ERR_IO, "cannot stat: %s", strerror(errno));
  else if (!S_ISREG(sb.st_mode))
    st = not_regular(err, sb.st_mode);
  /* A regular file ignores O_NONBLOCK; it is dropped so stdio sees an
   * ordinary descriptor. */
  else if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
    st = cf_error_set(err, CF_ERR_IO, "cannot open: %s", strerror(errno));
  FILE *f = st == CF_OK ? fdopen(fd, "rb") : NULL;
  if (st == CF_OK && !f) st = cf_error_set(err, CF_ERR_IO, "cannot open: %s", strerror(errno));
  if (st != CF_OK) {
    close(fd);
    return st;
  }
  *out = f;
  *size = (uint64_t)sb.st_size;
  return CF_OK;
}

static cf_status load_file(FILE *f, uint64_t size, const cf_weights_load_options *opts,
                           cf_weights **out, cf_error *err) {
  uint8_t head[2];
  size_t got = fread(head, 1, 2, f);
  if (got < 2 && ferror(f)) return cf_error_set(err, CF_ERR_IO, "read error: %s", strerror(errno));
  if (got == 0) return cf_error_set(err, CF_ERR_FORMAT, "empty file");
  if (fseek(f, 0, SEEK_SET) != 0)
    return cf_error_set(err, CF_ERR_IO, "cannot seek: %s", strerror(errno));
  if (got == 2 && head[0] == 0x1f && head[1] == 0x8b) {
    cf_byte_source src = {.file = f, .file_size = size};
    return load_gzip(&src, size, opts, out, err);
  }
  const uint64_t limit = cf_weights_max_payload(opts, size);
  if (size > limit) return too_big(err, opts, size, limit);
  uint8_t *buf = malloc(size ? (size_t)size : 1);
  if (!buf)
    return cf_error_set(err, CF_ERR_NOMEM, "cannot allocate %llu bytes", (unsigned long long)size);
  size_t n = fread(buf, 1, (size_t)size, f);
  if (n != size) {
    free(buf);
    return cf_error_set(err, CF_ERR_IO, "read error after %zu of %llu bytes", n,
                        (unsigned long long)size);
  }
  return cf_weights_parse_payload(buf, (size_t)size, true, false, out, err);
}

cf_status cf_weights_load_file(const char *path, const cf_weights_load_options *opts,
                               cf_weights **out, cf_error *err) {
  if (!out) return cf_error_set(err, CF_ERR_ARG, "cf_weights_load_file: out is NULL");
  *out = NULL;
  if (!path) return cf_error_set(err, CF_ERR_ARG, "cf_weights_load_file: path is NULL");
  FILE *f = NULL;
  uint64_t size = 0;
  cf_status st = open_regular(path, &f, &size, err);
  if (st == CF_OK) {
    st = load_file(f, size, opts, out, err);
    fclose(f);
  }
  if (st != CF_OK) cf_error_prefix(err, "%s", path);
  return st;
}
