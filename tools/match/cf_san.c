/* cf_san.c: SAN with the least disambiguation that is unique (file, then
 * rank, then both) and the check / mate suffix. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "chess/cf_movegen.h"
#include "tools/match/cf_san.h"

static const char piece_letter[] = "PNBRQK";

static void square_name(int s, char *out) {
  out[0] = (char)('a' + cf_square_file(s));
  out[1] = (char)('1' + cf_square_rank(s));
}

void cf_move_to_san(const cf_position *pos, cf_move m, char out[CF_SAN_MAX]) {
  char *p = out;
  int from = cf_move_from(m), to = cf_move_to(m);
  cf_move_kind kind = cf_move_kind_of(m);
  cf_piece_type type = cf_piece_type_of(pos->board[from]);
  if (kind == CF_MOVE_CASTLING) {
    strcpy(p, to > from ? "O-O" : "O-O-O");
    p += strlen(p);
  } else {
    bool capture = pos->board[to] != CF_NO_PIECE || kind == CF_MOVE_EN_PASSANT;
    if (type == CF_PAWN) {
      if (capture) {
        *p++ = (char)('a' + cf_square_file(from));
        *p++ = 'x';
      }
    } else {
      *p++ = piece_letter[type];
      /* Other pieces of the same type that can reach `to`. */
      cf_movelist list;
      cf_generate_legal(pos, &list);
      bool clash = false, same_file = false, same_rank = false;
      for (int i = 0; i < list.count; i++) {
        cf_move o = list.moves[i];
        int f = cf_move_from(o);
        if (o == m || cf_move_to(o) != to || f == from || cf_move_kind_of(o) == CF_MOVE_CASTLING ||
            cf_piece_type_of(pos->board[f]) != type)
          continue;
        clash = true;
        same_file |= cf_square_file(f) == cf_square_file(from);
        same_rank |= cf_square_rank(f) == cf_square_rank(from);
      }
      if (clash) {
        if (!same_file) *p++ = (char)('a' + cf_square_file(from));
        else if (!same_rank) *p++ = (char)('1' + cf_square_rank(from));
        else {
          square_name(from, p);
          p += 2;
        }
      }
      if (capture) *p++ = 'x';
    }
    square_name(to, p);
    p += 2;
    if (kind == CF_MOVE_PROMOTION) {
      *p++ = '=';
      *p++ = piece_letter[cf_move_promotion(m)];
    }
  }
  cf_position next = *pos;
  cf_undo undo;
  cf_position_make(&next, m, &undo);
  if (cf_position_in_check(&next)) {
    cf_movelist replies;
    *p++ = cf_generate_legal(&next, &replies) == 0 ? '#' : '+';
  }
  *p = 0;
}
