/* cf_search_group.c: many searches, one network call a round
 * (cf_search_group.h). */
#include "engine/search/cf_search_group.h"

#include <stdlib.h>
#include <string.h>

#include "common/cf_clock.h"
#include "engine/search/cf_search_internal.h"

/* Per job, across rounds. */
typedef struct job_state {
  bool running;  /* begun and not yet ended */
  int first, n;  /* its leaves in this round's call */
  bool expanded; /* the root had children when this round's batch began */
} job_state;

/* Ends job j: its result from its tree; status st. */
static void end_job(cf_search_job *j, job_state *js, cf_search_stop stop, cf_status st) {
  cf_search_end(j->search, st == CF_OK ? stop : CF_STOP_NONE, &j->result);
  if (j->status == CF_OK) j->status = st;
  js->running = false;
}

/* Each running job either ends (a stop rule) or gathers its next batch;
 * returns the leaves gathered in all. */
static long gather_round(cf_search_job *jobs, job_state *js, int n) {
  long total = 0;
  for (int i = 0; i < n; i++) {
    if (!js[i].running) continue;
    cf_search *s = jobs[i].search;
    const double now = cf_clock_now();
    const cf_search_stop stop = cf_search_next_stop(s, now);
    js[i].n = 0;
    if (stop != CF_STOP_NONE) {
      /* A held search waits for a stop that cannot come while the group
       * runs; it ends like a stopped one. */
      end_job(&jobs[i], &js[i], stop, CF_OK);
      continue;
    }
    js[i].expanded = s->root->edges != NULL;
    const int want = cf_search_batch_target(s, s->minibatch, now);
    const int got = cf_search_gather(s, &s->slots[0], want, &jobs[i].error);
    if (got < 0) {
      cf_search_finish(s, &s->slots[0], CF_ERR_NOMEM, NULL);
      end_job(&jobs[i], &js[i], CF_STOP_NONE, CF_ERR_NOMEM);
      continue;
    }
    js[i].first = (int)total;
    js[i].n = got;
    total += got;
  }
  return total;
}

/* Backs up each job's batch from the round's call (evaluated: its
 * status); a job whose batch found nothing to evaluate backs up too. */
static void finish_round(cf_search_job *jobs, job_state *js, int n, const cf_net_output *outs,
                         cf_status evaluated, const cf_error *why) {
  for (int i = 0; i < n; i++) {
    if (!js[i].running) continue;
    cf_search *s = jobs[i].search;
    cf_batch *b = &s->slots[0];
    if (js[i].n > 0) memcpy(b->outputs, outs + js[i].first, (size_t)js[i].n * sizeof *outs);
    const cf_status got = js[i].n > 0 ? evaluated : CF_OK;
    if (got != CF_OK && why) jobs[i].error = *why;
    const cf_status st = cf_search_finish(s, b, got, got == CF_OK ? &jobs[i].error : NULL);
    if (st != CF_OK) {
      end_job(&jobs[i], &js[i], CF_STOP_NONE, st);
      continue;
    }
    if (js[i].expanded) s->owe_batch = false; /* the owed batch below the root is done */
  }
}

/* The round's speed as each job saw it: its batch waited for the whole
 * call, so a timed search paces its next batch by that (cf_search_pace.c). */
static void note_round_speed(cf_search_job *jobs, const job_state *js, int n, double seconds,
                             double now) {
  for (int i = 0; i < n; i++) {
    if (!js[i].running || js[i].n <= 0) continue;
    cf_search *s = jobs[i].search;
    s->sec_per_eval = seconds / (double)js[i].n;
    if (s->first_eval_time <= 0) s->first_eval_time = now;
  }
}

cf_status cf_search_run_group(cf_net *net, cf_search_job *jobs, int n,
                              cf_search_group_stats *stats, cf_error *err) {
  cf_search_group_stats count = {0};
  job_state *js = calloc(n > 0 ? (size_t)n : 1, sizeof *js);
  if (!js) return cf_error_set(err, CF_ERR_NOMEM, "search group: out of memory");
  long cap = 0;
  for (int i = 0; i < n; i++) {
    cf_search_job *j = &jobs[i];
    j->status = CF_OK;
    j->error = (cf_error){0};
    bool done = true;
    j->status = cf_search_begin(j->search, net, j->game, &j->limits, false, &j->result, &done,
                                &j->error);
    js[i].running = j->status == CF_OK && !done;
    if (js[i].running) cap += j->search->minibatch;
  }
  cf_net_request *reqs = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *reqs);
  cf_net_output *outs = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *outs);
  cf_status st = CF_OK;
  if (!reqs || !outs) st = cf_error_set(err, CF_ERR_NOMEM, "search group: out of memory");
  for (bool any = st == CF_OK; any;) {
    const long total = gather_round(jobs, js, n);
    for (int i = 0; i < n; i++) {
      if (!js[i].running || js[i].n == 0) continue;
      const cf_batch *b = &jobs[i].search->slots[0];
      memcpy(reqs + js[i].first, b->requests, (size_t)js[i].n * sizeof *reqs);
      memcpy(outs + js[i].first, b->outputs, (size_t)js[i].n * sizeof *outs);
    }
    cf_error why = {0};
    const double t0 = cf_clock_now();
    const cf_status evaluated = total > 0 ? cf_net_eval(net, (int)total, reqs, outs, &why) : CF_OK;
    const double now = cf_clock_now();
    if (total > 0) count.calls++, count.leaves += total;
    if (evaluated == CF_OK) note_round_speed(jobs, js, n, now - t0, now);
    finish_round(jobs, js, n, outs, evaluated, &why);
    any = false;
    for (int i = 0; i < n; i++) any = any || js[i].running;
  }
  /* Out of memory before the first round: the begun searches end as they are. */
  for (int i = 0; i < n; i++)
    if (js[i].running) {
      jobs[i].error = *err;
      end_job(&jobs[i], &js[i], CF_STOP_NONE, st);
    }
  free(reqs);
  free(outs);
  free(js);
  if (stats) *stats = count;
  if (st != CF_OK) return st;
  for (int i = 0; i < n; i++)
    if (jobs[i].status != CF_OK) {
      *err = jobs[i].error;
      return jobs[i].status;
    }
  return CF_OK;
}
