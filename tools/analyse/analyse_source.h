/* analyse_source.h: the bytes of an input file, decompressed on the fly:
 * plain, gzip (.gz, zlib) or Zstandard (.zst, libzstd), told apart by their
 * magic bytes rather than the name, so a misnamed file still reads. "-" is
 * standard input. Memory is a fixed pair of buffers whatever the size. */
#ifndef ANALYSE_SOURCE_H
#define ANALYSE_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/cf_status.h"

typedef struct analyse_source analyse_source;

cf_status analyse_source_open(const char *path, analyse_source **out, cf_error *err);

/* Up to size decompressed bytes into buf: how many, 0 at the end, -1 on a
 * read or decompression error (err says which). */
ssize_t analyse_source_read(analyse_source *s, char *buf, size_t size, cf_error *err);

/* Raw (compressed) bytes consumed so far and the file's size (0 when not
 * known, e.g. a pipe): the progress line's share of the input. */
uint64_t analyse_source_consumed(const analyse_source *s);
uint64_t analyse_source_size(const analyse_source *s);

void analyse_source_close(analyse_source *s);

#endif /* ANALYSE_SOURCE_H */
