/* analyse_lines.h: lines of an analyse_source in bounded memory. A line
 * longer than ANALYSE_LINE_MAX is cut there and flagged (its rest is read
 * and dropped), so a 10 MB line costs no more memory than a short one. */
#ifndef ANALYSE_LINES_H
#define ANALYSE_LINES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/cf_status.h"
#include "tools/analyse/analyse_source.h"

#define ANALYSE_LINE_MAX (256 * 1024)

typedef struct analyse_lines {
  analyse_source *src;
  char *buf;              /* ANALYSE_LINE_MAX + 1 bytes: the current line */
  char chunk[64 * 1024];  /* decompressed bytes not yet split */
  size_t chunk_at, chunk_end;
  bool eof;
  long line;              /* number of the line last returned (1-based) */
} analyse_lines;

cf_status analyse_lines_init(analyse_lines *r, analyse_source *src, cf_error *err);

/* The next line without its newline (and without a '\r' before it),
 * NUL-terminated, in *line; its length in *len (it may hold NUL bytes).
 * *overlong: it was longer than ANALYSE_LINE_MAX and has been cut.
 * Returns 1 for a line, 0 at the end, -1 on a read error (err). */
int analyse_lines_next(analyse_lines *r, const char **line, size_t *len, bool *overlong,
                       cf_error *err);

void analyse_lines_free(analyse_lines *r);

#endif /* ANALYSE_LINES_H */
