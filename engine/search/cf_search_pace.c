/* cf_search_pace.c: how many leaves the next batch may take and the waits
 * of NodesPerSecondLimit (pure functions of a stats snapshot,
 * cf_search_stats.h), and when a progress line is due. */
#include <stdatomic.h>
#include <time.h>

#include "common/cf_clock.h"
#include "engine/search/cf_search_internal.h"

/* The longest one network call should take: how late a stop may be
 * honoured. Batches are cut to fit it once the speed is known. */
#define STOP_LATENCY_S 0.1
/* Progress lines at least this often. */
#define INFO_INTERVAL_S 5.0

int cf_pace_batch_target(const cf_search_stats *st, int minibatch) {
  const double now = st->now;
  int want = minibatch;
  if (st->visits_limit > 0) {
    long left = st->visits_limit - (long)(st->root_n + st->root_in_flight);
    if (left < want) want = left > 0 ? (int)left : 1;
  }
  const double sec_per_eval = st->sec_per_eval;
  if (st->owe_batch && st->root_expanded) {
    /* The owed minibatch (one_minibatch): as many positions as the whole
     * budget fits at the measured speed (at least one), so a slow network
     * does not overrun a short budget by a whole minibatch. */
    if (sec_per_eval > 0 && st->deadline > 0) {
      const double fit = (st->deadline - st->start_time) / sec_per_eval;
      if (fit < want) want = fit >= 1 ? (int)fit : 1;
    }
  } else if (sec_per_eval > 0 && (st->deadline > 0 || st->infinite)) {
    /* A batch cannot be interrupted: in a timed or held search keep it
     * within the stop latency and the time left. (A node-limited search
     * keeps whole batches, so its tree does not depend on timing.) */
    double budget = STOP_LATENCY_S;
    if (st->deadline > 0 && st->deadline - now < budget) budget = st->deadline - now;
    double fit = budget / sec_per_eval;
    if (fit < want) want = fit >= 1 ? (int)fit : 1;
  } else if (st->deadline > 0 && now >= st->deadline) {
    /* Out of time before any batch was timed (a clock at zero, a budget
     * spent loading the net): one position, the least work that gives a
     * move, not a whole minibatch behind a root the NN cache answered. */
    want = 1;
  }
  return want;
}

void cf_info_throttle_init(cf_info_throttle *t, double now) {
  *t = (cf_info_throttle){.last = now, .best = CF_MOVE_NONE, .depth = -1, .seldepth = -1};
}

bool cf_info_throttle_due(cf_info_throttle *t, const cf_search_info *info, double now) {
  if (info->best == t->best && info->depth == t->depth && info->seldepth == t->seldepth &&
      now - t->last < INFO_INTERVAL_S)
    return false;
  t->last = now;
  t->best = info->best;
  t->depth = info->depth;
  t->seldepth = info->seldepth;
  return true;
}

double cf_pace_nps_wait(const cf_search_stats *st) {
  const double limit = st->nps_limit;
  if (limit <= 0) return 0;
  /* Lc0 measures from the first batch's evaluation (from the start until
   * there is one). */
  const double since = st->first_eval_time > 0 ? st->first_eval_time : st->start_time;
  const double wait = (double)st->playouts / limit - (st->now - since);
  return wait > 0 ? wait : 0;
}

void cf_search_pace_nps(const cf_search *s, const atomic_bool *stop) {
  for (;;) {
    const double now = cf_clock_now();
    cf_search_stats st;
    cf_search_stats_fill(s, now, &st);
    const double wait = cf_pace_nps_wait(&st);
    if (wait <= 0 || (stop && atomic_load(stop))) return;
    if (s->limits->deadline > 0 && now >= s->limits->deadline) return;
    /* A millisecond at a time, as Lc0, so a stop is heard soon. */
    struct timespec nap = {0, wait < 0.001 ? (long)(wait * 1e9) : 1000000L};
    nanosleep(&nap, NULL);
  }
}
