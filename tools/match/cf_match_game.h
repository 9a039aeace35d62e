/* cf_match_game.h: one game between two running UCI engines from an
 * opening, adjudicated by the rules: mate, stalemate, threefold repetition,
 * fifty-move rule, insufficient material; an illegal or malformed move, a
 * crash or a timeout loses; a game past max_plies is drawn. */
#ifndef CF_MATCH_GAME_H
#define CF_MATCH_GAME_H

#include <stdint.h>

#include "chess/cf_game.h"
#include "tools/match/cf_engine_proc.h"

/* How long each engine gets: `go movetime`, or `go nodes` for a side whose
 * nodes are set (a fixed-node move may take CF_MATCH_NODES_WAIT_MS plus the
 * margin before it is a timeout). */
#define CF_MATCH_NODES_WAIT_MS 120000
typedef struct cf_match_limits {
  /* A clock for both sides (`--tc BASE+INC`): each starts with base_ms, gains
   * inc_ms after each of its moves, and is sent as go wtime/btime/winc/binc;
   * the time from go to bestmove is taken off, and a side whose clock falls
   * below zero loses on time. tc_base_ms 0 = no clock (movetime). */
  double tc_base_ms, tc_inc_ms;
  int movetime_ms;  /* go movetime, for a side without nodes or a clock */
  long nodes[2];    /* go nodes N for White [0] and Black [1]; 0 = movetime */
  int margin_ms;    /* extra time before a move counts as a timeout */
  int max_plies;    /* adjudicated a draw past this many plies (0 = 1000) */
} cf_match_limits;

typedef struct cf_match_game_result {
  cf_game_result result;  /* from White's view */
  char reason[384];       /* "checkmate", "illegal move e2e5 by X", "timeout", ... */
  bool rules_end;         /* ended by the rules (not by a fault or the ply cap) */
  cf_game game;           /* the moves played (owned; cf_game_free) */
  int opening_plies;      /* plies that came from the opening */
  long evals_sum[2];      /* nodes reported by each engine's last info line, summed */
  int engine_moves[2];    /* moves made by each engine */
  double clock_left_ms[2];/* with a clock: each side's time left at the end */
} cf_match_game_result;

/* Plays white vs black from the opening (UCI moves from the start
 * position). The engines get ucinewgame first. On a fault the process
 * that failed may be dead; the caller restarts it. Returns CF_OK whenever
 * a result was reached (faults are results); errors only for bad openings. */
cf_status cf_match_play(cf_engine_proc *white, cf_engine_proc *black, const char *opening,
                        const cf_match_limits *limits, cf_match_game_result *out, cf_error *err);

/* A 64-bit key of the moves a game went through (FNV-1a over the moves):
 * equal for two games that repeat each other move for move, so a match can
 * count its distinct games. */
uint64_t cf_match_game_key(const cf_game *game);

#endif /* CF_MATCH_GAME_H */
