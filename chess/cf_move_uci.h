/* cf_move_uci.h: moves as UCI text ("e2e4", "e7e8q", "e1g1").
 *
 * Parsing checks the text against the legal moves of a position, so a
 * parsed move is always legal. Castling is read in the king-takes-rook form
 * Lc0 and Chess960 GUIs use (e1h1, e1a1) in every position, and also in the
 * standard form (e1g1) when the position's castling is standard; in a
 * Chess960 position only king takes rook, since there e.g. f1g1 may be an
 * ordinary king move. Which form is written: cf_move_uci_king_takes_rook. */
#ifndef CF_MOVE_UCI_H
#define CF_MOVE_UCI_H

#include "chess/cf_move.h"
#include "chess/cf_position.h"
#include "common/cf_status.h"

/* "e7e8q" plus the terminating NUL. */
#define CF_UCI_MOVE_MAX 6

/* How castling is written: king takes rook (e1h1) when the GUI asked for
 * Chess960 (UCI_Chess960, in every position, standard ones included), and
 * always in a position whose castling is not standard (pos->chess960: king
 * off the e-file or a castling rook off the a/h files), where e1g1 would be
 * read as a king step or name no castling at all; e1g1 otherwise. This is
 * the one place that rule lives: pass its result to cf_move_write_uci. */
static inline int cf_move_uci_king_takes_rook(const cf_position *pos, int uci_chess960) {
  return uci_chess960 || pos->chess960;
}

/* Writes m as UCI text into out: castling as e1g1 unless chess960 is
 * nonzero (then king-takes-rook, e1h1). CF_MOVE_NONE is written "0000". */
void cf_move_write_uci(cf_move m, int chess960, char out[CF_UCI_MOVE_MAX]);

/* Parses text as a move of pos into *move. CF_ERR_ARG when the text is not
 * a UCI move ("malformed move ..."), needs a promotion letter, or is not
 * legal in pos ("illegal move ..."); the message quotes the text. */
cf_status cf_move_parse_uci(const cf_position *pos, const char *text, cf_move *move, cf_error *err);

#endif /* CF_MOVE_UCI_H */
