/* cf_puzzle.h: Lichess puzzles (the CSV of database.lichess.org) and their
 * scoring, independent of who solves them.
 *
 * A puzzle is a FEN plus a move list: the opponent's move first, then
 * alternately the solver's move and the opponent's reply. The solver must
 * find each of its moves; as on Lichess, any move that mates at once also
 * solves the puzzle (a mate-in-one may have several mating moves). The
 * solver is a callback, so the same scoring serves the engine's agents and
 * the tests' scripted solvers. */
#ifndef CF_PUZZLE_H
#define CF_PUZZLE_H

#include <stdbool.h>

#include "chess/cf_fen.h"
#include "chess/cf_game.h"
#include "chess/cf_move_uci.h"
#include "common/cf_status.h"

#define CF_PUZZLE_MAX_MOVES 32
#define CF_PUZZLE_ID_MAX 16

typedef struct cf_puzzle {
  char id[CF_PUZZLE_ID_MAX];
  char fen[CF_FEN_MAX];
  char moves[CF_PUZZLE_MAX_MOVES][CF_UCI_MOVE_MAX];
  int n_moves; /* >= 2: the opponent's move and at least one solver move */
  int rating;
} cf_puzzle;

/* Parses one data line of the CSV (PuzzleId,FEN,Moves,Rating,...; fields
 * after Rating are ignored). CF_ERR_FORMAT naming the field when a field is
 * missing or malformed. Does not check that the moves are legal; see
 * cf_puzzle_run. */
cf_status cf_puzzle_parse_csv_line(const char *line, cf_puzzle *out, cf_error *err);

/* Chooses the solver's move in the game's current position. */
typedef cf_status (*cf_puzzle_solver)(void *ctx, const cf_game *game, cf_move *move,
                                      cf_error *err);

typedef struct cf_puzzle_outcome {
  bool solved;
  int solver_moves;                 /* solver moves asked for */
  char played[CF_UCI_MOVE_MAX];     /* the first wrong move, when not solved */
  char expected[CF_UCI_MOVE_MAX];   /* what the puzzle wanted there */
} cf_puzzle_outcome;

/* Plays the puzzle against solve. CF_ERR_FORMAT when the puzzle itself is
 * broken (bad FEN, an illegal move in its list); a solver error is passed
 * on; an illegal solver move is CF_ERR_INTERNAL. */
cf_status cf_puzzle_run(const cf_puzzle *puzzle, cf_puzzle_solver solve, void *ctx,
                        cf_puzzle_outcome *out, cf_error *err);

/* Rating bands of the report: [lo, hi] inclusive. */
typedef struct cf_puzzle_band {
  const char *name;
  int lo, hi;
} cf_puzzle_band;

#define CF_PUZZLE_BANDS 4
extern const cf_puzzle_band cf_puzzle_bands[CF_PUZZLE_BANDS];

/* Index into cf_puzzle_bands for a rating. */
int cf_puzzle_band_of(int rating);

#endif /* CF_PUZZLE_H */
