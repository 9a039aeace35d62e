/* cf_net_planes.h: the 112 input planes of a position (NETWORK.md section
 * 3), exactly as Lc0's encoder produces them, and the canonical transform. */
#ifndef CF_NET_PLANES_H
#define CF_NET_PLANES_H

#include <stdint.h>

#include "common/cf_status.h"
#include "encoder/cf_planes.h"
#include "net/cf_net_position.h"

/* Lc0's HistoryFill: what goes into history slots older than the game. */
typedef enum cf_history_fill {
  CF_HISTORY_FILL_FEN_ONLY = 0, /* repeat the first position unless it is the start position */
  CF_HISTORY_FILL_NO,           /* leave them zero */
  CF_HISTORY_FILL_ALWAYS,       /* always repeat the first position */
} cf_history_fill;

/* "fen_only", "no", "always". */
const char *cf_history_fill_name(cf_history_fill fill);
cf_status cf_history_fill_parse(const char *text, cf_history_fill *out, cf_error *err);

/* Fills out with the planes of pos (for pos->input_format) and applies the
 * canonical transform; returns the transform (CF_TRANSFORM_* bits, 0 for
 * formats 1 and 2). pos->input_format must be supported. */
int cf_net_encode_planes(const cf_net_position *pos, cf_history_fill fill, cf_planes *out);

/* The canonical transform Lc0 picks for untransformed planes. */
int cf_net_choose_transform(const cf_planes *planes, int input_format);

/* Bitboard m with every square moved by transform (flip, mirror,
 * transpose in that order, as cf_square_transform). */
uint64_t cf_bitboard_transform(uint64_t m, int transform);

#endif /* CF_NET_PLANES_H */
