/* cf_net_lanes.h: the threads that evaluate parts of one batch side by side.
 *
 * A network created with lanes=N (cf_net_options.lanes, the option key
 * `lanes`, the engine's Threads) holds N complete copies of its backend
 * state, one per lane, and splits each pass's positions across them: lane 0
 * runs on the caller's thread, lanes 1..N-1 on threads of this pool. The
 * pool's threads sleep on a condition variable between passes and never
 * spin, so a lane whose core is taken by another process costs only the
 * wait for its own part: more lanes than free cores cannot make a pass much
 * slower than one lane, unlike a spinning OpenMP team. */
#ifndef CF_NET_LANES_H
#define CF_NET_LANES_H

#include "common/cf_status.h"

/* The most lanes a network accepts (more is surely a typo). */
#define CF_NET_MAX_LANES 64

typedef struct cf_lane_pool cf_lane_pool;

/* A pool of `workers` sleeping threads (0 is valid: no thread). */
cf_status cf_lane_pool_create(int workers, cf_lane_pool **out, cf_error *err);

/* Runs fn(arg, j) for j = 0..jobs-1: job 0 on the caller's thread, job j
 * on worker j-1; returns when all have returned. jobs <= workers + 1. */
void cf_lane_pool_run(cf_lane_pool *pool, int jobs, void (*fn)(void *arg, int job), void *arg);

/* Ends and joins the threads. NULL is a no-op. */
void cf_lane_pool_free(cf_lane_pool *pool);

#endif /* CF_NET_LANES_H */
