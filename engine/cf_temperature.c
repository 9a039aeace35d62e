/* cf_temperature.c: Lc0's move choice with a temperature (cf_temperature.h). */
#include "engine/cf_temperature.h"

#include <math.h>

float cf_temperature_at(const cf_temperature_params *p, int game_ply) {
  const int moves = game_ply / 2;
  if (p->cutoff_move > 0 && moves + 1 >= p->cutoff_move) return p->endgame;
  float t = p->temperature;
  if (t > 0 && p->decay_moves > 0) {
    if (moves >= p->decay_delay_moves + p->decay_moves)
      t = 0;
    else if (moves >= p->decay_delay_moves)
      t *= (float)(p->decay_delay_moves + p->decay_moves - moves) / (float)p->decay_moves;
    if (t < p->endgame) t = p->endgame; /* the decay stops at the endgame temperature */
  }
  return t;
}

double cf_temperature_weights(const cf_temperature_move *m, int n, float temperature,
                              float visit_offset, float value_cutoff, double *w) {
  /* The reference value is the move with the most adjusted visits (the
   * first such); with none above 0 every move passes the value cut. */
  double max_n = 0;
  float max_q = -1.0f;
  for (int i = 0; i < n; i++)
    if (m[i].n + visit_offset > max_n) {
      max_n = m[i].n + visit_offset;
      max_q = m[i].q;
    }
  const float min_q = max_q - value_cutoff / 50.0f;
  double sum = 0;
  for (int i = 0; i < n; i++) {
    w[i] = 0;
    if (m[i].q < min_q) continue;
    const double base = max_n <= 0 ? (double)m[i].p : (m[i].n + visit_offset) / max_n;
    w[i] = pow(base > 0 ? base : 0, 1.0 / temperature);
    sum += w[i];
  }
  return sum;
}

int cf_temperature_pick(const cf_temperature_move *m, int n, float temperature, float visit_offset,
                        float value_cutoff, double toss) {
  double w[256];
  if (n <= 0 || n > 256 || !(temperature > 0)) return -1;
  const double sum = cf_temperature_weights(m, n, temperature, visit_offset, value_cutoff, w);
  if (!(sum > 0)) return -1;
  double at = toss * sum, acc = 0;
  int last = -1;
  for (int i = 0; i < n; i++) {
    if (w[i] <= 0) continue;
    acc += w[i];
    last = i;
    if (at < acc) return i;
  }
  return last; /* rounding at the top end */
}

uint64_t cf_temperature_rng_next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double cf_temperature_toss(uint64_t *state) {
  return (double)(cf_temperature_rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}
