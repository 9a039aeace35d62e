/* cf_chunk_file.h: training chunk files: one gzip file of V6 records per
 * game, as Lc0's TrainingDataWriter writes them.
 *
 * Writing: the records go to a hidden temporary name in the directory and
 * the file takes its real name (training.<game>.gz, the game number padded
 * to six digits) only once it is complete and closed, so a run that stops
 * at any moment leaves only whole chunks under real names (a killed run's
 * temporary file is left behind and never read as a chunk).
 *
 * Reading: a file that is not gzip, a gzip stream cut short, a length that
 * is not a whole number of records, or a record whose version is not 6 is
 * refused with the file's name and what is wrong. */
#ifndef CF_CHUNK_FILE_H
#define CF_CHUNK_FILE_H

#include <stddef.h>

#include "common/cf_status.h"
#include "tools/chunks/cf_v6.h"

/* The chunk's name for game number game: "training.000042.gz". */
void cf_chunk_name(long game, char *out, size_t size);

typedef struct cf_chunk_writer cf_chunk_writer;

/* Opens the temporary file of game's chunk in dir. */
cf_status cf_chunk_writer_open(const char *dir, long game, cf_chunk_writer **out, cf_error *err);
cf_status cf_chunk_writer_add(cf_chunk_writer *w, const cf_v6 *r, cf_error *err);
/* Closes the file and gives it its real name; frees w (also on error, when
 * the temporary file is removed). */
cf_status cf_chunk_writer_close(cf_chunk_writer *w, cf_error *err);
/* Drops an unfinished chunk: the temporary file is removed; frees w. */
void cf_chunk_writer_abort(cf_chunk_writer *w);

/* Called for each record of a file in order (index from 0); a status other
 * than CF_OK stops the reading and is returned. */
typedef cf_status (*cf_chunk_record_fn)(void *ctx, long index, const cf_v6 *r, cf_error *err);

/* Reads every record of the chunk at path; *count (may be NULL) gets how
 * many were read. */
cf_status cf_chunk_read(const char *path, cf_chunk_record_fn fn, void *ctx, long *count,
                        cf_error *err);

#endif /* CF_CHUNK_FILE_H */
