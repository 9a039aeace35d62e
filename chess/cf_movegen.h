/* cf_movegen.h: legal move generation.
 *
 * Moves are generated legal directly (checkers, pin rays and attacked king
 * squares are worked out first) rather than generated pseudo-legal and then
 * tried, which is what makes perft and the encoder's legal-move masks cheap.
 * The caller owns the list; nothing is allocated. */
#ifndef CF_MOVEGEN_H
#define CF_MOVEGEN_H

#include "chess/cf_move.h"
#include "chess/cf_position.h"

/* Fills list with every legal move of the side to move and returns the
 * count (0: checkmate or stalemate). Promotions come as four moves (q, r, b,
 * n); castling as king-takes-rook (see cf_move.h). */
int cf_generate_legal(const cf_position *pos, cf_movelist *list);

/* Whether m is one of the legal moves of pos (generates them: not for hot
 * paths). */
int cf_move_is_legal(const cf_position *pos, cf_move m);

#endif /* CF_MOVEGEN_H */
