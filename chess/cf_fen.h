/* cf_fen.h: Forsyth-Edwards Notation in and out.
 *
 * The parser accepts the six standard fields, or the first four (Lc0 and
 * many UCI front ends send those; the counters then default to "0 1").
 * Castling is X-FEN (KQkq, where K/Q name the outermost rook on that
 * side of the king, so standard FENs read as always and Chess960 ones
 * too; a file letter names an inner rook) or Shredder-FEN (file letters
 * only, HAha); the king must stand on its back rank. It rejects, with
 * CF_ERR_ARG and a message naming the problem, anything that is not a
 * position a game could have: wrong field count, bad piece letters or
 * rank lengths, missing or extra kings, pawns on the first or last rank,
 * more than 16 pieces or 8 pawns a side (or more promoted pieces than
 * missing pawns), the side not to move in check, castling rights the
 * kings and rooks do not support, an impossible en-passant square, and
 * non-numeric, negative or absurd counters. Any input, however long or
 * garbled, gives either CF_OK or such an error. */
#ifndef CF_FEN_H
#define CF_FEN_H

#include "chess/cf_position.h"
#include "common/cf_status.h"

#define CF_FEN_STARTPOS "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

/* Longest FEN cf_position_to_fen writes (about 90 characters) plus NUL. */
#define CF_FEN_MAX 128

/* Longest input considered (a FEN is under 100 characters; the rest is
 * slack for whitespace). Longer input is an error, not truncated. */
#define CF_FEN_INPUT_MAX 1024

/* Largest counters accepted: beyond these the FEN is corrupt, not a game. */
#define CF_FEN_HALFMOVE_MAX 10000
#define CF_FEN_FULLMOVE_MAX 100000

/* Parses fen into *pos. On error *pos is unchanged. An en-passant square is
 * validated, stored as given in double_step_square, and kept as ep_square
 * only if a legal en-passant capture exists (see cf_position), so "e3" after
 * 1.e4 is accepted and written back as "-". A fullmove number of 0 is read
 * as 1. */
cf_status cf_position_from_fen(cf_position *pos, const char *fen, cf_error *err);

/* The standard start position. */
void cf_position_startpos(cf_position *pos);


/* Writes pos as a six-field FEN into out (always NUL-terminated). Castling
 * is KQkq when every right is standard (king on e, rooks on a/h), else
 * Shredder-FEN letters (pos->chess960), which no reader can misread. The
 * en-passant field is ep_square: present only when the capture is legal
 * (the X-FEN convention), so equal FENs mean equal positions. */
void cf_position_to_fen(const cf_position *pos, char out[CF_FEN_MAX]);

#endif /* CF_FEN_H */
