/* selfplay_openings.h: the openings of --openings-pgn: every game of a PGN
 * file is an opening (its start position and mainline); game n of the run
 * plays opening (n - 1) modulo their count. */
#ifndef SELFPLAY_OPENINGS_H
#define SELFPLAY_OPENINGS_H

#include "chess/cf_move.h"
#include "chess/cf_position.h"
#include "common/cf_status.h"

typedef struct sp_opening {
  cf_position start;
  cf_move *moves; /* owned */
  int n_moves;
} sp_opening;

typedef struct sp_openings {
  sp_opening *items;
  int count;
} sp_openings;

/* Loads every game of path; the first that cannot be read (an illegal or
 * malformed move, a bad FEN tag) stops it, the error naming the file, the
 * game's number and line and, for a move, its number and text. */
cf_status sp_openings_load(const char *path, sp_openings *out, cf_error *err);
void sp_openings_free(sp_openings *o);

#endif /* SELFPLAY_OPENINGS_H */
