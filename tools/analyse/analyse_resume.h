/* analyse_resume.h: where an interrupted `cformer analyse` stopped, read
 * from its own output. Records are written whole and in input order, so
 * the output's complete records are exactly the positions done (JSONL:
 * lines; CSV: lines after the header; annotated PGN: games). A torn last
 * record (the process killed mid-write) is cut off, to be written again. */
#ifndef ANALYSE_RESUME_H
#define ANALYSE_RESUME_H

#include <stdbool.h>
#include <stdio.h>

#include "common/cf_status.h"

typedef enum analyse_output_kind { ANALYSE_OUT_JSONL, ANALYSE_OUT_CSV, ANALYSE_OUT_PGN } analyse_output_kind;

typedef struct analyse_resume_point {
  long records;   /* complete records (JSONL/CSV) or games (PGN) */
  long torn_bytes; /* bytes cut off the end */
  bool has_header; /* CSV: the header line is there */
} analyse_resume_point;

/* Scans path (which must exist), truncates any torn tail, and says what
 * is done. */
cf_status analyse_resume_scan(const char *path, analyse_output_kind kind,
                              analyse_resume_point *out, cf_error *err);

#endif /* ANALYSE_RESUME_H */
