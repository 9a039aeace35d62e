/* cf_position.h: a chess position and making/unmaking moves on it.
 *
 * The struct is plain data meant to be read directly (net/ copies piece
 * bitboards, side to move, castling rights, en-passant square and rule-50
 * count from it); change it only through the functions here and in
 * cf_fen.h, which keep the redundant fields (mailbox, occupancy, key) in
 * step. Positions are values: copying one with `=` gives an independent
 * position. */
#ifndef CF_POSITION_H
#define CF_POSITION_H

#include <stdint.h>

#include "chess/cf_bitboard.h"
#include "chess/cf_move.h"

/* Castling right i = 2 * colour + (queenside ? 1 : 0); bit (1 << i) of
 * cf_position.castling. */
enum {
  CF_CASTLE_WHITE_KINGSIDE = 1,
  CF_CASTLE_WHITE_QUEENSIDE = 2,
  CF_CASTLE_BLACK_KINGSIDE = 4,
  CF_CASTLE_BLACK_QUEENSIDE = 8
};
static inline int cf_castle_index(cf_color c, int queenside) { return 2 * (int)c + (queenside ? 1 : 0); }

typedef struct cf_position {
  cf_bb pieces[CF_COLOR_COUNT][CF_PIECE_TYPE_COUNT]; /* [colour][pawn..king] */
  cf_bb occupied[CF_COLOR_COUNT];                    /* union of each colour's pieces */
  cf_piece board[64];                                /* mailbox: piece on each square */
  uint64_t key;       /* Zobrist key (cf_zobrist.h) */
  cf_color side;      /* side to move */
  int ep_square;      /* square a pawn may capture onto en passant, or CF_NO_SQUARE; set
                         only when such a capture is legal (the FIDE repetition rule's
                         notion, and what makes equal keys mean equal positions) */
  int double_step_square; /* square skipped by a pawn's double step on the last move,
                         capturable or not (or, from a FEN, its en-passant field as
                         given), else CF_NO_SQUARE. Not part of the position's
                         identity; kept for input encoders that follow Lc0, which
                         records a FEN's field as given and, after a move, a double
                         step next to an enemy pawn. */
  int rule50;         /* half-moves since the last capture or pawn move */
  int fullmove;       /* move number, starting at 1, incremented after black moves */
  uint8_t castling;   /* CF_CASTLE_* bits still held */
  int8_t castle_rook[4]; /* rook square per right (CF_NO_SQUARE when not held):
                            h1/a1/h8/a8 in standard chess, any back-rank file in 960 */
  uint8_t chess960;   /* castling rights use non-standard rook/king files: FEN
                         writes Shredder letters and UCI king-takes-rook */
} cf_position;

/* What cf_position_make changes that unmake cannot recompute. */
typedef struct cf_undo {
  uint64_t key;
  int ep_square;
  int double_step_square;
  int rule50;
  uint8_t castling;
  cf_piece captured;
} cf_undo;


static inline cf_bb cf_position_all(const cf_position *pos) {
  return pos->occupied[CF_WHITE] | pos->occupied[CF_BLACK];
}
static inline int cf_position_king(const cf_position *pos, cf_color c) {
  return cf_bb_first(pos->pieces[c][CF_KING]);
}
static inline int cf_position_can_castle(const cf_position *pos, cf_color c, int queenside) {
  return (pos->castling >> cf_castle_index(c, queenside)) & 1;
}

/* Pieces of colour `by` attacking square s when the board holds `occupied`
 * (pass cf_position_all(pos) for the actual board). */
cf_bb cf_position_attackers(const cf_position *pos, int s, cf_color by, cf_bb occupied);

/* Pieces giving check to the side to move. */
cf_bb cf_position_checkers(const cf_position *pos);
static inline int cf_position_in_check(const cf_position *pos) { return cf_position_checkers(pos) != 0; }

/* Whether the pawn of the side to move on `from` may capture en passant onto
 * pos->ep_square without leaving its king attacked (covers the pawn pinned
 * along the rank by the removal of both pawns, and discovered checks). */
int cf_position_ep_is_legal(const cf_position *pos, int from);

/* Plays m, which must be legal in pos (from cf_generate_legal or
 * cf_move_parse_uci), and records in *undo what cf_position_unmake needs. */
void cf_position_make(cf_position *pos, cf_move m, cf_undo *undo);

/* Takes back m, the last move made with cf_position_make. */
void cf_position_unmake(cf_position *pos, cf_move m, const cf_undo *undo);

/* The Zobrist key computed from scratch (pos->key is kept incrementally). */
uint64_t cf_position_compute_key(const cf_position *pos);

/* Same position for the repetition rule: same pieces on the same squares,
 * side to move, castling rights and en-passant possibility. */
int cf_position_same(const cf_position *a, const cf_position *b);

/* Internal consistency (mailbox vs bitboards, one king each, key): for tests
 * and assertions. */
int cf_position_is_consistent(const cf_position *pos);

#endif /* CF_POSITION_H */
