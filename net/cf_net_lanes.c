/* cf_net_lanes.c: a pool of sleeping threads, one per extra lane
 * (cf_net_lanes.h). One pass at a time: the caller hands out jobs by
 * bumping a generation number under the mutex and waits until every worker
 * has reported back. */
#include "net/cf_net_lanes.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct cf_lane_pool {
  int workers;
  pthread_t *threads;
  int started; /* threads created (joined on free) */
  pthread_mutex_t mu;
  pthread_cond_t work; /* a new generation, or quit */
  pthread_cond_t done; /* a worker finished its job */
  unsigned long generation;
  int jobs;    /* jobs of the current generation (job 0 is the caller's) */
  int pending; /* workers still running this generation's jobs */
  bool quit;
  void (*fn)(void *arg, int job);
  void *arg;
};

typedef struct worker_start {
  cf_lane_pool *pool;
  int job;
} worker_start;

static void *worker_main(void *p) {
  worker_start start = *(worker_start *)p;
  free(p);
  cf_lane_pool *pool = start.pool;
  unsigned long seen = 0;
  pthread_mutex_lock(&pool->mu);
  for (;;) {
    while (!pool->quit && pool->generation == seen) pthread_cond_wait(&pool->work, &pool->mu);
    if (pool->quit) break;
    seen = pool->generation;
    if (start.job >= pool->jobs) continue; /* not needed this pass */
    void (*fn)(void *, int) = pool->fn;
    void *arg = pool->arg;
    pthread_mutex_unlock(&pool->mu);
    fn(arg, start.job);
    pthread_mutex_lock(&pool->mu);
    if (--pool->pending == 0) pthread_cond_signal(&pool->done);
  }
  pthread_mutex_unlock(&pool->mu);
  return NULL;
}

cf_status cf_lane_pool_create(int workers, cf_lane_pool **out, cf_error *err) {
  *out = NULL;
  if (workers < 0 || workers >= CF_NET_MAX_LANES)
    return cf_error_set(err, CF_ERR_ARG, "lanes: %d worker threads is out of range", workers);
  cf_lane_pool *pool = calloc(1, sizeof *pool);
  if (!pool) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  pool->workers = workers;
  pthread_mutex_init(&pool->mu, NULL);
  pthread_cond_init(&pool->work, NULL);
  pthread_cond_init(&pool->done, NULL);
  if (workers > 0) {
    pool->threads = calloc((size_t)workers, sizeof *pool->threads);
    if (!pool->threads) {
      cf_lane_pool_free(pool);
      return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
    }
  }
  for (int i = 0; i < workers; i++) {
    worker_start *s = malloc(sizeof *s);
    if (s) *s = (worker_start){.pool = pool, .job = i + 1};
    if (!s || pthread_create(&pool->threads[i], NULL, worker_main, s) != 0) {
      free(s);
      cf_lane_pool_free(pool);
      return cf_error_set(err, CF_ERR_BACKEND, "lanes: cannot start thread %d of %d", i + 1,
                          workers);
    }
    pool->started++;
  }
  *out = pool;
  return CF_OK;
}

void cf_lane_pool_run(cf_lane_pool *pool, int jobs, void (*fn)(void *arg, int job), void *arg) {
  if (jobs > pool->workers + 1) jobs = pool->workers + 1;
  if (jobs > 1) {
    pthread_mutex_lock(&pool->mu);
    pool->fn = fn;
    pool->arg = arg;
    pool->jobs = jobs;
    pool->pending = jobs - 1;
    pool->generation++;
    pthread_cond_broadcast(&pool->work);
    pthread_mutex_unlock(&pool->mu);
  }
  if (jobs > 0) fn(arg, 0);
  if (jobs > 1) {
    pthread_mutex_lock(&pool->mu);
    while (pool->pending > 0) pthread_cond_wait(&pool->done, &pool->mu);
    pthread_mutex_unlock(&pool->mu);
  }
}

void cf_lane_pool_free(cf_lane_pool *pool) {
  if (!pool) return;
  pthread_mutex_lock(&pool->mu);
  pool->quit = true;
  pthread_cond_broadcast(&pool->work);
  pthread_mutex_unlock(&pool->mu);
  for (int i = 0; i < pool->started; i++) pthread_join(pool->threads[i], NULL);
  pthread_mutex_destroy(&pool->mu);
  pthread_cond_destroy(&pool->work);
  pthread_cond_destroy(&pool->done);
  free(pool->threads);
  free(pool);
}
