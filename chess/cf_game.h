/* cf_game.h: a game as its start position plus the moves played, with
 * what the rules and the network input need at every ply: the position,
 * how often it occurred before (Zobrist keys, confirmed by comparing the
 * positions), and the game's result and its reason.
 *
 * The network input encoder reads history positions newest first:
 *
 *     for (int k = 0; k < 8 && k < game->count; k++) {
 *       const cf_game_ply *ply = &game->plies[game->count - 1 - k];
 *       ply->pos.pieces[colour][type], ply->pos.side, ply->pos.castling,
 *       ply->pos.castle_rook[i], ply->pos.ep_square (or double_step_square,
 *       see cf_position.h), ply->pos.rule50, ply->repetitions ...
 *     }
 *
 * Draws by threefold repetition and the fifty-move rule are reported as
 * game results as soon as they occur (as engines and Lc0 do), not as
 * claims. */
#ifndef CF_GAME_H
#define CF_GAME_H

#include "chess/cf_move.h"
#include "chess/cf_position.h"
#include "common/cf_status.h"

typedef struct cf_game_ply {
  cf_position pos;   /* the position at this ply (ply 0: the start position) */
  cf_move move;      /* the move that led here from the previous ply; CF_MOVE_NONE at ply 0 */
  int repetitions;   /* earlier occurrences of pos in this game: 0 the first time,
                        2 on the third occurrence (a threefold repetition) */
} cf_game_ply;

typedef struct cf_game {
  cf_game_ply *plies; /* owned; plies[0 .. count-1], oldest first */
  int count;          /* >= 1 after cf_game_init */
  int capacity;
} cf_game;

typedef enum cf_game_result {
  CF_RESULT_ONGOING = 0,
  CF_RESULT_WHITE_WINS,
  CF_RESULT_BLACK_WINS,
  CF_RESULT_DRAW
} cf_game_result;

typedef enum cf_game_reason {
  CF_REASON_NONE = 0,
  CF_REASON_CHECKMATE,
  CF_REASON_STALEMATE,
  CF_REASON_INSUFFICIENT_MATERIAL,
  CF_REASON_FIFTY_MOVES,
  CF_REASON_THREEFOLD_REPETITION
} cf_game_reason;

/* Starts a game at *start (NULL: the standard start position). Allocates;
 * release with cf_game_free. On error *game is left empty (count 0). */
cf_status cf_game_init(cf_game *game, const cf_position *start, cf_error *err);

/* Starts a game at a FEN (see cf_position_from_fen for the errors). */
cf_status cf_game_init_fen(cf_game *game, const char *fen, cf_error *err);

/* Releases the plies; accepts NULL and an already freed game. */
void cf_game_free(cf_game *game);

/* dst becomes a copy of src's whole history (dst is initialised here;
 * cf_game_free it). */
cf_status cf_game_copy(cf_game *dst, const cf_game *src, cf_error *err);

static inline const cf_position *cf_game_position(const cf_game *game) {
  return &game->plies[game->count - 1].pos;
}

/* Plays move, which must be legal in the current position (CF_ERR_ARG
 * otherwise, naming it), and records the new position. Moves may be played
 * after the game has ended; the result stays what cf_game_outcome says of
 * the last position. */
cf_status cf_game_push(cf_game *game, cf_move move, cf_error *err);

/* cf_game_push for a move already known legal in the current position (one
 * from cf_generate_legal or cf_move_parse_uci of it, such as a search
 * tree's edge): no legality check, which costs a full move generation.
 * Fails only when the history cannot grow (CF_ERR_NOMEM). Passing any
 * other move leaves the game in an undefined state. */
cf_status cf_game_push_legal(cf_game *game, cf_move move, cf_error *err);

/* Plays a move given as UCI text (see cf_move_parse_uci). */
cf_status cf_game_push_uci(cf_game *game, const char *text, cf_error *err);

/* Takes back the last move; does nothing at ply 0. */
void cf_game_pop(cf_game *game);

/* The result at the current position and, if reason is not NULL, why.
 * Checked in this order: checkmate, stalemate, insufficient material, the
 * fifty-move rule (a mate on the hundredth half-move still counts as mate),
 * threefold repetition. */
cf_game_result cf_game_outcome(const cf_game *game, cf_game_reason *reason);

/* Plies back from the current position to its most recent earlier
 * occurrence in the game (2, 4, ...), or 0 when it has not occurred before.
 * A tree search uses it to tell a repetition inside its tree from one that
 * reaches back into the game played. */
int cf_game_repetition_distance(const cf_game *game);

/* The same for a lone position: everything but repetition. */
cf_game_result cf_position_outcome(const cf_position *pos, cf_game_reason *reason);

/* Neither side can ever mate: no pawns, rooks or queens, and at most one
 * minor piece on the board or only bishops, all on squares of one colour. */
int cf_position_insufficient_material(const cf_position *pos);

/* Short stable text for results ("1-0", "0-1", "1/2-1/2", "*") and reasons
 * ("checkmate", "threefold repetition", ...). Never NULL. */
const char *cf_game_result_name(cf_game_result result);
const char *cf_game_reason_name(cf_game_reason reason);

#endif /* CF_GAME_H */
