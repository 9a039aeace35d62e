/* cf_strength.h: UCI_LimitStrength / UCI_Elo (cformer's own; Lc0 has none).
 * A level is a node limit and a temperature on the root's visits (the
 * policy's priors at one node), read from a small table of calibrated rows
 * (cf_strength.c) with interpolation between them: nodes geometrically,
 * temperature linearly. Because a level is counted in nodes, not time, it
 * plays the same on a fast or a slow machine, above the time a move that
 * its nodes need. Lower Elo never gets more nodes or a lower temperature. */
#ifndef CF_STRENGTH_H
#define CF_STRENGTH_H

/* The range of UCI_Elo. The top is the full strength's estimate on
 * Stockfish 15.1's UCI_Elo scale with the built-in network (docs/STRENGTH.md):
 * there the engine searches without a node limit, as with the option off. */
#define CF_STRENGTH_ELO_MIN 1000
#define CF_STRENGTH_ELO_MAX 1800
/* The top as text: UCI_Elo's default (full strength, as with the option off). */
#define CF_STRENGTH_TEXT_(x) #x
#define CF_STRENGTH_TEXT(x) CF_STRENGTH_TEXT_(x)
#define CF_STRENGTH_ELO_MAX_TEXT CF_STRENGTH_TEXT(CF_STRENGTH_ELO_MAX)

typedef struct cf_strength_level {
  long nodes;        /* the most nodes a move; 0 = no limit (full strength) */
  float temperature; /* on the root's visits (cf_temperature.h); 0 = the best move */
} cf_strength_level;

/* The level of elo, clamped to [CF_STRENGTH_ELO_MIN, CF_STRENGTH_ELO_MAX]. */
cf_strength_level cf_strength_at(int elo);

#endif /* CF_STRENGTH_H */
