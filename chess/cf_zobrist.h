/* cf_zobrist.h: the random keys whose XOR identifies a position.
 *
 * key = XOR of piece[code][square] for every piece, side if black is to
 * move, castling[rights] and ep_file[file] when an en-passant capture is
 * legal. Two positions with equal keys are almost surely the same position in
 * the sense of the repetition rule (same pieces, mover, rights and ep). */
#ifndef CF_ZOBRIST_H
#define CF_ZOBRIST_H

#include <stdint.h>

#include "chess/cf_bitboard.h"

typedef struct cf_zobrist_keys {
  uint64_t piece[CF_PIECE_CODE_COUNT][64];
  uint64_t side;
  uint64_t castling[16];
  uint64_t ep_file[8];
} cf_zobrist_keys;

/* Valid after cf_chess_init(); read-only. */
extern cf_zobrist_keys cf_zobrist;

#endif /* CF_ZOBRIST_H */
