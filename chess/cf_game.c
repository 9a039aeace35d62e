/* cf_game.c: move history, repetitions and results. */
#include "chess/cf_game.h"

#include <stdlib.h>
#include <string.h>

#include "chess/cf_fen.h"
#include "chess/cf_move_uci.h"
#include "chess/cf_movegen.h"

#define INITIAL_CAPACITY 128

cf_status cf_game_init(cf_game *game, const cf_position *start, cf_error *err) {
  memset(game, 0, sizeof *game);
  cf_game_ply *plies = malloc(INITIAL_CAPACITY * sizeof *plies);
  if (!plies) return cf_error_set(err, CF_ERR_NOMEM, "cannot allocate a game history");
  memset(&plies[0], 0, sizeof plies[0]);
  if (start)
    plies[0].pos = *start;
  else
    cf_position_startpos(&plies[0].pos);
  plies[0].move = CF_MOVE_NONE;
  plies[0].repetitions = 0;
  game->plies = plies;
  game->count = 1;
  game->capacity = INITIAL_CAPACITY;
  return CF_OK;
}

cf_status cf_game_copy(cf_game *dst, const cf_game *src, cf_error *err) {
  memset(dst, 0, sizeof *dst);
  int capacity = INITIAL_CAPACITY;
  while (capacity < src->count) capacity *= 2;
  cf_game_ply *plies = malloc((size_t)capacity * sizeof *plies);
  if (!plies) return cf_error_set(err, CF_ERR_NOMEM, "cannot allocate a game history");
  memcpy(plies, src->plies, (size_t)src->count * sizeof *plies);
  dst->plies = plies;
  dst->count = src->count;
  dst->capacity = capacity;
  return CF_OK;
}

cf_status cf_game_init_fen(cf_game *game, const char *fen, cf_error *err) {
  cf_position start;
  memset(game, 0, sizeof *game);
  CF_TRY(cf_position_from_fen(&start, fen, err));
  return cf_game_init(game, &start, err);
}

void cf_game_free(cf_game *game) {
  if (!game) return;
  free(game->plies);
  memset(game, 0, sizeof *game);
}

/* Earlier occurrences of the newest position. Only plies since the last
 * capture or pawn move can repeat it (rule50 bounds the look-back), and
 * only those with the same side to move (every other ply). Counting stops
 * at the most recent equal position, which already knows its own count. */
static int count_repetitions(const cf_game *game) {
  int last = game->count - 1;
  const cf_position *pos = &game->plies[last].pos;
  int oldest = last - pos->rule50;
  if (oldest < 0) oldest = 0;
  for (int i = last - 2; i >= oldest; i -= 2)
    if (cf_position_same(&game->plies[i].pos, pos)) return game->plies[i].repetitions + 1;
  return 0;
}

int cf_game_repetition_distance(const cf_game *game) {
  int last = game->count - 1;
  if (game->plies[last].repetitions == 0) return 0;
  const cf_position *pos = &game->plies[last].pos;
  int oldest = last - pos->rule50;
  if (oldest < 0) oldest = 0;
  for (int i = last - 2; i >= oldest; i -= 2)
    if (cf_position_same(&game->plies[i].pos, pos)) return last - i;
  return 0;
}

cf_status cf_game_push(cf_game *game, cf_move move, cf_error *err) {
  const cf_position *current = cf_game_position(game);
  if (!cf_move_is_legal(current, move)) {
    char text[CF_UCI_MOVE_MAX];
    cf_move_write_uci(move, current->chess960, text);
    return cf_error_set(err, CF_ERR_ARG, "illegal move '%s' (move code %u)", text, (unsigned)move);
  }
  return cf_game_push_legal(game, move, err);
}

cf_status cf_game_push_legal(cf_game *game, cf_move move, cf_error *err) {
  if (game->count == game->capacity) {
    if (game->capacity > (1 << 24))
      return cf_error_set(err, CF_ERR_NOMEM, "game history is full (%d plies)", game->count);
    cf_game_ply *grown = realloc(game->plies, 2 * (size_t)game->capacity * sizeof *grown);
    if (!grown) return cf_error_set(err, CF_ERR_NOMEM, "cannot grow the game history to %d plies", 2 * game->capacity);
    game->plies = grown;
    game->capacity *= 2;
  }
  cf_game_ply *ply = &game->plies[game->count];
  cf_undo undo;
  ply->pos = game->plies[game->count - 1].pos;
  cf_position_make(&ply->pos, move, &undo);
  ply->move = move;
  game->count++;
  ply->repetitions = count_repetitions(game);
  return CF_OK;
}

cf_status cf_game_push_uci(cf_game *game, const char *text, cf_error *err) {
  cf_move move;
  CF_TRY(cf_move_parse_uci(cf_game_position(game), text, &move, err));
  return cf_game_push_legal(game, move, err); /* the parser matched it among the legal moves */
}

void cf_game_pop(cf_game *game) {
  if (game->count > 1) game->count--;
}

int cf_position_insufficient_material(const cf_position *pos) {
  cf_bb heavy_or_pawn = 0, knights = 0, bishops = 0;
  for (int c = 0; c < CF_COLOR_COUNT; c++) {
    heavy_or_pawn |= pos->pieces[c][CF_PAWN] | pos->pieces[c][CF_ROOK] | pos->pieces[c][CF_QUEEN];
    knights |= pos->pieces[c][CF_KNIGHT];
    bishops |= pos->pieces[c][CF_BISHOP];
  }
  if (heavy_or_pawn) return 0;
  cf_bb minors = knights | bishops;
  if (!cf_bb_several(minors)) return 1; /* K vs K, K+minor vs K */
  /* Bishops all on one square colour can never attack the other colour,
   * so no king can be mated whoever owns them. Any knight with another
   * minor piece can help construct a mate. */
  return !knights && (!(bishops & CF_BB_LIGHT_SQUARES) || !(bishops & CF_BB_DARK_SQUARES));
}

cf_game_result cf_position_outcome(const cf_position *pos, cf_game_reason *reason) {
  cf_game_reason why = CF_REASON_NONE;
  cf_game_result result = CF_RESULT_ONGOING;
  cf_movelist list;
  if (cf_generate_legal(pos, &list) == 0) {
    if (cf_position_in_check(pos)) {
      why = CF_REASON_CHECKMATE;
      result = pos->side == CF_WHITE ? CF_RESULT_BLACK_WINS : CF_RESULT_WHITE_WINS;
    } else {
      why = CF_REASON_STALEMATE;
      result = CF_RESULT_DRAW;
    }
  } else if (cf_position_insufficient_material(pos)) {
    why = CF_REASON_INSUFFICIENT_MATERIAL;
    result = CF_RESULT_DRAW;
  } else if (pos->rule50 >= 100) {
    why = CF_REASON_FIFTY_MOVES;
    result = CF_RESULT_DRAW;
  }
  if (reason) *reason = why;
  return result;
}

cf_game_result cf_game_outcome(const cf_game *game, cf_game_reason *reason) {
  cf_game_result result = cf_position_outcome(cf_game_position(game), reason);
  if (result != CF_RESULT_ONGOING) return result;
  if (game->plies[game->count - 1].repetitions >= 2) {
    if (reason) *reason = CF_REASON_THREEFOLD_REPETITION;
    return CF_RESULT_DRAW;
  }
  return CF_RESULT_ONGOING;
}

const char *cf_game_result_name(cf_game_result result) {
  switch (result) {
    case CF_RESULT_WHITE_WINS: return "1-0";
    case CF_RESULT_BLACK_WINS: return "0-1";
    case CF_RESULT_DRAW: return "1/2-1/2";
    case CF_RESULT_ONGOING: return "*";
  }
  return "?";
}

const char *cf_game_reason_name(cf_game_reason reason) {
  switch (reason) {
    case CF_REASON_NONE: return "none";
    case CF_REASON_CHECKMATE: return "checkmate";
    case CF_REASON_STALEMATE: return "stalemate";
    case CF_REASON_INSUFFICIENT_MATERIAL: return "insufficient material";
    case CF_REASON_FIFTY_MOVES: return "fifty-move rule";
    case CF_REASON_THREEFOLD_REPETITION: return "threefold repetition";
  }
  return "unknown";
}
