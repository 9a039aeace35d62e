/* cf_uci_go.h: the `go` command's parameters and how a result is shown (Q
 * as centipawns, W/D/L per mille). The time a move may take is the time
 * manager's, for every agent (engine/search/cf_time_manager.h). */
#ifndef CF_UCI_GO_H
#define CF_UCI_GO_H

#include <stdbool.h>
#include <stddef.h>

#include "chess/cf_move.h"
#include "chess/cf_position.h"

typedef struct cf_uci_go {
  long wtime, btime, winc, binc, movestogo, movetime, nodes, depth, mate; /* -1 = not given */
  bool infinite, ponder;
  cf_move searchmoves[CF_MAX_MOVES];
  int n_searchmoves;
} cf_uci_go;

/* Adding a go word: a field in cf_uci_go (a long for a number, -1 when not
 * given; a bool for a bare word) and its row in cf_uci_go.c's tables. */

/* Parses the words after `go`. Never fails: a bad or unknown word is
 * skipped and described in warn (empty when all was well), so the GUI
 * still gets a bestmove. searchmoves are read against pos. */
void cf_uci_go_parse(const char *args, const cf_position *pos, cf_uci_go *go, char *warn,
                     size_t warn_size);

/* Whether the words after `go` include `ponder` (what the queue needs to
 * know of a go that waits for a network load, before its position is set). */
bool cf_uci_go_ponders(const char *args);

/* Q (-1..1, the mover's expected score) as centipawns, Lc0's
 * `centipawn` ScoreType (its default before 0.30; now WDL_mu, cf_uci_score.h): cp = 90 * tan(1.5637541897 * q), |q| clamped below 1 (at most
 * about +-12800). */
int cf_uci_q_to_cp(float q);

/* W/D/L probabilities as per mille integers summing to 1000. */
void cf_uci_wdl_permille(const float wdl[3], int out[3]);

#endif /* CF_UCI_GO_H */
