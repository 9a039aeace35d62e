/* cf_data_path.h: where the tools find the data files they ship.
 *
 * The tools read a few files at run time: the bench position suite, the
 * match openings and the public puzzle set. In the source tree they live in
 * data/; `meson install` copies them to <prefix>/share/cformer/ with the same
 * relative names (bench/positions.txt, match/openings.txt,
 * puzzles/lichess_puzzles_public.csv). A name is looked up, first hit wins:
 *
 *   1. $CFORMER_DATA_DIR              (the user's override; if set, the only
 *                                     place looked at)
 *   2. a binary inside the build tree: the source tree's data/
 *      any other binary: <folder of the binary>/../share/cformer (an
 *      installed tree, wherever it was moved), then the configured install
 *      datadir (<prefix>/share/cformer at build time)
 *
 * An installed tool therefore never reads the build or source tree.
 */
#ifndef CF_DATA_PATH_H
#define CF_DATA_PATH_H

#include <stddef.h>

#include "common/cf_status.h"

/* The environment variable that overrides the data folder. */
#define CF_DATA_DIR_ENV "CFORMER_DATA_DIR"

/* Relative names of the shipped files. */
#define CF_DATA_BENCH_SUITE "bench/positions.txt"
#define CF_DATA_OPENINGS "match/openings.txt"
#define CF_DATA_PUZZLES "puzzles/lichess_puzzles_public.csv"

/* Writes the path of the first readable `name` (a relative name above) to
 * path[cap]. CF_ERR_IO when no candidate holds it; the message names the file,
 * every folder tried, and the override that would fix it. */
cf_status cf_data_find(const char *name, char *path, size_t cap, cf_error *err);

/* The folders cf_data_find tries, in order, as one line for help texts
 * ("$CFORMER_DATA_DIR, /usr/local/share/cformer, ..."); empty candidates
 * are left out. */
void cf_data_search_path(char *out, size_t cap);

#endif
