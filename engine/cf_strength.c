/* cf_strength.c: the table of UCI_Elo levels (cf_strength.h). The rows come
 * from matches against Stockfish 15.1's UCI_Elo ladder at 200 ms a move
 * (docs/STRENGTH.md, "Limited strength"); a change of a row goes there too. */
#include "engine/cf_strength.h"

#include <math.h>

typedef struct row {
  int elo;
  double nodes;
  float temperature;
} row;

/* Anchors, 20-game matches at 200 ms a move (preliminary, intervals of about
 * +-200): 8 nodes with temperature 0.4 about 1110, 64 nodes with 0.1 about
 * 1185, 150 nodes with 0.05 about 1350 (40 games) and a 500-node cap about
 * 1510 (both cut by the clock near 140 evaluations). One node is the policy agent
 * (about 1020), widened by a temperature on its priors below that. The top row's nodes are only the end of the
 * interpolation: at CF_STRENGTH_ELO_MAX itself there is no limit. Nodes
 * must not fall and temperatures must not rise from row to row (the
 * strength test checks the levels it makes). */
static const row rows[] = {
    {1000, 1, 0.60f},
    {1100, 8, 0.40f},
    {1200, 64, 0.10f},
    {1400, 150, 0.05f},
    {1600, 400, 0.0f},
    {CF_STRENGTH_ELO_MAX, 8000, 0.0f},
};
#define N_ROWS ((int)(sizeof rows / sizeof rows[0]))

cf_strength_level cf_strength_at(int elo) {
  if (elo >= CF_STRENGTH_ELO_MAX) return (cf_strength_level){.nodes = 0, .temperature = 0};
  if (elo < rows[0].elo) elo = rows[0].elo;
  int i = 0;
  while (i + 2 < N_ROWS && elo >= rows[i + 1].elo) i++;
  const row *a = &rows[i], *b = &rows[i + 1];
  const double f = (double)(elo - a->elo) / (double)(b->elo - a->elo);
  /* Geometric in nodes: each step of Elo costs about the same factor. */
  const double nodes = exp(log(a->nodes) + f * (log(b->nodes) - log(a->nodes)));
  const float t = a->temperature + (float)f * (b->temperature - a->temperature);
  return (cf_strength_level){.nodes = (long)floor(nodes + 0.5), .temperature = t};
}
