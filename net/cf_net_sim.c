/* cf_net_sim.c: the simulated accelerator's answers (see the header). */
#include "net/cf_net_sim.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "common/cf_clock.h"

/* splitmix64's finaliser: every input bit moves every output bit. */
static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static uint64_t planes_hash(const cf_planes *p) {
  uint64_t h = 0x51u;
  for (int j = 0; j < CF_PLANE_COUNT; j++) {
    uint32_t bits;
    memcpy(&bits, &p->value[j], sizeof bits);
    h = mix(h ^ p->mask[j] ^ ((uint64_t)bits << 17));
  }
  return h;
}

/* Our material minus theirs, from the current board's twelve piece planes
 * (ours P N B R Q K, then theirs). */
static int material_balance(const cf_planes *p) {
  static const int worth[6] = {1, 3, 3, 5, 9, 0};
  int balance = 0;
  for (int j = 0; j < 12; j++) {
    const int count = p->value[j] != 0 ? __builtin_popcountll(p->mask[j]) : 0;
    balance += (j < 6 ? 1 : -1) * worth[j % 6] * count;
  }
  return balance;
}

void cf_net_sim_answer(const cf_net_info *info, const cf_planes *planes, int transform,
                       const cf_net_request *r, cf_net_output *o) {
  const uint64_t h = planes_hash(planes);
  for (int head = 0; head < CF_POLICY_HEAD_COUNT; head++) {
    if (!o->policy[head]) continue;
    for (int i = 0; i < r->n_moves; i++) {
      const cf_policy_move m = r->moves[i];
      const uint64_t k = mix(h ^ ((uint64_t)m.from << 16 | (uint64_t)m.to << 8 | m.promo));
      o->policy[head][i] = (float)((double)(k >> 40) / (double)(1u << 24) * 4.0 - 2.0);
    }
  }
  const float q = tanhf((float)material_balance(planes) / 8.0f);
  const float draw = 0.3f;
  cf_value_result win = {.outputs = 3, .q = q * (1.0f - draw)};
  win.wdl[0] = (1.0f - draw) * (1.0f + q) / 2.0f;
  win.wdl[1] = draw;
  win.wdl[2] = (1.0f - draw) * (1.0f - q) / 2.0f;
  for (int v = 0; v < CF_VALUE_HEAD_COUNT; v++)
    if (info->value_heads >> v & 1) o->value[v] = win;
  o->q = win.q;
  memcpy(o->wdl, win.wdl, sizeof o->wdl);
  o->moves_left = info->has_moves_left ? 60.0f : NAN;
  o->transform = transform;
}

void cf_net_sim_wait_until(double t) {
  for (;;) {
    const double left = t - cf_clock_now();
    if (left <= 0) return;
    struct timespec nap = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
    if (nanosleep(&nap, NULL) == 0 || errno != EINTR) return;
  }
}
