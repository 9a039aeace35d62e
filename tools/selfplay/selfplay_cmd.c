/* selfplay_cmd.c: `cformer selfplay`: games of the engine against itself
 * with Lc0's selfplay options, as PGN and (--training) Lc0 V6 training
 * chunks (docs/SELFPLAY.md). --parallelism N runs N threads, each with its
 * own network (a cf_net serves one thread at a time), and each plays
 * --batch-games games at once, their searches sharing the network's calls.
 * Progress and an ETA go to stderr after every game. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cf_clock.h"
#include "engine/syzygy/cf_syzygy.h"
#include "tools/cf_commands.h"
#include "tools/chunks/cf_chunk_file.h"
#include "tools/cli/cf_cli.h"
#include "tools/cli/cf_cli_net.h"
#include "tools/selfplay/selfplay_run.h"

#define PROG "cformer selfplay"
#define USAGE                                                                                 \
  "usage: cformer selfplay [--games N] [--visits N] [--training DIR] [--pgn FILE] [...]\n\n"   \
  "Plays the engine against itself with Lc0's selfplay options (fresh tree each move,\n"       \
  "Dirichlet noise at the root, temperature, resignation) and writes the games as PGN\n"       \
  "and, with --training, one Lc0 V6 training chunk per game (docs/SELFPLAY.md).\n\n"

int cf_cmd_selfplay(int argc, char **argv) {
  sp_run_options o = {.weights = CF_SP_WEIGHTS_DEFAULT, .backend = "auto", .games = 1,
                      .parallelism = 1, .batch_games = 1, .pgn = "-", .load = CF_CLI_WEIGHTS_LOAD,
                      .history_fill = CF_HISTORY_FILL_NO};
  o.settings.temp.value_cutoff = 100;
  double eps = 0, alpha = 0.3, temp = 0, temp_endgame = 0, value_cutoff = 100, visit_offset = 0;
  cf_cli_flag flags[] = {
      CF_CLI_NET_FLAGS(&o.weights, &o.backend, &o.backend_opts, &o.load),
      {.name = "history-fill", .kind = CF_CLI_STRING, .set = cf_cli_set_history_fill,
       .ctx = &o.history_fill, .arg = "fen_only|no|always",
       .help = "history planes older than the game (default no, as Lc0's selfplay)"},
      {.name = "games", .kind = CF_CLI_LONG, .dest = &o.games, .imin = 1, .imax = 999999,
       .help = "games to play (default 1); game numbers run 1..N"},
      {.name = "parallelism", .kind = CF_CLI_INT, .dest = &o.parallelism, .imin = 1, .imax = 256,
       .help = "threads, one network each, each playing --batch-games games (default 1)"},
      {.name = "batch-games", .kind = CF_CLI_INT, .dest = &o.batch_games, .imin = 1,
       .imax = 256,
       .help = "games each thread plays at once, their leaves in one network call (default 1;"
               " not an Lc0 option)"},
      {.name = "visits", .kind = CF_CLI_LONG, .dest = &o.settings.visits, .imin = 1,
       .imax = 1000000000, .help = "root visits per move (default 800 when --playouts is absent)"},
      {.name = "playouts", .kind = CF_CLI_LONG, .dest = &o.settings.playouts, .imin = 1,
       .imax = 1000000000, .help = "playouts per move (the tree is fresh: as --visits)"},
      {.name = "noise-epsilon", .kind = CF_CLI_DOUBLE, .dest = &eps, .dmin = 0, .dmax = 1,
       .alias = "DirichletNoiseEpsilon",
       .help = "share of Dirichlet noise in the root's priors (default 0; Lc0's training 0.25)"},
      {.name = "noise-alpha", .kind = CF_CLI_DOUBLE, .dest = &alpha, .dmin = 0.001, .dmax = 1e7,
       .alias = "DirichletNoiseAlpha", .help = "Dirichlet noise alpha (default 0.3)"},
      {.name = "temperature", .kind = CF_CLI_DOUBLE, .dest = &temp, .dmin = 0, .dmax = 100,
       .help = "move choice temperature (default 0: the best move)"},
      {.name = "tempdecay-moves", .kind = CF_CLI_INT, .dest = &o.settings.temp.decay_moves,
       .imin = 0, .imax = 640, .help = "temperature falls to TempEndgame over this many moves"},
      {.name = "tempdecay-delay-moves", .kind = CF_CLI_INT,
       .dest = &o.settings.temp.decay_delay_moves, .imin = 0, .imax = 100,
       .help = "moves before the decay starts"},
      {.name = "temp-cutoff-move", .kind = CF_CLI_INT, .dest = &o.settings.temp.cutoff_move,
       .imin = 0, .imax = 1000, .help = "from this move on --temp-endgame is used; 0 = never"},
      {.name = "temp-endgame", .kind = CF_CLI_DOUBLE, .dest = &temp_endgame, .dmin = 0,
       .dmax = 100, .help = "temperature after the cutoff, and the decay's floor"},
      {.name = "temp-value-cutoff", .kind = CF_CLI_DOUBLE, .dest = &value_cutoff, .dmin = 0,
       .dmax = 100, .help = "moves this many win percent below the best are never drawn"},
      {.name = "temp-visit-offset", .kind = CF_CLI_DOUBLE, .dest = &visit_offset, .dmin = -1000,
       .dmax = 1000, .help = "added to every visit count before the draw"},
      {.name = "resign-percentage", .kind = CF_CLI_DOUBLE,
       .dest = &o.settings.resign_percentage, .dmin = 0, .dmax = 100,
       .help = "resign below this win percentage (default 0: never)"},
      {.name = "resign-earliest-move", .kind = CF_CLI_INT,
       .dest = &o.settings.resign_earliest_move, .imin = 0, .imax = 1000,
       .help = "earliest move number a side may resign"},
      {.name = "resign-playthrough", .kind = CF_CLI_DOUBLE,
       .dest = &o.settings.resign_playthrough, .dmin = 0, .dmax = 100,
       .help = "percentage of games that never resign"},
      {.name = "openings-pgn", .kind = CF_CLI_STRING, .dest = &o.openings, .arg = "FILE",
       .help = "start game n from game (n - 1) mod count of this PGN file"},
      {.name = "training", .kind = CF_CLI_STRING, .dest = &o.training, .arg = "DIR",
       .help = "write a V6 training chunk per game here (training.NNNNNN.gz)"},
      {.name = "pgn", .kind = CF_CLI_STRING, .dest = &o.pgn, .arg = "FILE",
       .help = "the games as PGN (default -: standard output)"},
      {.name = "syzygy-paths", .letter = 's', .kind = CF_CLI_STRING, .dest = &o.syzygy,
       .arg = "DIRS", .help = "Syzygy tables (':'-separated): adjudicate positions they answer"},
      {.name = "seed", .kind = CF_CLI_U64, .dest = &o.seed,
       .help = "seed of the noise, the temperature and resign playthrough (default: the clock)"},
      {.name = "resume", .kind = CF_CLI_BOOL, .dest = &o.resume,
       .help = "continue a killed run with the same flags: finished games are kept"},
  };
  cf_cli_spec spec = {.prog = PROG, .version = "cformer " CF_VERSION, .usage = USAGE,
                      .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0])};
  int rc = cf_cli_parse(&spec, argc, argv);
  if (rc != CF_CLI_CONTINUE) return rc;
  cf_cli_free(&spec);
  if (!cf_cli_given(&spec, "visits") && !cf_cli_given(&spec, "playouts"))
    o.settings.visits = 800;
  if (o.resume && !cf_cli_given(&spec, "seed"))
    return cf_cli_usage_error(&spec, "--resume needs the first run's --seed, to replay its games");
  if (o.resume && strcmp(o.pgn, "-") == 0 && !o.training)
    return cf_cli_usage_error(&spec, "--resume needs --pgn FILE or --training DIR");
  if (!cf_cli_given(&spec, "seed")) o.seed = (uint64_t)(cf_clock_now() * 1e6);
  o.noise_epsilon = eps;
  o.noise_alpha = alpha;
  o.settings.temp.temperature = (float)temp;
  o.settings.temp.endgame = (float)temp_endgame;
  o.settings.temp.value_cutoff = (float)value_cutoff;
  o.settings.temp.visit_offset = (float)visit_offset;
  o.settings.training = o.training != NULL;
  cf_error err = {0};
  if (o.syzygy && *o.syzygy) {
    cf_syzygy_report rep;
    if (cf_syzygy_load(o.syzygy, &rep) != CF_OK || rep.wdl_tables == 0)
      return cf_cli_fail(PROG, "--syzygy-paths %s: %s", o.syzygy,
                         rep.error_count ? rep.errors[0] : "no tables found");
    o.settings.syzygy = true;
  }
  if (o.training && mkdir(o.training, 0777) != 0) {
    const int e = errno;
    struct stat sb;
    if (e != EEXIST || stat(o.training, &sb) != 0 || !S_ISDIR(sb.st_mode))
      return cf_cli_fail(PROG, "--training %s: cannot make the directory: %s", o.training,
                         e == EEXIST ? "a file of that name is in the way" : strerror(e));
  }
  fprintf(stderr, "%s: seed %" PRIu64 "\n", PROG, o.seed);
  rc = sp_run(&o, &err) == CF_OK ? CF_CLI_EXIT_OK : cf_cli_fail(PROG, "%s", err.msg);
  if (o.settings.syzygy) cf_syzygy_unload();
  return rc;
}
