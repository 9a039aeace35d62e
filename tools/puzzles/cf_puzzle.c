/* cf_puzzle.c: parsing Lichess puzzle lines and scoring a solver on them. */
#include "tools/puzzles/cf_puzzle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chess/cf_movegen.h"

const cf_puzzle_band cf_puzzle_bands[CF_PUZZLE_BANDS] = {
  {"<1000", 0, 999},
  {"1000-1499", 1000, 1499},
  {"1500-1999", 1500, 1999},
  {"2000+", 2000, 1 << 30},
};

int cf_puzzle_band_of(int rating) {
  for (int i = 0; i < CF_PUZZLE_BANDS; i++)
    if (rating >= cf_puzzle_bands[i].lo && rating <= cf_puzzle_bands[i].hi) return i;
  return 0; /* negative ratings do not occur; count them with the lowest band */
}

/* Copies field `index` (0-based, comma-separated) of line into out.
 * Lichess fields never contain commas, so no quoting is handled. */
static bool csv_field(const char *line, int index, char *out, size_t cap) {
  const char *p = line;
  for (int i = 0; i < index; i++) {
    p = strchr(p, ',');
    if (!p) return false;
    p++;
  }
  size_t n = strcspn(p, ",\r\n");
  if (n >= cap) return false;
  memcpy(out, p, n);
  out[n] = '\0';
  return true;
}

cf_status cf_puzzle_parse_csv_line(const char *line, cf_puzzle *out, cf_error *err) {
  memset(out, 0, sizeof *out);
  char moves[CF_PUZZLE_MAX_MOVES * CF_UCI_MOVE_MAX + 1];
  char rating[16];
  if (!csv_field(line, 0, out->id, sizeof out->id) || out->id[0] == '\0')
    return cf_error_set(err, CF_ERR_FORMAT, "puzzle: missing or over-long PuzzleId");
  if (!csv_field(line, 1, out->fen, sizeof out->fen) || out->fen[0] == '\0')
    return cf_error_set(err, CF_ERR_FORMAT, "puzzle %s: missing or over-long FEN", out->id);
  if (!csv_field(line, 2, moves, sizeof moves))
    return cf_error_set(err, CF_ERR_FORMAT, "puzzle %s: missing or over-long Moves", out->id);
  if (!csv_field(line, 3, rating, sizeof rating))
    return cf_error_set(err, CF_ERR_FORMAT, "puzzle %s: missing Rating", out->id);

  char *end;
  long r = strtol(rating, &end, 10);
  if (end == rating || *end != '\0' || r < 0 || r > 5000)
    return cf_error_set(err, CF_ERR_FORMAT, "puzzle %s: Rating '%s' is not a number in 0..5000",
                        out->id, rating);
  out->rating = (int)r;

  for (char *tok = strtok(moves, " "); tok; tok = strtok(NULL, " ")) {
    size_t n = strlen(tok);
    if (n < 4 || n > 5)
      return cf_error_set(err, CF_ERR_FORMAT, "puzzle %s: '%s' is not a UCI move", out->id, tok);
    if (out->n_moves == CF_PUZZLE_MAX_MOVES)
      return cf_error_set(err, CF_ERR_FORMAT, "puzzle %s: more than %d moves", out->id,
                          CF_PUZZLE_MAX_MOVES);
    memcpy(out->moves[out->n_moves++], tok, n + 1);
  }
  if (out->n_moves < 2)
    return cf_error_set(err, CF_ERR_FORMAT,
                        "puzzle %s: Moves needs the opponent's move and a solution move",
                        out->id);
  return CF_OK;
}

static bool is_checkmate(const cf_position *pos) {
  cf_movelist list;
  return cf_position_in_check(pos) && cf_generate_legal(pos, &list) == 0;
}

/* Plays the puzzle's move i, which must be legal. */
static cf_status push_listed(const cf_puzzle *p, cf_game *game, int i, cf_error *err) {
  cf_error e;
  if (cf_game_push_uci(game, p->moves[i], &e) != CF_OK)
    return cf_error_set(err, CF_ERR_FORMAT, "puzzle %s: move %d: %s", p->id, i + 1, e.msg);
  return CF_OK;
}

static cf_status run_game(const cf_puzzle *p, cf_game *game, cf_puzzle_solver solve, void *ctx,
                          cf_puzzle_outcome *out, cf_error *err) {
  CF_TRY(push_listed(p, game, 0, err));
  for (int i = 1; i < p->n_moves; i += 2) {
    cf_move expected;
    cf_error e;
    if (cf_move_parse_uci(cf_game_position(game), p->moves[i], &expected, &e) != CF_OK)
      return cf_error_set(err, CF_ERR_FORMAT, "puzzle %s: move %d: %s", p->id, i + 1, e.msg);

    cf_move played = CF_MOVE_NONE;
    CF_TRY(solve(ctx, game, &played, err));
    out->solver_moves++;
    if (!cf_move_is_legal(cf_game_position(game), played))
      return cf_error_set(err, CF_ERR_INTERNAL, "puzzle %s: the solver played an illegal move",
                          p->id);
    if (played != expected) {
      cf_position after = *cf_game_position(game);
      cf_undo undo;
      cf_position_make(&after, played, &undo);
      if (is_checkmate(&after)) break; /* any mate wins, as on Lichess */
      cf_move_write_uci(played, 0, out->played);
      memcpy(out->expected, p->moves[i], sizeof out->expected);
      return CF_OK;
    }
    CF_TRY(push_listed(p, game, i, err));
    if (i + 1 < p->n_moves) CF_TRY(push_listed(p, game, i + 1, err));
  }
  out->solved = true;
  return CF_OK;
}

cf_status cf_puzzle_run(const cf_puzzle *p, cf_puzzle_solver solve, void *ctx,
                        cf_puzzle_outcome *out, cf_error *err) {
  memset(out, 0, sizeof *out);
  cf_game game = {0};
  cf_error e;
  if (cf_game_init_fen(&game, p->fen, &e) != CF_OK)
    return cf_error_set(err, CF_ERR_FORMAT, "puzzle %s: %s", p->id, e.msg);
  cf_status st = run_game(p, &game, solve, ctx, out, err);
  cf_game_free(&game);
  return st;
}
