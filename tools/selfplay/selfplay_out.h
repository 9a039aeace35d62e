/* selfplay_out.h: what a selfplay run leaves: the games as PGN (one
 * fwrite and flush per game, so a killed run leaves whole games and at
 * most one cut short) and the chunks; and, for --resume, which games a
 * run already finished.
 *
 * A game counts as finished when its PGN entry is whole (with --pgn), or
 * when its chunk is there (--training without --pgn). A finished game is
 * never played again; an unfinished one is played again from its own
 * seed, so the rerun gives the game the first run would have. */
#ifndef SELFPLAY_OUT_H
#define SELFPLAY_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "common/cf_status.h"
#include "tools/selfplay/selfplay_game.h"

/* Writes game number round as one PGN game and flushes. */
cf_status sp_pgn_write(FILE *f, const sp_game *g, long round, cf_error *err);

/* Marks done[n - 1] for each game n <= games that a run finished, from
 * pgn_path (NULL: none; a partial last game is cut off the file) or else
 * from the chunk names in training_dir (NULL: none); leftover temporary
 * chunks there are removed. *n_done gets how many. */
cf_status sp_resume_scan(const char *pgn_path, const char *training_dir, long games, bool *done,
                         long *n_done, cf_error *err);

/* Whether dir holds a chunk (training.*.gz): a new run there (without
 * --resume) would mix its games with another run's. */
bool sp_dir_has_chunks(const char *dir);

#endif /* SELFPLAY_OUT_H */
