/* analyse_pgn_out.h: games written back as PGN, each move the analysis
 * finds lacking marked by the expected score it gave away.
 *
 * A move's loss is the mover's expected score (win 1, draw 1/2) before it
 * minus after it, both from the analysis of the two positions (the search's
 * best line when there is a search, else the network's W/D/L). Thresholds,
 * Lichess's on its winning-chances scale halved onto expected score:
 * inaccuracy ?! ($6) from 0.05, mistake ? ($2) from 0.10, blunder ?? ($4)
 * from 0.15. A marked move gets a comment with the loss and the engine's
 * better move and line (the search's PV, or the top policy move). */
#ifndef ANALYSE_PGN_OUT_H
#define ANALYSE_PGN_OUT_H

#include <stdio.h>

#include "common/cf_status.h"
#include "tools/analyse/analyse_record.h"

#define ANALYSE_INACCURACY 0.05f
#define ANALYSE_MISTAKE 0.10f
#define ANALYSE_BLUNDER 0.15f

typedef struct analyse_pgn_out analyse_pgn_out;

cf_status analyse_pgn_out_create(FILE *out, analyse_pgn_out **w, cf_error *err);

/* Takes the records of a unit in ply order; writes the game after its
 * last one. */
cf_status analyse_pgn_out_add(analyse_pgn_out *w, const analyse_record *r, cf_error *err);

/* Games written so far. */
long analyse_pgn_out_games(const analyse_pgn_out *w);

void analyse_pgn_out_free(analyse_pgn_out *w);

#endif /* ANALYSE_PGN_OUT_H */
