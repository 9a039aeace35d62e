/* cf_move.h: a move in 16 bits, and the caller-owned move list.
 *
 * bits 0-5 from square, 6-11 to square, 12-13 kind, 14-15 promotion piece
 * (knight, bishop, rook, queen). Castling is stored king-takes-rook: `to` is
 * the castling rook's square (e1h1, e1a1). That one form covers standard
 * chess and Chess960 and is what Lc0's policy map indexes; the UCI writer
 * turns it into e1g1 for standard games. */
#ifndef CF_MOVE_H
#define CF_MOVE_H

#include <stdint.h>

#include "chess/cf_bitboard.h"

typedef uint16_t cf_move;

/* a1a1 is never a legal move, so 0 can mean "no move". */
#define CF_MOVE_NONE ((cf_move)0)

typedef enum cf_move_kind {
  CF_MOVE_NORMAL = 0,
  CF_MOVE_PROMOTION = 1,
  CF_MOVE_EN_PASSANT = 2,
  CF_MOVE_CASTLING = 3
} cf_move_kind;

static inline cf_move cf_move_make(int from, int to) { return (cf_move)(from | (to << 6)); }
static inline cf_move cf_move_make_kind(int from, int to, cf_move_kind kind) {
  return (cf_move)(from | (to << 6) | ((int)kind << 12));
}
/* promo: CF_KNIGHT..CF_QUEEN. */
static inline cf_move cf_move_make_promotion(int from, int to, cf_piece_type promo) {
  return (cf_move)(from | (to << 6) | (CF_MOVE_PROMOTION << 12) | (((int)promo - CF_KNIGHT) << 14));
}

static inline int cf_move_from(cf_move m) { return m & 63; }
static inline int cf_move_to(cf_move m) { return (m >> 6) & 63; }
static inline cf_move_kind cf_move_kind_of(cf_move m) { return (cf_move_kind)((m >> 12) & 3); }
/* The promotion piece type; meaningful only for CF_MOVE_PROMOTION. */
static inline cf_piece_type cf_move_promotion(cf_move m) {
  return (cf_piece_type)(CF_KNIGHT + ((m >> 14) & 3));
}

/* Where the king of a castling move ends up: g- or c-file of its rank. */
static inline int cf_castling_king_to(cf_move m) {
  int from = cf_move_from(m), rook = cf_move_to(m);
  return cf_square(rook > from ? 6 : 2, cf_square_rank(from));
}
/* Where the rook of a castling move ends up: f- or d-file. */
static inline int cf_castling_rook_to(cf_move m) {
  int from = cf_move_from(m), rook = cf_move_to(m);
  return cf_square(rook > from ? 5 : 3, cf_square_rank(from));
}

/* The most legal moves any position reachable in a game has is 218, and
 * cf_position_from_fen rejects material no game can reach, so 256 always
 * suffices. */
#define CF_MAX_MOVES 256

typedef struct cf_movelist {
  int count;
  cf_move moves[CF_MAX_MOVES];
} cf_movelist;

#endif /* CF_MOVE_H */
