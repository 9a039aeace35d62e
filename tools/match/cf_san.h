/* cf_san.h: Standard Algebraic Notation for PGN ("Nf3", "exd5", "O-O",
 * "e8=Q+", "Qh4#"). */
#ifndef CF_SAN_H
#define CF_SAN_H

#include "chess/cf_move.h"
#include "chess/cf_position.h"

#define CF_SAN_MAX 12

/* m must be legal in pos. */
void cf_move_to_san(const cf_position *pos, cf_move m, char out[CF_SAN_MAX]);

#endif /* CF_SAN_H */
