/* cf_san.h: moves in Standard Algebraic Notation ("Nbd7", "exd6", "e8=Q+",
 * "O-O"), read and written against the legal moves of a position.
 *
 * Reading matches the text against cf_generate_legal's moves, so a parsed
 * move is always legal and an ambiguous or impossible one is an error.
 * Accepted beyond the strict standard, as PGN files in the wild have them:
 * castling written with zeros (0-0, 0-0-0), a promotion without '='
 * (e8Q), a missing or superfluous 'x', over-disambiguation (Ngf3 when only
 * one knight can go), and trailing check/mate signs and annotation glyphs
 * (+ # ! ?). Writing gives the minimal disambiguation, 'x' for captures,
 * '=' promotions, and '+' or '#'. */
#ifndef CF_SAN_H
#define CF_SAN_H

#include "chess/cf_move.h"
#include "chess/cf_position.h"
#include "common/cf_status.h"

/* "Qa1xh8=Q#" is at most 9 characters; with slack and the NUL. */
#define CF_SAN_MAX 16

/* Parses text (NUL-terminated, no surrounding spaces) as a move of pos.
 * CF_ERR_ARG quoting the text when it is not SAN, names no legal move
 * ("illegal"), or more than one ("ambiguous"). */
cf_status cf_san_parse(const cf_position *pos, const char *text, cf_move *move, cf_error *err);

/* Writes m, a legal move of pos, as SAN into out. */
void cf_san_write(const cf_position *pos, cf_move m, char out[CF_SAN_MAX]);

#endif /* CF_SAN_H */
