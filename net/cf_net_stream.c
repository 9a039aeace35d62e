/* cf_net_stream.c: a ring of passes and the thread that runs them (see the
 * header). The ring's slots go submitted -> running -> done -> waited for,
 * in order; one mutex guards the indices, one condition variable wakes the
 * thread (work came, or the end) and another the waiter (a pass is done). */
#include "net/cf_net_stream.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct pass {
  int n;
  const cf_net_request *requests;
  cf_net_output *outputs;
  cf_status st;
  cf_error err;
} pass;

struct cf_net_stream {
  cf_net *net;
  int depth;
  pass ring[CF_NET_STREAM_MAX];
  /* Counters, not indices: slot = counter % depth. waited <= done <= submitted. */
  long submitted, done, waited;
  bool closing;
  pthread_mutex_t mu;
  pthread_cond_t work_cv, done_cv;
  pthread_t thread;
};

static void *run(void *arg) {
  cf_net_stream *s = arg;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (s->done == s->submitted && !s->closing) pthread_cond_wait(&s->work_cv, &s->mu);
    if (s->done == s->submitted) break; /* closing, and nothing left to run */
    pass *p = &s->ring[s->done % s->depth];
    pthread_mutex_unlock(&s->mu);
    p->err = (cf_error){0};
    p->st = cf_net_eval(s->net, p->n, p->requests, p->outputs, &p->err);
    pthread_mutex_lock(&s->mu);
    s->done++;
    pthread_cond_broadcast(&s->done_cv);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

cf_status cf_net_stream_create(cf_net *net, int depth, cf_net_stream **out, cf_error *err) {
  *out = NULL;
  if (!net || depth < 1 || depth > CF_NET_STREAM_MAX)
    return cf_error_set(err, CF_ERR_ARG, "net stream: depth %d is not 1 to %d", depth,
                        CF_NET_STREAM_MAX);
  cf_net_stream *s = calloc(1, sizeof *s);
  if (!s) return cf_error_set(err, CF_ERR_NOMEM, "net stream: out of memory");
  s->net = net;
  s->depth = depth;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->work_cv, NULL);
  pthread_cond_init(&s->done_cv, NULL);
  if (pthread_create(&s->thread, NULL, run, s) != 0) {
    pthread_cond_destroy(&s->done_cv);
    pthread_cond_destroy(&s->work_cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
    return cf_error_set(err, CF_ERR_INTERNAL, "net stream: cannot start its thread");
  }
  *out = s;
  return CF_OK;
}

void cf_net_stream_free(cf_net_stream *s) {
  if (!s) return;
  pthread_mutex_lock(&s->mu);
  s->closing = true;
  pthread_cond_signal(&s->work_cv);
  pthread_mutex_unlock(&s->mu);
  pthread_join(s->thread, NULL);
  pthread_cond_destroy(&s->done_cv);
  pthread_cond_destroy(&s->work_cv);
  pthread_mutex_destroy(&s->mu);
  free(s);
}

cf_status cf_net_stream_submit(cf_net_stream *s, int n, const cf_net_request *requests,
                               cf_net_output *outputs, cf_error *err) {
  pthread_mutex_lock(&s->mu);
  if (s->submitted - s->waited >= s->depth) {
    pthread_mutex_unlock(&s->mu);
    return cf_error_set(err, CF_ERR_ARG, "net stream: %d passes already queued", s->depth);
  }
  s->ring[s->submitted % s->depth] = (pass){.n = n, .requests = requests, .outputs = outputs};
  s->submitted++;
  pthread_cond_signal(&s->work_cv);
  pthread_mutex_unlock(&s->mu);
  return CF_OK;
}

cf_status cf_net_stream_wait(cf_net_stream *s, cf_error *err) {
  pthread_mutex_lock(&s->mu);
  if (s->waited == s->submitted) {
    pthread_mutex_unlock(&s->mu);
    return cf_error_set(err, CF_ERR_ARG, "net stream: no pass to wait for");
  }
  while (s->done == s->waited) pthread_cond_wait(&s->done_cv, &s->mu);
  const pass *p = &s->ring[s->waited % s->depth];
  const cf_status st = p->st;
  if (st != CF_OK && err) *err = p->err;
  s->waited++;
  pthread_mutex_unlock(&s->mu);
  return st;
}

int cf_net_stream_pending(cf_net_stream *s) {
  pthread_mutex_lock(&s->mu);
  const int n = (int)(s->submitted - s->waited);
  pthread_mutex_unlock(&s->mu);
  return n;
}
