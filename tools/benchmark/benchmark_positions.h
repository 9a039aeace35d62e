/* benchmark_positions.h: the positions `cformer benchmark` searches by
 * default, the same 34 as `lc0 benchmark` (Stockfish's bench set, some
 * followed by moves), so that a nodes/s figure of one engine compares with
 * the other's on the same work. */
#ifndef BENCHMARK_POSITIONS_H
#define BENCHMARK_POSITIONS_H

#include "chess/cf_game.h"
#include "common/cf_status.h"

#define BENCHMARK_POSITION_COUNT 34

/* "FEN" or "FEN moves M1 M2 ..." (UCI moves), as Lc0 lists them. */
extern const char *const benchmark_positions[BENCHMARK_POSITION_COUNT];

/* Starts game at text, "FEN" or "FEN moves M1 M2 ..." (the form --fen
 * takes too): fails naming the bad FEN or move. */
cf_status benchmark_game_from_text(const char *text, cf_game *game, cf_error *err);

#endif /* BENCHMARK_POSITIONS_H */
