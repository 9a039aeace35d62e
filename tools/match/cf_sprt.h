/* cf_sprt.h: a sequential probability ratio test over game pairs, the way
 * engine-testing frameworks (fishtest, cutechess-cli, fastchess) decide
 * whether a change gains elo1 or less than elo0.
 *
 * Games come in pairs (one opening, colours swapped), and a pair's score
 * (0, 0.5, 1, 1.5 or 2 points) is one sample of the pentanomial
 * distribution: pairing removes most of the opening's bias, so the test
 * needs fewer games than one that counts W/D/L alone. The statistic is the
 * generalized log-likelihood ratio: for each hypothesis the distribution
 * over the five outcomes closest (in likelihood) to the observed one whose
 * expected score is that hypothesis's, under the logistic Elo model
 * score = 1 / (1 + 10^(-elo/400)). The test stops when the LLR leaves
 * [log(beta / (1 - alpha)), log((1 - beta) / alpha)]. */
#ifndef CF_SPRT_H
#define CF_SPRT_H

#include <stdbool.h>

#define CF_SPRT_OUTCOMES 5 /* pair scores 0, 1/2, 1, 3/2, 2 points */

typedef enum { CF_SPRT_CONTINUE = 0, CF_SPRT_H0, CF_SPRT_H1 } cf_sprt_verdict;

typedef struct cf_sprt {
  double elo0, elo1, alpha, beta;
  double lower, upper;          /* the LLR's bounds */
  long pairs[CF_SPRT_OUTCOMES]; /* finished pairs by score, in half points */
  signed char *first_half;      /* per pair: the first finished game's half points, -1 none */
  int n_pairs_max;
} cf_sprt;

/* Parses "ELO0,ELO1[,ALPHA,BETA]" (alpha and beta 0.05 when left out).
 * Refuses elo0 >= elo1 and alpha or beta outside (0, 0.5), writing why. */
bool cf_sprt_parse(const char *text, cf_sprt *out, char *why, int why_size);

/* Makes room to pair up games 0 .. max_games - 1 (game 2k and 2k + 1 form
 * pair k). Returns false when out of memory. */
bool cf_sprt_begin(cf_sprt *s, int max_games);
void cf_sprt_end(cf_sprt *s);

/* Records game `index`'s result from the tested side's view in half points
 * (0 loss, 1 draw, 2 win); true when it completed a pair. */
bool cf_sprt_add_game(cf_sprt *s, int index, int half_points);

/* The LLR of the pairs so far (0 before any pair). */
double cf_sprt_llr(const cf_sprt *s);
cf_sprt_verdict cf_sprt_verdict_of(const cf_sprt *s);

/* The generalized LLR for pair counts `counts` between expected scores of
 * elo0 and elo1: exposed for the tests. Cells with no pair count as 1e-3
 * of a pair (fishtest's regularization) so the maximum-likelihood
 * distributions exist. */
double cf_sprt_llr_of_counts(const double counts[CF_SPRT_OUTCOMES], double elo0, double elo1);

#endif /* CF_SPRT_H */
