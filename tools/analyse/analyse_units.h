/* analyse_units.h: every input format as one stream of units. A unit is a
 * start position, the moves played from it, and which of its plies to
 * analyse: a PGN game (all of them), an EPD or FEN line (ply 0), a Lichess
 * puzzle (ply 1: the position after the opponent's first move, the one
 * the solver faces). A unit that cannot be read comes back marked bad with
 * the reason, naming its line, and the stream goes on. A PGN game that
 * stops at a malformed or illegal move is not bad: it is analysed up to
 * that move, its unit carrying the reason (cut) for a warning and for the
 * annotated PGN.
 *
 * The "units" format is this stream written out, one JSON object per line
 * (analyse_unit_write_json): how the Dask driver hands shards to workers,
 * already parsed, so a worker analyses exactly the units the single-process
 * command would, with their numbers. */
#ifndef ANALYSE_UNITS_H
#define ANALYSE_UNITS_H

#include <stdbool.h>
#include <stdio.h>

#include "chess/cf_fen.h"
#include "chess/cf_move_uci.h"
#include "chess/cf_pgn.h"
#include "common/cf_status.h"
#include "tools/analyse/analyse_lines.h"
#include "tools/analyse/analyse_pgn_split.h"
#include "tools/analyse/analyse_source.h"

typedef enum analyse_format {
  ANALYSE_PGN,
  ANALYSE_EPD,
  ANALYSE_FEN,
  ANALYSE_PUZZLES,
  ANALYSE_UNITS,
  ANALYSE_FORMAT_AUTO
} analyse_format;

/* The choices of --format, in analyse_format's order. */
extern const char *const analyse_format_names[];

/* The format a file name says (.pgn, .epd, .fen/.txt, .csv; after a .gz or
 * .zst suffix), or ANALYSE_FORMAT_AUTO when it says none. */
analyse_format analyse_format_of_name(const char *path);

typedef struct analyse_unit {
  long game;       /* PGN: the game's number in the file (bad games count); else the line */
  long line;       /* its first line */
  cf_pgn_game pgn; /* start, moves, tags, result */
  char start_fen[CF_FEN_INPUT_MAX]; /* the start FEN as given ("" = the standard start):
                                       kept as text because the input encoder reads its
                                       en-passant field as written */
  int first_ply, last_ply; /* plies analysed, inclusive */
  char id[64];     /* EPD "id" / PuzzleId; "" if none */
  char solution[CF_UCI_MOVE_MAX]; /* a puzzle's first solver move (UCI); "" if none */
  bool bad;
  char why[CF_ERROR_MSG_MAX]; /* a bad unit's reason, "line N: ..." */
  char cut[CF_ERROR_MSG_MAX]; /* a game cut at a bad move: the reason; else "" */
} analyse_unit;

typedef struct analyse_units {
  analyse_format format;
  analyse_source *src;
  analyse_lines lines;
  analyse_pgn_split split;
  long games; /* PGN games seen */
  bool header_checked;
} analyse_units;

cf_status analyse_units_open(analyse_units *u, const char *path, analyse_format format,
                             cf_error *err);

/* The next unit into *out (reusing its move array). 1: a unit (maybe
 * bad), 0: the end, -1: a read error (err). */
int analyse_units_next(analyse_units *u, analyse_unit *out, cf_error *err);

/* Raw bytes read so far and the file's size (0 if unknown). */
uint64_t analyse_units_consumed(const analyse_units *u);
uint64_t analyse_units_size(const analyse_units *u);

void analyse_units_close(analyse_units *u);
void analyse_unit_free(analyse_unit *unit);

/* One good unit as a line of the units format (newline included). */
cf_status analyse_unit_write_json(const analyse_unit *unit, FILE *out, cf_error *err);

#endif /* ANALYSE_UNITS_H */
