/* cf_temperature.h: the move played with a temperature, Lc0's rule: a root
 * move is drawn with weight ((N + TempVisitOffset) / max)^(1 / T), N its
 * visits and max the largest N + TempVisitOffset (by prior, P^(1 / T), when
 * no move has a positive adjusted count: the policy agent's case); moves
 * whose value is more than TempValueCutoff / 50 below the most visited
 * move's are left out. T follows Lc0's schedule over the game
 * (cf_temperature_at). Temperature 0 (the default) plays the best move. */
#ifndef CF_TEMPERATURE_H
#define CF_TEMPERATURE_H

#include <stdint.h>

typedef struct cf_temperature_params {
  float temperature;    /* Temperature: Lc0 default 0, range 0..100 */
  int decay_moves;      /* TempDecayMoves: 0 = no decay (0..640) */
  int decay_delay_moves;/* TempDecayDelayMoves: moves before the decay starts (0..100) */
  int cutoff_move;      /* TempCutoffMove: from this move on TempEndgame is used; 0 = never */
  float endgame;        /* TempEndgame: 0..100, also the decay's floor */
  float value_cutoff;   /* TempValueCutoff: win percentage below the best, 0..100 (100) */
  float visit_offset;   /* TempVisitOffset: added to every N, -1000..1000 (0) */
} cf_temperature_params;

/* T for the move at game_ply (plies from the game's start, as the FEN's
 * move number counts them): Lc0's schedule with move = game_ply / 2. */
float cf_temperature_at(const cf_temperature_params *p, int game_ply);

/* One candidate: visits, prior and value (Q from the mover's view). */
typedef struct cf_temperature_move {
  double n;
  float p, q;
} cf_temperature_move;

/* The weights of Lc0's draw (not normalised) to w[0..n): 0 for a move left
 * out. Returns their sum (0: nothing can be drawn, play the best move). */
double cf_temperature_weights(const cf_temperature_move *m, int n, float temperature,
                              float visit_offset, float value_cutoff, double *w);

/* The index drawn with the weights for toss in [0, 1); -1 when none. */
int cf_temperature_pick(const cf_temperature_move *m, int n, float temperature, float visit_offset,
                        float value_cutoff, double toss);

/* A small reproducible generator (splitmix64) for the toss: the engine's
 * Seed option sets its state. */
uint64_t cf_temperature_rng_next(uint64_t *state);
/* A toss in [0, 1) from the generator. */
double cf_temperature_toss(uint64_t *state);

#endif /* CF_TEMPERATURE_H */
