/* analyse_record.h: what `cformer analyse` computes for one position: the
 * network's own outputs and, when a search is asked for, the agent's. The
 * writers (JSONL, CSV, annotated PGN) read it; nothing here is text. */
#ifndef ANALYSE_RECORD_H
#define ANALYSE_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "chess/cf_fen.h"
#include "chess/cf_move.h"
#include "chess/cf_position.h"
#include "engine/cf_agent.h"
#include "tools/analyse/analyse_units.h"

#define ANALYSE_TOP_K_MAX 64
#define ANALYSE_MULTIPV_MAX 32

/* One line of the agent: a root move, its value and its continuation. */
typedef struct analyse_line {
  cf_move move;
  float q, wdl[3]; /* from the side to move */
  int mate;        /* > 0 mate in this many moves, < 0 mated, 0 none known */
  long visits;     /* the search's visits to the move; -1 for a one-ply agent */
  int pv_len;
  cf_move pv[CF_AGENT_PV_MAX];
} analyse_line;

typedef struct analyse_root_visits {
  cf_move move;
  uint32_t n;
} analyse_root_visits;

/* A position with no legal move is over, and scored exactly: checkmate a
 * loss for the side to move (W/D/L 0/0/1, Q -1), stalemate a draw (0/1/0,
 * Q 0), moves left 0; the network's outputs for it are not used. */
typedef enum analyse_terminal { ANALYSE_PLAYING, ANALYSE_CHECKMATE, ANALYSE_STALEMATE } analyse_terminal;

typedef struct analyse_record {
  const analyse_unit *unit; /* source: unit->game, the file given to the writer */
  int ply;
  cf_position pos;
  char fen[CF_FEN_MAX];
  cf_move played; /* the move the game played from here; CF_MOVE_NONE at its end */
  /* the network */
  float wdl[3], q, moves_left; /* side to move; moves_left NAN without the head */
  int n_legal;
  analyse_terminal terminal;
  int n_top; /* the top-k moves by policy, best first */
  cf_move top[ANALYSE_TOP_K_MAX];
  float top_p[ANALYSE_TOP_K_MAX];
  /* the agent (searched == false: net-only) */
  bool searched;
  long nodes, evals;
  int depth;
  int n_lines; /* lines[0] is the best move's */
  analyse_line lines[ANALYSE_MULTIPV_MAX];
  int n_root;  /* visits per root move (the search agent), best first */
  analyse_root_visits root[CF_MAX_MOVES];
} analyse_record;

/* Expected score (win 1, draw 1/2) for the side to move of a W/D/L. */
static inline float analyse_expected_score(const float wdl[3]) { return wdl[0] + 0.5f * wdl[1]; }

#endif /* ANALYSE_RECORD_H */
