/* cf_net_position.h: a position as the network's input needs it: the board
 * to evaluate plus the older boards of the game that feed the history
 * planes. Plain data in real board coordinates, filled by the engine from
 * chess/ (net/ does not depend on chess/).
 *
 * Which older boards matter depends on the net's input format (NETWORK.md
 * section 3): canonical formats stop at castling changes, en-passant squares
 * and rule-50 resets; canonical v2 keeps only repetitions, possibly far
 * back. So the caller walks its game backwards and offers boards one at a
 * time; the walk below keeps what the format needs and says when to stop:
 *
 *     cf_net_position_init(&pos, net_input_format, &current);
 *     for (older board b, newest first) if (!cf_net_position_push(&pos, &b)) break;
 *     if (the walk ran out of game) cf_net_position_mark_start(&pos);
 */
#ifndef CF_NET_POSITION_H
#define CF_NET_POSITION_H

#include <stdbool.h>
#include <stdint.h>

#define CF_NET_HISTORY 8 /* history slots of the 112-plane input */

/* Castling rights. */
#define CF_NET_CASTLE_WHITE_KINGSIDE 1
#define CF_NET_CASTLE_WHITE_QUEENSIDE 2
#define CF_NET_CASTLE_BLACK_KINGSIDE 4
#define CF_NET_CASTLE_BLACK_QUEENSIDE 8

typedef struct cf_net_board {
  uint64_t white, black; /* occupancy by colour; bit s = square s, a1 = 0, h8 = 63 */
  uint64_t pawns, knights, bishops, rooks, queens, kings; /* by piece type, both colours */
  bool black_to_move;
  uint8_t castling; /* CF_NET_CASTLE_* rights still held */
  /* Files of the castling rooks, [white, black][queenside, kingside]:
   * {0, 7} in standard chess (Chess960 differs). */
  int8_t rook_file[2][2];
  /* File of a pawn that has just made a double step, when an enemy pawn
   * stands beside it (Lc0 records no en-passant square otherwise; a FEN's
   * en-passant field is kept as given); -1 if none. */
  int8_t ep_file;
  int rule50;      /* plies since the last capture or pawn move */
  int repetitions; /* earlier occurrences of this position in the game */
} cf_net_board;

typedef struct cf_net_position {
  int input_format;                    /* the net's NetworkFormat.input */
  cf_net_board boards[CF_NET_HISTORY]; /* [0] to evaluate, then the older boards kept */
  int count;                           /* boards kept, 1..8 */
  bool walk_done;                      /* the walk wants no older boards */
  bool game_start;                     /* boards[count-1] is the game's first position */
} cf_net_position;

/* Starts a position for a net with this input format. */
void cf_net_position_init(cf_net_position *p, int input_format, const cf_net_board *current);

/* Offers the next older board of the game (one ply before the previous
 * offer). Returns false once the walk needs nothing older. */
bool cf_net_position_push(cf_net_position *p, const cf_net_board *older);

/* Says the last board offered (or the current one, if none) was the game's
 * first position, which lets HistoryFill repeat it. No effect after the walk
 * has stopped by itself. */
void cf_net_position_mark_start(cf_net_position *p);

/* Convenience for the common case: builds p from the current board and the
 * n older boards of the game, newest first; game_start says whether
 * older[n-1] (or current, if n == 0) is the game's first position. */
void cf_net_position_from_history(cf_net_position *p, int input_format, const cf_net_board *current,
                                  const cf_net_board *older, int n, bool game_start);

/* The standard start position (rule-50 0, no history). */
void cf_net_board_startpos(cf_net_board *b);

/* The boards are the same position for HistoryFill's "fen_only" rule:
 * pieces, side to move, castling and en passant equal. */
bool cf_net_board_same(const cf_net_board *a, const cf_net_board *b);

/* Input format predicates (NETWORK.md section 1). */
bool cf_input_is_canonical(int input_format);  /* 3, 4, 5, 132, 133 */
bool cf_input_is_hectoplies(int input_format); /* 4, 5, 132, 133 */
bool cf_input_is_v2(int input_format);         /* 5, 133 */
bool cf_input_is_armageddon(int input_format); /* 132, 133 */
bool cf_input_is_supported(int input_format);  /* 1, 2, 3, 4, 5, 132, 133 */

#endif /* CF_NET_POSITION_H */
