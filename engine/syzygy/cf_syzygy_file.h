/* cf_syzygy_file.h: checks one Syzygy table file before the prober maps it.
 *
 * Fathom reads a table through offsets computed from its header and trusts
 * them, so a short or damaged file would be read past its end. What can be
 * checked without decoding the table is checked here: the name is a Syzygy
 * material signature the prober reads (at most CF_SYZYGY_MAX_PIECES pieces),
 * the file is readable and not empty, it starts with the format's magic
 * number, its size has the form 64 k + 16 that every complete table has (the
 * check Stockfish and Fathom make), and its header's flags and piece list
 * describe the material the name says. Damage inside the compressed data of
 * a file whose header and length are intact is not detected (no prober
 * checks that; the tables carry no checksum). */
#ifndef CF_SYZYGY_FILE_H
#define CF_SYZYGY_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/cf_status.h"

/* Bytes of a file's start that cf_syzygy_check_bytes looks at (at most). */
#define CF_SYZYGY_HEADER_BYTES 256

typedef enum cf_syzygy_kind { CF_SYZYGY_WDL = 0, CF_SYZYGY_DTZ = 1 } cf_syzygy_kind;

/* Material named by a table file, e.g. "KRvKP": count[side][piece] with
 * side 0 the side before the 'v' and piece 0..5 = P N B R Q K. */
typedef struct cf_syzygy_material {
  int count[2][6];
  int pieces;    /* all pieces, kings included */
  int has_pawns;
} cf_syzygy_material;

/* Parses a table file's name ("KRvKP.rtbw"). Sets *kind from the suffix.
 * CF_ERR_FORMAT for a name that is no Syzygy table, CF_ERR_UNSUPPORTED for
 * one with more pieces than the prober reads. */
cf_status cf_syzygy_parse_name(const char *name, cf_syzygy_material *mat, cf_syzygy_kind *kind,
                               cf_error *err);

/* Whether a directory entry's name ends like a table file (.rtbw, .rtbz). */
int cf_syzygy_is_table_name(const char *name);

/* Checks a table's first `len` bytes (len = min(file size,
 * CF_SYZYGY_HEADER_BYTES)) and its total size against its material. Pure:
 * no I/O, any bytes accepted (the fuzz target feeds it garbage). */
cf_status cf_syzygy_check_bytes(const uint8_t *head, size_t len, uint64_t file_size,
                                const cf_syzygy_material *mat, cf_syzygy_kind kind, cf_error *err);

/* Opens, reads the start of and checks the table file at `path` whose name
 * is `name`; the message names the file. */
cf_status cf_syzygy_check_file(const char *path, const char *name, cf_syzygy_material *mat,
                               cf_syzygy_kind *kind, cf_error *err);

#endif /* CF_SYZYGY_FILE_H */
