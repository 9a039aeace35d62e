/* line_reader.h: lines from a file descriptor, with a way to ask whether
 * the next line is there without waiting. `cformer eval` uses it to answer
 * each line as soon as no further input is ready (a pipe kept open by a
 * program that waits for the answer) while still batching lines that are
 * ready together (a file, a burst on a pipe). stdio's getline cannot tell
 * what its buffer holds, hence this. */
#ifndef LINE_READER_H
#define LINE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct line_reader {
  int fd;
  char *buf;
  size_t start, end, cap; /* unread bytes are buf[start..end) */
  bool eof;               /* read() said end of input (or failed) */
  int error;              /* errno of a failed read, else 0 */
} line_reader;

void line_reader_init(line_reader *r, int fd);

/* Whether line_reader_next would return without waiting: a whole line is
 * buffered, or the input has ended. Reads what the descriptor has ready
 * (never blocks). */
bool line_reader_ready(line_reader *r);

/* The next line, without its newline, NUL-terminated; valid until the next
 * call. Its length (a line may hold NUL bytes), or -1 at the end of input
 * (a last line without a newline is still a line). Blocks until a line is
 * there; -1 with r->error set on a read error or when out of memory. */
ssize_t line_reader_next(line_reader *r, char **line);

void line_reader_free(line_reader *r);

#endif /* LINE_READER_H */
