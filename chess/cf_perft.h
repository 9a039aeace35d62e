/* cf_perft.h: counts the leaf nodes of the legal move tree to a depth.
 *
 * The standard test of a move generator: the counts for well-known
 * positions are published, and any bug in move generation or make/unmake
 * changes them. Also the move generator's speed benchmark. */
#ifndef CF_PERFT_H
#define CF_PERFT_H

#include <stdint.h>

#include "chess/cf_move.h"
#include "chess/cf_position.h"

/* Leaf nodes at `depth` plies below pos (1 for depth <= 0). pos is used as
 * scratch and restored before returning. The last ply is counted from the
 * generated move list without being played ("bulk counting"), the usual
 * practice, which the published counts do not depend on. */
uint64_t cf_perft(cf_position *pos, int depth);

/* Divide: fills moves with the legal moves of pos and counts[i] with the
 * perft(depth - 1) below moves->moves[i]; returns the total. Used to find
 * which move's subtree disagrees with another program's. */
uint64_t cf_perft_divide(cf_position *pos, int depth, cf_movelist *moves, uint64_t counts[CF_MAX_MOVES]);

#endif /* CF_PERFT_H */
