/* analyse_lines.c: bounded line splitting (analyse_lines.h). */
#include "tools/analyse/analyse_lines.h"

#include <stdlib.h>
#include <string.h>

cf_status analyse_lines_init(analyse_lines *r, analyse_source *src, cf_error *err) {
  memset(r, 0, sizeof *r);
  r->src = src;
  r->buf = malloc(ANALYSE_LINE_MAX + 1);
  if (!r->buf) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  return CF_OK;
}

int analyse_lines_next(analyse_lines *r, const char **line, size_t *len, bool *overlong,
                       cf_error *err) {
  size_t n = 0;
  bool any = false, cut = false;
  for (;;) {
    if (r->chunk_at == r->chunk_end) {
      if (r->eof) break;
      ssize_t got = analyse_source_read(r->src, r->chunk, sizeof r->chunk, err);
      if (got < 0) return -1;
      r->chunk_at = 0;
      r->chunk_end = (size_t)got;
      if (got == 0) {
        r->eof = true;
        break;
      }
    }
    any = true;
    const char *start = r->chunk + r->chunk_at;
    const size_t avail = r->chunk_end - r->chunk_at;
    const char *nl = memchr(start, '\n', avail);
    const size_t take = nl ? (size_t)(nl - start) : avail;
    size_t keep = take;
    if (n + keep > ANALYSE_LINE_MAX) {
      keep = ANALYSE_LINE_MAX - n;
      cut = true;
    }
    memcpy(r->buf + n, start, keep);
    n += keep;
    r->chunk_at += take + (nl ? 1 : 0);
    if (nl) break;
  }
  if (!any) return 0;
  if (n > 0 && r->buf[n - 1] == '\r' && !cut) n--;
  r->buf[n] = 0;
  r->line++;
  *line = r->buf;
  *len = n;
  *overlong = cut;
  return 1;
}

void analyse_lines_free(analyse_lines *r) {
  free(r->buf);
  r->buf = NULL;
}
