/* cf_bitboard.h: squares, colours, pieces and 64-bit square sets.
 *
 * Square index s = 8 * rank + file with a1 = 0, b1 = 1, ..., h8 = 63, so bit s
 * of a cf_bb is square s. This is the layout Lc0's input planes use (plane
 * bit t = token t = square t), which lets net/ read our bitboards as they are. */
#ifndef CF_BITBOARD_H
#define CF_BITBOARD_H

#include <stdint.h>

typedef uint64_t cf_bb;

typedef enum cf_color { CF_WHITE = 0, CF_BLACK = 1, CF_COLOR_COUNT = 2 } cf_color;

typedef enum cf_piece_type {
  CF_PAWN = 0,
  CF_KNIGHT,
  CF_BISHOP,
  CF_ROOK,
  CF_QUEEN,
  CF_KING,
  CF_PIECE_TYPE_COUNT
} cf_piece_type;

/* A piece on the mailbox board: 0 is an empty square, otherwise
 * (color << 3) | (type + 1), so white pawn..king = 1..6, black = 9..14.
 * Zero meaning "empty" makes a zeroed board a valid empty board. */
typedef uint8_t cf_piece;
#define CF_NO_PIECE ((cf_piece)0)
#define CF_PIECE_CODE_COUNT 16

#define CF_NO_SQUARE (-1)

static inline cf_piece cf_piece_make(cf_color c, cf_piece_type t) {
  return (cf_piece)(((unsigned)c << 3) | ((unsigned)t + 1));
}
static inline cf_piece_type cf_piece_type_of(cf_piece p) { return (cf_piece_type)((p & 7) - 1); }
static inline cf_color cf_piece_color(cf_piece p) { return (cf_color)(p >> 3); }

static inline int cf_square(int file, int rank) { return 8 * rank + file; }
static inline int cf_square_file(int s) { return s & 7; }
static inline int cf_square_rank(int s) { return s >> 3; }
/* The same square seen from the other side (a1 <-> a8). */
static inline int cf_square_mirror(int s) { return s ^ 56; }

static inline cf_bb cf_bb_of(int s) { return (cf_bb)1 << s; }
static inline int cf_bb_has(cf_bb b, int s) { return (int)((b >> s) & 1); }
static inline int cf_bb_count(cf_bb b) { return __builtin_popcountll(b); }
/* Lowest set square; b must not be empty. */
static inline int cf_bb_first(cf_bb b) { return __builtin_ctzll(b); }
/* Removes and returns the lowest set square; *b must not be empty. */
static inline int cf_bb_pop(cf_bb *b) {
  int s = __builtin_ctzll(*b);
  *b &= *b - 1;
  return s;
}
static inline int cf_bb_several(cf_bb b) { return (b & (b - 1)) != 0; }

#define CF_BB_FILE_A ((cf_bb)0x0101010101010101ULL)
#define CF_BB_FILE_H (CF_BB_FILE_A << 7)
#define CF_BB_RANK_1 ((cf_bb)0xFFULL)
#define CF_BB_RANK(r) (CF_BB_RANK_1 << (8 * (r)))
#define CF_BB_FILE(f) (CF_BB_FILE_A << (f))
#define CF_BB_LIGHT_SQUARES ((cf_bb)0x55AA55AA55AA55AAULL)
#define CF_BB_DARK_SQUARES (~CF_BB_LIGHT_SQUARES)

/* One step towards the opponent's side for colour c (white: +8 ranks). */
static inline cf_bb cf_bb_forward(cf_bb b, cf_color c) { return c == CF_WHITE ? b << 8 : b >> 8; }

#endif /* CF_BITBOARD_H */
