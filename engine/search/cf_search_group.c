/* cf_search_group.c: many searches, one network call a round
 * (cf_search_group.h).
 *
 * On a device backend the jobs are split into two parts that take turns:
 * while one part's call is on the device (a cf_net_stream), the other
 * backs up its last call and gathers its next, so the device is not idle
 * while the CPU walks the trees. Each search still makes its batches one
 * after another, so its result does not change. On a CPU backend one part
 * (the backend's threads already use the cores). */
#include "engine/search/cf_search_group.h"

#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "common/cf_clock.h"
#include "engine/search/cf_search_internal.h"

/* Per job, across rounds. */
typedef struct job_state {
  bool running;  /* begun and not yet ended */
  int first, n;  /* its leaves in its part's current call */
  bool expanded; /* the root had children when this round's batch began */
} job_state;

/* A part: jobs [lo, hi) and the call their leaves go in. */
typedef struct part {
  int lo, hi;
  cf_net_request *reqs;
  cf_net_output *outs;
  long total;    /* leaves in the call */
  double sent;   /* when the call was submitted */
} part;

typedef struct group {
  cf_net *net;
  cf_search_job *jobs;
  job_state *js;
  cf_net_stream *stream; /* NULL: calls are made in place */
  cf_search_group_stats count;
} group;

/* Ends job j: its result from its tree; status st. */
static void end_job(cf_search_job *j, job_state *js, cf_search_stop stop, cf_status st) {
  cf_search_end(j->search, st == CF_OK ? stop : CF_STOP_NONE, &j->result);
  if (j->status == CF_OK) j->status = st;
  js->running = false;
}

static bool part_running(const group *g, const part *p) {
  for (int i = p->lo; i < p->hi; i++)
    if (g->js[i].running) return true;
  return false;
}

/* Each running job of p either ends (a stop rule) or gathers its next
 * batch; the leaves go into p's call. */
static void gather_part(group *g, part *p) {
  p->total = 0;
  for (int i = p->lo; i < p->hi; i++) {
    job_state *js = &g->js[i];
    if (!js->running) continue;
    cf_search_job *j = &g->jobs[i];
    cf_search *s = j->search;
    cf_search_stats stats;
    const cf_search_stop stop = cf_search_next_stop(s, cf_clock_now(), &stats);
    js->n = 0;
    if (stop != CF_STOP_NONE) {
      /* A held search waits for a stop that cannot come while the group
       * runs; it ends like a stopped one. */
      end_job(j, js, stop, CF_OK);
      continue;
    }
    js->expanded = s->root->edges != NULL;
    const int want = cf_pace_batch_target(&stats, s->minibatch);
    cf_batch *b = &s->slots[0];
    const int got = cf_search_gather(s, b, want, &j->error);
    if (got < 0) {
      cf_search_finish(s, b, CF_ERR_NOMEM, NULL);
      end_job(j, js, CF_STOP_NONE, CF_ERR_NOMEM);
      continue;
    }
    js->first = (int)p->total;
    js->n = got;
    memcpy(p->reqs + p->total, b->requests, (size_t)got * sizeof *p->reqs);
    memcpy(p->outs + p->total, b->outputs, (size_t)got * sizeof *p->outs);
    p->total += got;
  }
}

/* Backs up each running job of p from its call (evaluated: the call's
 * status, why its error); a job whose batch had nothing to evaluate backs
 * up too. The call's time paces a timed search's next batch: its batch
 * waited for the whole call (cf_search_pace.c). */
static void finish_part(group *g, part *p, cf_status evaluated, const cf_error *why,
                        double seconds) {
  const double now = cf_clock_now();
  for (int i = p->lo; i < p->hi; i++) {
    job_state *js = &g->js[i];
    if (!js->running) continue;
    cf_search_job *j = &g->jobs[i];
    cf_search *s = j->search;
    cf_batch *b = &s->slots[0];
    if (js->n > 0) memcpy(b->outputs, p->outs + js->first, (size_t)js->n * sizeof *p->outs);
    const cf_status got = js->n > 0 ? evaluated : CF_OK;
    if (got != CF_OK) j->error = *why;
    const cf_status st = cf_search_finish(s, b, got, got == CF_OK ? &j->error : NULL);
    if (st != CF_OK) {
      end_job(j, js, CF_STOP_NONE, st);
      continue;
    }
    if (js->n > 0) {
      s->sec_per_eval = seconds / (double)js->n;
      if (s->first_eval_time <= 0) s->first_eval_time = now;
    }
    if (js->expanded) s->owe_batch = false; /* the owed batch below the root is done */
  }
}

/* Gathers p's next call and sends it: submitted to the stream (true), or,
 * without one, evaluated and backed up in place. Rounds that find nothing
 * to evaluate are backed up at once and gathered again. False once p has
 * no running job or nothing went to the stream. */
static bool launch_part(group *g, part *p) {
  while (part_running(g, p)) {
    gather_part(g, p);
    if (p->total == 0) {
      finish_part(g, p, CF_OK, NULL, 0);
      continue;
    }
    g->count.calls++;
    g->count.leaves += p->total;
    cf_error why = {0};
    p->sent = cf_clock_now();
    if (g->stream) {
      const cf_status st = cf_net_stream_submit(g->stream, (int)p->total, p->reqs, p->outs, &why);
      if (st == CF_OK) return true;
      finish_part(g, p, st, &why, 0);
      continue;
    }
    const cf_status st = cf_net_eval(g->net, (int)p->total, p->reqs, p->outs, &why);
    finish_part(g, p, st, &why, cf_clock_now() - p->sent);
  }
  return false;
}

/* Starts every job; the parts' buffers sized for their jobs' minibatches. */
static cf_status begin_jobs(group *g, int n, part *parts, int n_parts, cf_error *err) {
  for (int i = 0; i < n; i++) {
    cf_search_job *j = &g->jobs[i];
    j->status = CF_OK;
    j->error = (cf_error){0};
    bool done = true;
    j->status = cf_search_begin(j->search, g->net, j->game, &j->limits, false, &j->result, &done,
                                &j->error);
    g->js[i].running = j->status == CF_OK && !done;
  }
  for (int k = 0; k < n_parts; k++) {
    part *p = &parts[k];
    p->lo = (int)((long)n * k / n_parts);
    p->hi = (int)((long)n * (k + 1) / n_parts);
    long cap = 1;
    for (int i = p->lo; i < p->hi; i++)
      if (g->js[i].running)
        cap += cf_search_batch_room(&g->jobs[i].search->params, g->jobs[i].search->minibatch);
    p->reqs = malloc((size_t)cap * sizeof *p->reqs);
    p->outs = malloc((size_t)cap * sizeof *p->outs);
    if (!p->reqs || !p->outs) return cf_error_set(err, CF_ERR_NOMEM, "search group: out of memory");
  }
  return CF_OK;
}

static bool on_device(cf_net *net) {
  const cf_backend_desc *d = cf_backend_find(cf_net_get_info(net)->backend);
  return d && d->device;
}

cf_status cf_search_run_group(cf_net *net, cf_search_job *jobs, int n,
                              cf_search_group_stats *stats, cf_error *err) {
  group g = {.net = net, .jobs = jobs, .js = calloc(n > 0 ? (size_t)n : 1, sizeof *g.js)};
  part parts[2] = {{0}};
  const int n_parts = n > 1 && on_device(net) ? 2 : 1;
  cf_status st = g.js ? CF_OK : cf_error_set(err, CF_ERR_NOMEM, "search group: out of memory");
  if (st == CF_OK) st = begin_jobs(&g, n, parts, n_parts, err);
  if (st == CF_OK && n_parts > 1) st = cf_net_stream_create(net, n_parts, &g.stream, err);
  if (st == CF_OK) {
    /* the calls in the stream, oldest first */
    int queue[2], n_queued = 0;
    for (int k = 0; k < n_parts; k++)
      if (launch_part(&g, &parts[k])) queue[n_queued++] = k;
    while (n_queued > 0) {
      part *p = &parts[queue[0]];
      const int k = queue[0];
      queue[0] = queue[1];
      n_queued--;
      cf_error why = {0};
      const cf_status got = cf_net_stream_wait(g.stream, &why);
      finish_part(&g, p, got, &why, cf_clock_now() - p->sent);
      if (launch_part(&g, p)) queue[n_queued++] = k;
    }
  }
  cf_net_stream_free(g.stream);
  /* Out of memory before the first round: the begun searches end as they are. */
  for (int i = 0; g.js && i < n; i++)
    if (g.js[i].running) {
      jobs[i].error = *err;
      end_job(&jobs[i], &g.js[i], CF_STOP_NONE, st);
    }
  for (int k = 0; k < n_parts; k++) {
    free(parts[k].reqs);
    free(parts[k].outs);
  }
  free(g.js);
  if (stats) *stats = g.count;
  if (st != CF_OK) return st;
  for (int i = 0; i < n; i++)
    if (jobs[i].status != CF_OK) {
      *err = jobs[i].error;
      return jobs[i].status;
    }
  return CF_OK;
}
