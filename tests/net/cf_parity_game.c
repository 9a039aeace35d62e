/* cf_parity_game.c: parity cases replayed with chess/. */
#include "tests/net/cf_parity_game.h"

#include <stdio.h>

#include "chess/cf_move_uci.h"
#include "engine/cf_net_input.h"

bool cf_parity_game_build(const cf_parity_case *c, int input_format, cf_parity_game *g, char *msg,
                          int msg_size) {
  cf_game game;
  cf_error err = {0};
  if (cf_game_init_fen(&game, c->fen, &err) != CF_OK) {
    snprintf(msg, (size_t)msg_size, "%s: %s", c->id, err.msg);
    return false;
  }
  for (int i = 0; i < c->n_played; i++)
    if (cf_game_push_uci(&game, c->played[i], &err) != CF_OK) {
      snprintf(msg, (size_t)msg_size, "%s: %s", c->id, err.msg);
      cf_game_free(&game);
      return false;
    }
  cf_engine_net_position(&game, input_format, &g->position);
  const cf_position *pos = cf_game_position(&game);
  cf_move moves[CF_MAX_MOVES];
  g->n_moves = cf_engine_legal_policy_moves(pos, moves, g->moves);
  g->black_to_move = pos->side == CF_BLACK;
  for (int i = 0; i < g->n_moves; i++) {
    cf_move_write_uci(moves[i], pos->chess960, g->uci[i]);
    g->move_case[i] = cf_parity_find_move(c, g->uci[i]);
  }
  cf_game_free(&game);
  return true;
}
