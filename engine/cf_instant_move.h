/* cf_instant_move.h: a move chosen without the network, in microseconds,
 * for a clock too short to pay for one evaluation (time trouble).
 *
 * A two-ply material look-ahead: a move that mates at once wins outright;
 * otherwise each move is scored by the material it wins minus the most the
 * opponent can take back with one capture or promotion in reply
 * (stalemating the opponent scores as a draw), and ties go to the move that
 * brings a piece nearest the centre. It never hangs a queen to a one-move
 * capture when another move avoids it, takes free material, and plays a
 * mate in one: enough not to collapse while the clock is all but gone. */
#ifndef CF_INSTANT_MOVE_H
#define CF_INSTANT_MOVE_H

#include "chess/cf_move.h"
#include "chess/cf_position.h"

/* The move to play in pos, or CF_MOVE_NONE when pos has no legal move.
 * Deterministic: the same position always gives the same move. */
cf_move cf_instant_move(const cf_position *pos);

#endif /* CF_INSTANT_MOVE_H */
