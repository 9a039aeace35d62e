/* cf_engine_loader.c: a network load on its own thread (see the header). */
#include "engine/cf_engine_loader.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIRS 64

struct cf_engine_loader {
  pthread_mutex_t mu;
  int refs; /* the caller's and the thread's */
  bool done;
  /* Held while done runs: release waits on it, so once release returns
   * done has ended and will not start (the caller may free its state). */
  pthread_mutex_t call_mu;
  bool released; /* the caller let go; under call_mu */
  cf_engine_loader_done_fn on_done;
  void *user;

  /* The spec, copied: strings live in the arena below, the option list
   * in its own copy. */
  cf_engine_weights_spec spec;
  const char *dirs[MAX_DIRS + 1];
  char *arena;
  cf_kv *kv;

  /* The result. */
  cf_status status;
  cf_error err;
  cf_net *net;
  cf_engine_weights_info info;
};

/* Drops one reference; the last one frees everything. */
static void unref(cf_engine_loader *l) {
  pthread_mutex_lock(&l->mu);
  const bool last = --l->refs == 0;
  pthread_mutex_unlock(&l->mu);
  if (!last) return;
  cf_net_free(l->net);
  free(l->arena);
  cf_kv_free(l->kv);
  pthread_mutex_destroy(&l->mu);
  pthread_mutex_destroy(&l->call_mu);
  free(l);
}

static void *load_main(void *arg) {
  cf_engine_loader *l = arg;
  cf_net *net = NULL;
  cf_error err = {0};
  cf_status st = cf_engine_load_net(&l->spec, &net, &l->info, &err);
  pthread_mutex_lock(&l->mu);
  l->status = st;
  l->err = err;
  l->net = net;
  l->done = true;
  pthread_mutex_unlock(&l->mu);
  /* Released already: nobody is waiting, nothing is called. A done that
   * says it is finished with the loader lets go for its owner. */
  pthread_mutex_lock(&l->call_mu);
  bool owner_done = false;
  if (!l->released) owner_done = l->released = l->on_done(l->user, l);
  pthread_mutex_unlock(&l->call_mu);
  if (owner_done) unref(l);
  unref(l);
  return NULL;
}

/* Bytes the strings of spec need, each with its NUL. */
static size_t spec_bytes(const cf_engine_weights_spec *s, int *n_dirs) {
  size_t n = 0;
  const char *strs[] = {s->weights, s->net.backend, s->net.backend_options, s->load.limit_name};
  for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) n += strs[i] ? strlen(strs[i]) + 1 : 0;
  int d = 0;
  for (; s->search_dirs && s->search_dirs[d] && d < MAX_DIRS; d++) n += strlen(s->search_dirs[d]) + 1;
  *n_dirs = d;
  return n;
}

static const char *copy_str(char **at, const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  memcpy(*at, s, n);
  const char *out = *at;
  *at += n;
  return out;
}

cf_status cf_engine_loader_start(const cf_engine_weights_spec *spec, cf_engine_loader_done_fn done,
                                 void *user, cf_engine_loader **out, cf_error *err) {
  *out = NULL;
  cf_engine_loader *l = calloc(1, sizeof *l);
  int n_dirs = 0;
  char *arena = l ? malloc(spec_bytes(spec, &n_dirs) + 1) : NULL;
  cf_kv *kv = NULL;
  const bool copied = l && arena &&
                      (!spec->net.backend_kv || cf_kv_clone(spec->net.backend_kv, &kv, NULL) == CF_OK);
  if (!copied) {
    free(l);
    free(arena);
    return cf_error_set(err, CF_ERR_NOMEM, "network load: out of memory");
  }
  l->arena = arena;
  l->kv = kv;
  l->spec = *spec;
  l->spec.net.backend_kv = kv;
  char *at = arena;
  l->spec.weights = copy_str(&at, spec->weights);
  l->spec.net.backend = copy_str(&at, spec->net.backend);
  l->spec.net.backend_options = copy_str(&at, spec->net.backend_options);
  l->spec.load.limit_name = copy_str(&at, spec->load.limit_name);
  for (int i = 0; i < n_dirs; i++) l->dirs[i] = copy_str(&at, spec->search_dirs[i]);
  l->dirs[n_dirs] = NULL;
  l->spec.search_dirs = spec->search_dirs ? l->dirs : NULL;
  l->on_done = done;
  l->user = user;
  l->refs = 2;
  pthread_mutex_init(&l->mu, NULL);
  pthread_mutex_init(&l->call_mu, NULL);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  /* Nobody joins it: a released load must be able to finish alone. */
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t th;
  int rc = pthread_create(&th, &attr, load_main, l);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    pthread_mutex_destroy(&l->mu);
    pthread_mutex_destroy(&l->call_mu);
    free(l->arena);
    cf_kv_free(l->kv);
    free(l);
    return cf_error_set(err, CF_ERR_IO, "network load: cannot start a thread");
  }
  *out = l;
  return CF_OK;
}

cf_status cf_engine_loader_take(cf_engine_loader *l, cf_net **net, cf_engine_weights_info *info,
                                cf_error *err) {
  pthread_mutex_lock(&l->mu);
  cf_status st = l->done ? l->status : CF_ERR_ARG;
  if (!l->done) cf_error_set(err, CF_ERR_ARG, "network load: not finished");
  else if (st != CF_OK && err) *err = l->err;
  if (l->done && st == CF_OK) {
    *net = l->net;
    l->net = NULL;
    if (info) *info = l->info;
  }
  pthread_mutex_unlock(&l->mu);
  return st;
}

void cf_engine_loader_release(cf_engine_loader *l) {
  if (!l) return;
  pthread_mutex_lock(&l->call_mu);
  l->released = true;
  pthread_mutex_unlock(&l->call_mu);
  unref(l);
}
