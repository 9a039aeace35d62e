/* selfplay_game.h: one game of the engine against itself, as Lc0's
 * selfplay plays it: a fresh search tree at every move (Lc0's selfplay
 * default, so that each move's root gets its own Dirichlet noise and the
 * visit counts are this move's alone), the move drawn with the temperature
 * schedule, resignation and tablebase adjudication, and a V6 training
 * record per searched position (opening moves are played, not searched).
 *
 * Everything random comes from the game's seed: the same network, settings,
 * opening and seed give the same game and the same records. */
#ifndef SELFPLAY_GAME_H
#define SELFPLAY_GAME_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "chess/cf_game.h"
#include "engine/cf_temperature.h"
#include "engine/search/cf_search.h"
#include "net/cf_net.h"
#include "tools/chunks/cf_v6.h"

/* Lc0 ends a selfplay game undecided (a draw, "max length") at this ply. */
#define SP_MAX_PLY 450

typedef struct sp_settings {
  long visits;              /* root visits per move (0: no limit) */
  long playouts;            /* playouts per move (0: no limit); the tree is fresh, so both count alike */
  cf_temperature_params temp;
  double resign_percentage; /* resign when the best move's win chance (percent) is below; 0 = never */
  int resign_earliest_move; /* not before this move number */
  double resign_playthrough;/* percent of games that never resign (their records show resigns were right) */
  bool training;            /* build the V6 records */
  bool syzygy;              /* tables are loaded: adjudicate positions they answer */
} sp_settings;

typedef struct sp_game {
  cf_game game;        /* from the start position: opening moves, then the searched ones */
  int opening_plies;   /* plies of game that came from the opening */
  cf_game_result result;
  char reason[32];     /* "checkmate", "resignation", "tablebase", "max length", ... */
  bool adjudicated;    /* ended by resignation, tablebase or length, not by the rules */
  cf_v6 *records;      /* with settings.training: one per searched position */
  int n_records, cap_records;
  long playouts;       /* summed over the game's searches */
  bool over;           /* ended: result, reason and the records' results are final */
  uint64_t rng;        /* the game's stream: the temperature's draws */
  bool may_resign;     /* not one of ResignPlaythrough's games */
} sp_game;

/* Plays one game into *out (zeroed first; sp_game_free after, also on
 * error). stop (may be NULL), once set, ends the game unfinished: CF_OK
 * with result CF_RESULT_ONGOING, which the caller does not write. */
cf_status sp_play(cf_net *net, cf_search *search, const sp_settings *s, const cf_position *start,
                  const cf_move *opening, int n_opening, uint64_t seed, const atomic_bool *stop,
                  sp_game *out, cf_error *err);
void sp_game_free(sp_game *g);

/* sp_play in steps, for callers that run many games' searches at once
 * (cf_search_run_group): the same calls in the same order give the same
 * game. sp_begin starts *g (zeroed first; sp_game_free after, also on
 * error) and resets search. sp_next ends the game where the rules, the
 * length limit or the tables do (false: g->over), else drops search's
 * tree and gives the limits of the move's search (true; stop is the
 * caller's). sp_after_search takes that search's result: the game resigns
 * or records the position and plays the move drawn. */
cf_status sp_begin(cf_search *search, const sp_settings *s, const cf_position *start,
                   const cf_move *opening, int n_opening, uint64_t seed, sp_game *g,
                   cf_error *err);
bool sp_next(cf_search *search, const sp_settings *s, sp_game *g, cf_search_limits *lim);
cf_status sp_after_search(cf_net *net, const cf_search *search, const sp_settings *s,
                          const cf_search_result *res, sp_game *g, cf_error *err);

/* The seed of game number game (1-based) of a run seeded with seed:
 * independent of the order games are played in or the thread playing it. */
uint64_t sp_game_seed(uint64_t seed, long game);

/* ---- records (selfplay_record.c) ---- */

/* The record of the position just searched (the current one of game): the
 * root's visit shares, values, the input planes, played the move played. */
void sp_record_fill(cf_v6 *r, const cf_search *search, const cf_search_result *res,
                    const cf_game *game, const cf_net_info *net, cf_move played);
/* Fills the game's result and plies_left into every record, as Lc0 does at
 * the game's end: plies_left counts down from the last record's best_m. */
void sp_records_finish(cf_v6 *r, int n, cf_game_result result, bool adjudicated);

#endif /* SELFPLAY_GAME_H */
