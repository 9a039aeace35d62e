/* cf_net_input.c: filling the network's plain position struct from a game. */
#include "engine/cf_net_input.h"

#include <string.h>

#include "chess/cf_movegen.h"

/* chess/ and net/ number the castling rights alike, so they copy as is. */
_Static_assert(CF_CASTLE_WHITE_KINGSIDE == CF_NET_CASTLE_WHITE_KINGSIDE &&
                   CF_CASTLE_WHITE_QUEENSIDE == CF_NET_CASTLE_WHITE_QUEENSIDE &&
                   CF_CASTLE_BLACK_KINGSIDE == CF_NET_CASTLE_BLACK_KINGSIDE &&
                   CF_CASTLE_BLACK_QUEENSIDE == CF_NET_CASTLE_BLACK_QUEENSIDE,
               "castling bits differ between chess/ and net/");

/* File of the pawn that made the double step leading to ply k, if an enemy
 * pawn stands beside it (Lc0's ChessBoard::ApplyMove rule: pins are not
 * considered, unlike chess/'s legal en-passant square); -1 otherwise. */
static int lc0_ep_file(const cf_game *game, int k) {
  const cf_position *pos = &game->plies[k].pos;
  if (k == 0) return pos->ep_square == CF_NO_SQUARE ? -1 : cf_square_file(pos->ep_square);
  cf_move m = game->plies[k].move;
  int from = cf_move_from(m), to = cf_move_to(m);
  cf_color mover = pos->side == CF_WHITE ? CF_BLACK : CF_WHITE; /* who played m */
  if (cf_move_kind_of(m) != CF_MOVE_NORMAL || !cf_bb_has(pos->pieces[mover][CF_PAWN], to) ||
      (to - from != 16 && from - to != 16))
    return -1;
  int file = cf_square_file(to);
  cf_bb beside = 0;
  if (file > 0) beside |= cf_bb_of(to - 1);
  if (file < 7) beside |= cf_bb_of(to + 1);
  return (beside & pos->pieces[pos->side][CF_PAWN]) ? file : -1;
}

void cf_engine_net_board(const cf_game *game, int k, cf_net_board *out) {
  const cf_position *pos = &game->plies[k].pos;
  memset(out, 0, sizeof *out);
  out->white = pos->occupied[CF_WHITE];
  out->black = pos->occupied[CF_BLACK];
  uint64_t *type[CF_PIECE_TYPE_COUNT] = {&out->pawns, &out->knights, &out->bishops,
                                         &out->rooks, &out->queens,  &out->kings};
  for (int t = 0; t < CF_PIECE_TYPE_COUNT; t++)
    *type[t] = pos->pieces[CF_WHITE][t] | pos->pieces[CF_BLACK][t];
  out->black_to_move = pos->side == CF_BLACK;
  out->castling = pos->castling; /* same bit meaning as CF_NET_CASTLE_* */
  for (int c = 0; c < 2; c++)
    for (int queenside = 0; queenside < 2; queenside++) {
      int sq = pos->castle_rook[cf_castle_index((cf_color)c, queenside)];
      out->rook_file[c][queenside ? 0 : 1] =
          (int8_t)(sq == CF_NO_SQUARE ? (queenside ? 0 : 7) : cf_square_file(sq));
    }
  out->ep_file = (int8_t)lc0_ep_file(game, k);
  out->rule50 = pos->rule50;
  out->repetitions = game->plies[k].repetitions;
}

void cf_engine_net_position(const cf_game *game, int input_format, cf_net_position *out) {
  cf_engine_net_position_window(game, input_format, 1, out);
}

void cf_engine_net_position_window(const cf_game *game, int input_format, int start_is_real,
                                   cf_net_position *out) {
  cf_net_board b;
  cf_engine_net_board(game, game->count - 1, &b);
  cf_net_position_init(out, input_format, &b);
  int k = game->count - 2;
  for (; k >= 0; k--) {
    cf_engine_net_board(game, k, &b);
    if (!cf_net_position_push(out, &b)) break;
  }
  if (k < 0 && start_is_real) cf_net_position_mark_start(out);
}

cf_policy_move cf_engine_policy_move(cf_move m) {
  cf_policy_move p = {(uint8_t)cf_move_from(m), (uint8_t)cf_move_to(m), CF_PROMO_NONE};
  if (cf_move_kind_of(m) == CF_MOVE_PROMOTION) {
    switch (cf_move_promotion(m)) {
      case CF_QUEEN: p.promo = CF_PROMO_QUEEN; break;
      case CF_ROOK: p.promo = CF_PROMO_ROOK; break;
      case CF_BISHOP: p.promo = CF_PROMO_BISHOP; break;
      default: p.promo = CF_PROMO_KNIGHT; break;
    }
  }
  return p;
}

int cf_engine_legal_policy_moves(const cf_position *pos, cf_move *moves, cf_policy_move *out) {
  cf_movelist list;
  int n = cf_generate_legal(pos, &list);
  for (int i = 0; i < n; i++) {
    if (moves) moves[i] = list.moves[i];
    out[i] = cf_engine_policy_move(list.moves[i]);
  }
  return n;
}
