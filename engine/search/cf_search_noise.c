/* cf_search_noise.c: Dirichlet noise on the root's priors, as Lc0 adds it
 * in selfplay (DirichletNoiseEpsilon, DirichletNoiseAlpha): each prior
 * becomes (1 - eps) p + eps eta, eta drawn from Dirichlet(alpha) as
 * normalised Gamma(alpha) draws. The generator is the engine's own
 * splitmix64 (cf_temperature.h), seeded by cf_search_seed, so a run
 * repeats exactly from its seed; no library generator (rand, glibc's
 * distributions) is used, whose sequences differ between systems. */
#include <math.h>

#include "engine/cf_temperature.h"
#include "engine/search/cf_search_internal.h"

void cf_search_seed(cf_search *s, uint64_t seed) {
  s->noise_rng = seed;
  s->noised = NULL;
}

/* Uniform in (0, 1): never 0, so logs stay finite. */
static double uniform(uint64_t *rng) {
  return ((double)(cf_temperature_rng_next(rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* A standard normal draw (Box-Muller, one of the pair). */
static double normal(uint64_t *rng) {
  const double u = uniform(rng), v = uniform(rng);
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Gamma(alpha, 1) by Marsaglia and Tsang's method; alpha < 1 through
 * Gamma(alpha + 1) U^(1 / alpha). */
static double gamma_draw(uint64_t *rng, double alpha) {
  if (alpha < 1.0) return gamma_draw(rng, alpha + 1.0) * pow(uniform(rng), 1.0 / alpha);
  const double d = alpha - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = normal(rng);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform(rng);
    if (log(u) < 0.5 * x * x + d - d * v + d * log(v)) return d * v;
  }
}

void cf_search_noise_root(cf_search *s, bool once_only) {
  cf_snode *root = s->root;
  const double eps = s->params.noise_epsilon;
  if (eps <= 0 || !root || !root->edges || root->n_edges == 0) return;
  if (once_only && s->noised == root) return;
  s->noised = root;
  double eta[CF_MAX_MOVES], sum = 0;
  const int n = root->n_edges < CF_MAX_MOVES ? root->n_edges : CF_MAX_MOVES;
  for (int i = 0; i < n; i++) sum += eta[i] = gamma_draw(&s->noise_rng, s->params.noise_alpha);
  /* All draws underflowing to 0 (a tiny alpha) leaves the priors alone,
   * as Lc0 does, rather than dividing by zero. */
  if (!(sum > 0)) return;
  for (int i = 0; i < n; i++)
    root->edges[i].p = (float)((1.0 - eps) * root->edges[i].p + eps * eta[i] / sum);
}
