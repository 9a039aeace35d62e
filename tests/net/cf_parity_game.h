/* cf_parity_game.h: a parity case as a real game (chess/ + the engine glue):
 * its position for a net's input format and its legal moves. */
#ifndef CF_PARITY_GAME_H
#define CF_PARITY_GAME_H

#include "chess/cf_game.h"
#include "net/cf_net_position.h"
#include "policy_head/cf_policy_move.h"
#include "tests/net/cf_parity.h"

typedef struct cf_parity_game {
  cf_net_position position;
  int n_moves;
  cf_policy_move moves[CF_PARITY_MAX_MOVES];
  char uci[CF_PARITY_MAX_MOVES][6];   /* standard UCI text (castling e1g1) */
  int move_case[CF_PARITY_MAX_MOVES]; /* index in c->legal, -1 if not expected */
  bool black_to_move;
} cf_parity_game;

/* Plays c's moves from its FEN; false with msg on failure. */
bool cf_parity_game_build(const cf_parity_case *c, int input_format, cf_parity_game *g, char *msg,
                          int msg_size);

#endif /* CF_PARITY_GAME_H */
