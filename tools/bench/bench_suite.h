/* bench_suite.h: the fixed position suite the agents are timed on
 * (positions.txt here, from real games: see make_positions.py for the source
 * and the selection rule). One position per line, `id|fen|moves` with the
 * moves in UCI played from fen; '#' starts a comment line. */
#ifndef BENCH_SUITE_H
#define BENCH_SUITE_H

#include "chess/cf_game.h"
#include "common/cf_status.h"

#define BENCH_SUITE_ID_MAX 32

typedef struct bench_suite_entry {
  char id[BENCH_SUITE_ID_MAX];
  cf_game game; /* owned: the fen and the moves played */
} bench_suite_entry;

typedef struct bench_suite {
  bench_suite_entry *entries; /* owned */
  int count;
} bench_suite;

/* Reads at most max_positions (<= 0: all) positions from path. Fails with
 * CF_ERR_IO (cannot open), CF_ERR_FORMAT (a malformed line, an illegal move
 * or an empty suite), naming the file and line. */
cf_status bench_suite_load(const char *path, int max_positions, bench_suite *out, cf_error *err);

/* Accepts a zeroed or freed suite. */
void bench_suite_free(bench_suite *s);

#endif /* BENCH_SUITE_H */
