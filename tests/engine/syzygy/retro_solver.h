/* retro_solver.h: the tablebase tests' oracle, independent of the prober
 * under test: a retrograde solver for the 3-piece endings K+X v K, written
 * on chess/'s move generator alone.
 *
 * Index = ((wk * 64 + bk) * 64 + x) * 2 + side, for the white king, the
 * black king, white's piece X and the side to move. Each legal position gets
 * its value for the side to move (win, draw, loss) and its distance to mate
 * in plies. Solving runs backwards from the mates, one ply per pass: a
 * position is won at pass k when a move reaches a loss of distance k - 1,
 * lost when every move reaches a win and the longest is k - 1. Captures of X
 * end in a bare-kings draw; a pawn's promotion looks up the solved table of
 * the new piece (a bishop or knight draws). */
#ifndef RETRO_SOLVER_H
#define RETRO_SOLVER_H

#include <stdint.h>

#include "chess/cf_chess.h"

#define RETRO_SIZE (64 * 64 * 64 * 2)

enum { RETRO_ILLEGAL = -9, RETRO_LOSS = -2, RETRO_DRAW = 0, RETRO_WIN = 2 };

typedef struct retro_table {
  cf_piece_type piece;
  int8_t value[RETRO_SIZE];  /* RETRO_* for the side to move */
  uint8_t dist[RETRO_SIZE];  /* plies to mate for wins and losses */
} retro_table;

static inline int retro_index(int wk, int bk, int x, int side) {
  return ((wk * 64 + bk) * 64 + x) * 2 + side;
}

/* Sets up index i as a position; 0 when no legal position has it. */
int retro_position(cf_piece_type piece, int i, cf_position *pos);

/* Solves t->piece's table; a pawn table needs the queen and rook tables
 * solved first (promo[CF_QUEEN], promo[CF_ROOK]; the others may be NULL). */
void retro_solve(retro_table *t, const retro_table *const promo[CF_PIECE_TYPE_COUNT]);

/* The value and distance after move m in pos (a K+X v K position of t), for
 * the side to move after it, from t or the tables it promotes into. */
void retro_after(const retro_table *t, const retro_table *const promo[CF_PIECE_TYPE_COUNT],
                 const cf_position *pos, cf_move m, int *value, int *dist);

#endif /* RETRO_SOLVER_H */
