/* cf_net_input.h: the glue between chess/ and net/: a game's positions as
 * the network's input position, and legal moves as policy moves. net/ knows
 * nothing of chess/; this is the one place that knows both. */
#ifndef CF_NET_INPUT_H
#define CF_NET_INPUT_H

#include "chess/cf_game.h"
#include "chess/cf_move.h"
#include "chess/cf_position.h"
#include "net/cf_net_position.h"
#include "policy_head/cf_policy_move.h"

/* Ply k of game as the net's board (repetitions, and the en-passant file as
 * Lc0 records it: after a double step, when an enemy pawn stands beside the
 * pawn; for the game's first position, the FEN's square as kept by chess/). */
void cf_engine_net_board(const cf_game *game, int k, cf_net_board *out);

/* The current position of game with the history its input format needs
 * (walks the game back through cf_net_position_push). */
void cf_engine_net_position(const cf_game *game, int input_format, cf_net_position *out);

/* The same for a game that is only a window of a longer one (training data
 * keeps the last plies of each game): the window's first board counts as
 * the game's start only when start_is_real is nonzero. */
void cf_engine_net_position_window(const cf_game *game, int input_format, int start_is_real,
                                   cf_net_position *out);

/* A chess move as the policy head's move (king-takes-rook castling is what
 * both use). */
cf_policy_move cf_engine_policy_move(cf_move m);

/* The legal moves of pos: moves[] (may be NULL) and the same as policy
 * moves in out[] (CF_MAX_MOVES entries). Returns the count. */
int cf_engine_legal_policy_moves(const cf_position *pos, cf_move *moves, cf_policy_move *out);

#endif /* CF_NET_INPUT_H */
