/* cf_openings.h: the openings file: one line of UCI moves from the start
 * position per opening, "#" starts a comment, blank lines are skipped. */
#ifndef CF_OPENINGS_H
#define CF_OPENINGS_H

#include "common/cf_status.h"

typedef struct cf_openings {
  char **lines; /* moves of each opening (owned) */
  char **names; /* the comment after it, or "" (owned) */
  int count;
} cf_openings;

/* Loads and checks every opening (each move legal); the error names the
 * file, the line and the move. */
cf_status cf_openings_load(const char *path, cf_openings *out, cf_error *err);
void cf_openings_free(cf_openings *o);

#endif /* CF_OPENINGS_H */
