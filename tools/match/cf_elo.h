/* cf_elo.h: the Elo difference a match score implies, with a 95% interval
 * from the per-game score variance (the usual normal approximation used
 * by cutechess-cli and fastchess). */
#ifndef CF_ELO_H
#define CF_ELO_H

typedef struct cf_elo {
  double diff;       /* Elo of the first player over the second; +-INFINITY at 100% / 0% */
  double lo, hi;     /* 95% interval; when every game was lost (won), the upper
                        (lower) end is the exact binomial 95% bound, and when
                        every game was drawn both ends come from the exact
                        bound on the share of decisive games */
  double score;      /* (W + D / 2) / games */
} cf_elo;

/* W, D, L from the first player's view; games = W + D + L > 0. */
cf_elo cf_elo_from_wdl(int wins, int draws, int losses);

/* Elo difference for an expected score in (0, 1). */
double cf_elo_of_score(double score);

#endif /* CF_ELO_H */
