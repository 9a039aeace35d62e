/* line_reader.c: see line_reader.h. */
#include "tools/eval/line_reader.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void line_reader_init(line_reader *r, int fd) { *r = (line_reader){.fd = fd}; }

static bool has_line(const line_reader *r) {
  return r->end > r->start && memchr(r->buf + r->start, '\n', r->end - r->start) != NULL;
}

/* One read() into the buffer (grown as needed); false at the end or on an
 * error (then r->eof is set). */
static bool fill(line_reader *r) {
  if (r->start > 0) { /* keep the unread part at the front */
    memmove(r->buf, r->buf + r->start, r->end - r->start);
    r->end -= r->start;
    r->start = 0;
  }
  if (r->cap - r->end < 4096) {
    size_t cap = r->cap ? 2 * r->cap : 65536;
    char *grown = realloc(r->buf, cap);
    if (!grown) {
      r->error = ENOMEM;
      r->eof = true;
      return false;
    }
    r->buf = grown;
    r->cap = cap;
  }
  ssize_t n;
  do n = read(r->fd, r->buf + r->end, r->cap - r->end - 1);
  while (n < 0 && errno == EINTR);
  if (n <= 0) {
    if (n < 0) r->error = errno;
    r->eof = true;
    return false;
  }
  r->end += (size_t)n;
  return true;
}

bool line_reader_ready(line_reader *r) {
  for (;;) {
    if (r->eof || has_line(r)) return true;
    struct pollfd p = {.fd = r->fd, .events = POLLIN};
    int n = poll(&p, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false; /* nothing ready (or poll failed: then reading will say) */
    fill(r); /* readable: read() returns at once (data, end or error) */
  }
}

ssize_t line_reader_next(line_reader *r, char **line) {
  while (!has_line(r) && !r->eof) fill(r);
  if (r->start == r->end && (r->eof || r->error)) return -1;
  if (r->error && !has_line(r)) return -1;
  char *start = r->buf + r->start;
  char *nl = memchr(start, '\n', r->end - r->start);
  size_t len = nl ? (size_t)(nl - start) : r->end - r->start;
  start[len] = 0; /* the newline's place, or the spare byte fill() keeps */
  r->start += nl ? len + 1 : len;
  *line = start;
  return (ssize_t)len;
}

void line_reader_free(line_reader *r) {
  free(r->buf);
  *r = (line_reader){.fd = -1};
}
