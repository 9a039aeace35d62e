/* analyse_write.h: records as JSON lines or CSV rows (docs/ANALYSE.md has
 * the fields). Numbers are written with 6 significant digits, moves in UCI
 * (castling e1g1, or king takes rook in a Chess960 position), the played
 * move also in SAN. */
#ifndef ANALYSE_WRITE_H
#define ANALYSE_WRITE_H

#include <stdio.h>

#include "tools/analyse/analyse_record.h"

/* The CSV header line (newline included). */
extern const char analyse_csv_header[];

/* One record; source is the file name the record names. */
void analyse_write_jsonl(FILE *out, const char *source, const char *agent,
                         const analyse_record *r);
void analyse_write_csv(FILE *out, const char *source, const char *agent, const analyse_record *r);

#endif /* ANALYSE_WRITE_H */
