/* cf_position.c: attacks on a position, make/unmake, keys, comparison. */
#include "chess/cf_position.h"

#include <assert.h>
#include <string.h>

#include "chess/cf_attacks.h"
#include "chess/cf_zobrist.h"

cf_bb cf_position_attackers(const cf_position *pos, int s, cf_color by, cf_bb occupied) {
  const cf_bb *p = pos->pieces[by];
  /* A pawn of `by` attacks s exactly when a pawn of the other colour on s
   * would attack the pawn's square. */
  return (cf_attacks_pawn((cf_color)(by ^ 1), s) & p[CF_PAWN]) |
         (cf_attacks_knight(s) & p[CF_KNIGHT]) | (cf_attacks_king(s) & p[CF_KING]) |
         (cf_attacks_bishop(s, occupied) & (p[CF_BISHOP] | p[CF_QUEEN])) |
         (cf_attacks_rook(s, occupied) & (p[CF_ROOK] | p[CF_QUEEN]));
}

cf_bb cf_position_checkers(const cf_position *pos) {
  return cf_position_attackers(pos, cf_position_king(pos, pos->side), (cf_color)(pos->side ^ 1),
                               cf_position_all(pos));
}

int cf_position_ep_is_legal(const cf_position *pos, int from) {
  cf_color us = pos->side, them = (cf_color)(us ^ 1);
  int to = pos->ep_square;
  int captured = to + (us == CF_WHITE ? -8 : 8);
  /* Play the capture on the occupancy only: both pawns leave their rank at
   * once, which is how a rank pin through two pawns opens. Then every attack
   * on our king, from pieces other than the captured pawn, makes it illegal. */
  cf_bb occupied = (cf_position_all(pos) ^ cf_bb_of(from) ^ cf_bb_of(captured)) | cf_bb_of(to);
  cf_bb attackers = cf_position_attackers(pos, cf_position_king(pos, us), them, occupied);
  return (attackers & ~cf_bb_of(captured)) == 0;
}

/* Board edits. Keys are updated by the caller (make XORs, unmake restores). */
static inline void put_piece(cf_position *pos, cf_piece p, int s) {
  pos->board[s] = p;
  pos->pieces[cf_piece_color(p)][cf_piece_type_of(p)] |= cf_bb_of(s);
  pos->occupied[cf_piece_color(p)] |= cf_bb_of(s);
}

static inline void remove_piece(cf_position *pos, int s) {
  cf_piece p = pos->board[s];
  pos->board[s] = CF_NO_PIECE;
  pos->pieces[cf_piece_color(p)][cf_piece_type_of(p)] ^= cf_bb_of(s);
  pos->occupied[cf_piece_color(p)] ^= cf_bb_of(s);
}

static inline void move_piece(cf_position *pos, int from, int to) {
  cf_piece p = pos->board[from];
  cf_bb both = cf_bb_of(from) | cf_bb_of(to);
  pos->board[from] = CF_NO_PIECE;
  pos->board[to] = p;
  pos->pieces[cf_piece_color(p)][cf_piece_type_of(p)] ^= both;
  pos->occupied[cf_piece_color(p)] ^= both;
}

/* After a double step to `to`, the ep square is kept only when the opponent
 * (now to move) has a pawn that can legally capture onto it. Checking
 * adjacency first keeps the full legality test off the common path. */
static void set_ep_after_double_step(cf_position *pos, int ep) {
  cf_color capturer = pos->side;
  cf_bb capturers = cf_attacks_pawn((cf_color)(capturer ^ 1), ep) & pos->pieces[capturer][CF_PAWN];
  if (!capturers) return;
  pos->ep_square = ep;
  while (capturers) {
    if (cf_position_ep_is_legal(pos, cf_bb_pop(&capturers))) {
      pos->key ^= cf_zobrist.ep_file[cf_square_file(ep)];
      return;
    }
  }
  pos->ep_square = CF_NO_SQUARE;
}

static uint8_t castling_after(const cf_position *pos, int from, int to) {
  uint8_t rights = pos->castling;
  cf_piece moved = pos->board[from];
  if (cf_piece_type_of(moved) == CF_KING) rights &= (uint8_t)~(3u << (2 * cf_piece_color(moved)));
  /* A rook leaving its square, or being captured there, ends that right. */
  for (int i = 0; i < 4; i++)
    if ((rights >> i & 1) && (pos->castle_rook[i] == from || pos->castle_rook[i] == to))
      rights &= (uint8_t)~(1u << i);
  return rights;
}

void cf_position_make(cf_position *pos, cf_move m, cf_undo *undo) {
  const cf_zobrist_keys *z = &cf_zobrist;
  cf_color us = pos->side;
  int from = cf_move_from(m), to = cf_move_to(m);
  cf_move_kind kind = cf_move_kind_of(m);
  cf_piece moved = pos->board[from];
  uint64_t key = pos->key;

  undo->key = pos->key;
  undo->ep_square = pos->ep_square;
  undo->double_step_square = pos->double_step_square;
  undo->rule50 = pos->rule50;
  undo->castling = pos->castling;
  undo->captured = CF_NO_PIECE;

  if (pos->ep_square != CF_NO_SQUARE) {
    key ^= z->ep_file[cf_square_file(pos->ep_square)];
    pos->ep_square = CF_NO_SQUARE;
  }
  pos->double_step_square = CF_NO_SQUARE;
  pos->rule50++;

  if (pos->castling) {
    uint8_t rights = castling_after(pos, from, to);
    if (rights != pos->castling) {
      key ^= z->castling[pos->castling] ^ z->castling[rights];
      pos->castling = rights;
    }
  }

  if (kind == CF_MOVE_CASTLING) {
    int king_to = cf_castling_king_to(m), rook_to = cf_castling_rook_to(m);
    cf_piece rook = pos->board[to];
    /* Lift both first: in Chess960 either may land on the other's square. */
    remove_piece(pos, from);
    remove_piece(pos, to);
    put_piece(pos, moved, king_to);
    put_piece(pos, rook, rook_to);
    key ^= z->piece[moved][from] ^ z->piece[moved][king_to] ^ z->piece[rook][to] ^ z->piece[rook][rook_to];
  } else {
    int captured_on = kind == CF_MOVE_EN_PASSANT ? to + (us == CF_WHITE ? -8 : 8) : to;
    cf_piece captured = pos->board[captured_on];
    if (captured != CF_NO_PIECE) {
      undo->captured = captured;
      remove_piece(pos, captured_on);
      key ^= z->piece[captured][captured_on];
      pos->rule50 = 0;
    }
    move_piece(pos, from, to);
    key ^= z->piece[moved][from] ^ z->piece[moved][to];
    if (cf_piece_type_of(moved) == CF_PAWN) {
      pos->rule50 = 0;
      if (kind == CF_MOVE_PROMOTION) {
        cf_piece promoted = cf_piece_make(us, cf_move_promotion(m));
        remove_piece(pos, to);
        put_piece(pos, promoted, to);
        key ^= z->piece[moved][to] ^ z->piece[promoted][to];
      }
    }
  }

  pos->side = (cf_color)(us ^ 1);
  key ^= z->side;
  if (us == CF_BLACK) pos->fullmove++;
  pos->key = key;

  if (cf_piece_type_of(moved) == CF_PAWN && (to ^ from) == 16) {
    pos->double_step_square = (from + to) / 2;
    set_ep_after_double_step(pos, (from + to) / 2);
  }
}

void cf_position_unmake(cf_position *pos, cf_move m, const cf_undo *undo) {
  cf_color us = (cf_color)(pos->side ^ 1);
  int from = cf_move_from(m), to = cf_move_to(m);
  cf_move_kind kind = cf_move_kind_of(m);

  pos->side = us;
  if (us == CF_BLACK) pos->fullmove--;

  if (kind == CF_MOVE_CASTLING) {
    int king_to = cf_castling_king_to(m), rook_to = cf_castling_rook_to(m);
    cf_piece king = pos->board[king_to], rook = pos->board[rook_to];
    remove_piece(pos, king_to);
    remove_piece(pos, rook_to);
    put_piece(pos, king, from);
    put_piece(pos, rook, to);
  } else {
    if (kind == CF_MOVE_PROMOTION) {
      remove_piece(pos, to);
      put_piece(pos, cf_piece_make(us, CF_PAWN), to);
    }
    move_piece(pos, to, from);
    if (undo->captured != CF_NO_PIECE) {
      int captured_on = kind == CF_MOVE_EN_PASSANT ? to + (us == CF_WHITE ? -8 : 8) : to;
      put_piece(pos, undo->captured, captured_on);
    }
  }

  pos->key = undo->key;
  pos->ep_square = undo->ep_square;
  pos->double_step_square = undo->double_step_square;
  pos->rule50 = undo->rule50;
  pos->castling = undo->castling;
}

uint64_t cf_position_compute_key(const cf_position *pos) {
  uint64_t key = 0;
  for (int s = 0; s < 64; s++) key ^= cf_zobrist.piece[pos->board[s]][s];
  if (pos->side == CF_BLACK) key ^= cf_zobrist.side;
  key ^= cf_zobrist.castling[pos->castling & 15];
  if (pos->ep_square != CF_NO_SQUARE) key ^= cf_zobrist.ep_file[cf_square_file(pos->ep_square)];
  return key;
}

int cf_position_same(const cf_position *a, const cf_position *b) {
  if (a->key != b->key || a->side != b->side || a->castling != b->castling ||
      a->ep_square != b->ep_square)
    return 0;
  for (int i = 0; i < 4; i++)
    if ((a->castling >> i & 1) && a->castle_rook[i] != b->castle_rook[i]) return 0;
  return memcmp(a->pieces, b->pieces, sizeof a->pieces) == 0;
}

int cf_position_is_consistent(const cf_position *pos) {
  cf_bb seen = 0;
  for (int c = 0; c < CF_COLOR_COUNT; c++) {
    cf_bb colour = 0;
    for (int t = 0; t < CF_PIECE_TYPE_COUNT; t++) {
      cf_bb b = pos->pieces[c][t];
      if (b & seen) return 0; /* two pieces on one square */
      seen |= b;
      colour |= b;
      while (b)
        if (pos->board[cf_bb_pop(&b)] != cf_piece_make((cf_color)c, (cf_piece_type)t)) return 0;
    }
    if (colour != pos->occupied[c]) return 0;
    if (cf_bb_count(pos->pieces[c][CF_KING]) != 1) return 0;
  }
  for (int s = 0; s < 64; s++)
    if ((pos->board[s] != CF_NO_PIECE) != cf_bb_has(seen, s)) return 0;
  return pos->key == cf_position_compute_key(pos);
}
