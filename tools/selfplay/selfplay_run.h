/* selfplay_run.h: a selfplay run: games 1..N over --parallelism threads,
 * each with its own network playing --batch-games games at once (their
 * searches' leaves in shared network calls), their PGN and chunks written as
 * each ends, progress and an ETA on stderr. The first failure (a network
 * that fails, a chunk or the PGN that cannot be written) stops every game
 * in play and is the run's error; the chunks and PGN games finished before
 * it stay as they are, valid. */
#ifndef SELFPLAY_RUN_H
#define SELFPLAY_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/cf_status.h"
#include "tools/selfplay/selfplay_game.h"
#include "net/cf_net_planes.h"
#include "weights/cf_weights.h"

#define CF_SP_WEIGHTS_DEFAULT "<built in>"

typedef struct sp_run_options {
  const char *weights, *backend, *backend_opts;
  cf_weights_load_options load;
  cf_history_fill history_fill; /* Lc0's selfplay default: no */
  long games;
  int parallelism;
  int batch_games; /* games a thread plays at once (0 or 1: one) */
  const char *openings; /* PGN file, or NULL */
  const char *training; /* chunk directory (made already), or NULL */
  const char *pgn;      /* file, or "-" for standard output */
  const char *syzygy;
  uint64_t seed;
  bool resume;
  double noise_epsilon, noise_alpha;
  sp_settings settings;
} sp_run_options;

cf_status sp_run(const sp_run_options *o, cf_error *err);

#endif /* SELFPLAY_RUN_H */
