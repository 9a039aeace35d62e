/* cf_uci.c: the core of the UCI responder (see cf_uci.h): create and free,
 * the options (parsed once when set, cf_uci_options.h), and feeding a line:
 * a command runs at once or queues (cf_uci_queue.c); quit ends the feeding.
 * The rest of the room: cf_uci_state.h lists it. */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cf_clock.h"
#include "engine/uci/cf_uci_clock.h"
#include "engine/uci/cf_uci_commands.h"
#include "engine/uci/cf_uci_info.h"
#include "engine/uci/cf_uci_load.h"
#include "engine/uci/cf_uci_queue.h"
#include "engine/uci/cf_uci_search.h"
#include "engine/uci/cf_uci_temperature.h"
#include "engine/uci/cf_uci_text.h"

#define DEFAULT_MAX_BATCH 32
/* How long quit waits for a network load under way (cf_uci_config). */
#define DEFAULT_QUIT_WAIT_MS 30000

bool cf_uci_feed_n(cf_uci *u, const char *line, size_t len) {
  if (!line) len = 0;
  cf_uci_log_line(u->log, CF_UCI_LOG_IN, line, len); /* before its replies */
  const char *nul = len ? memchr(line, 0, len) : NULL;
  if (nul) {
    /* Read as a C string the line would end at the NUL and the rest would
     * be dropped without a word: the whole line is refused instead. */
    cf_uci_emit(u, "info string error: input line has a NUL byte (byte %zu of %zu); line ignored",
         (size_t)(nul - line) + 1, len);
    return true;
  }
  const double at = cf_clock_now();
  char *copy = malloc(len + 1);
  if (!copy) {
    cf_uci_emit(u, "info string error: out of memory");
    return true;
  }
  if (len) memcpy(copy, line, len);
  copy[len] = 0;
  char *s = cf_uci_trim(copy), *args = s;
  while (*args && !isspace((unsigned char)*args)) args++;
  if (*args) *args++ = 0;
  bool go_on = true;
  pthread_mutex_lock(&u->cmd_mu);
  if (*s && !u->notes.greeted) {
    /* The first command: what the setup had to say comes now, or after
     * uciok when the command is uci (cmd_uci). */
    u->notes.greeted = true;
    if (strcmp(s, "uci") != 0) cf_uci_release_held(u);
  }
  if (!*s) {
    /* empty line */
  } else if (strcmp(s, "quit") == 0) {
    /* Every isready read before quit is answered: a load under way is
     * waited for, up to quit_wait_ms (cf_uci_queue.c). */
    cf_uci_wait_for_queue(u, u->quit_wait_ms / 1000.0);
    cf_uci_drop_queue(u);
    cf_uci_finish_search(u, true);
    go_on = false;
  } else {
    const cf_uci_command *c = cf_uci_command_find(s);
    if (!c) {
      /* At most 64 bytes of it; emit escapes what is not clean text. */
      cf_uci_emit(u, "info string error: unknown command '%.64s'", s);
    } else if (c->at_once) {
      if (!c->during_search) cf_uci_finish_search(u, false);
      c->run(u, args);
      cf_uci_pump(u); /* a stopped go that waited answers now */
    } else {
      cf_uci_enqueue(u, c, args, at);
    }
  }
  pthread_mutex_unlock(&u->cmd_mu);
  free(copy);
  return go_on;
}

void cf_uci_preload(cf_uci *u) {
  pthread_mutex_lock(&u->cmd_mu);
  (void)cf_uci_start_load(u); /* ready, failed (said) or under way */
  pthread_mutex_unlock(&u->cmd_mu);
}

bool cf_uci_feed(cf_uci *u, const char *line) {
  return cf_uci_feed_n(u, line, line ? strlen(line) : 0);
}

cf_status cf_uci_create(const cf_uci_config *cfg, cf_uci_write_fn write, void *user,
                        cf_uci **out, cf_error *err) {
  *out = NULL;
  cf_uci *u = calloc(1, sizeof *u);
  if (!u) return cf_error_set(err, CF_ERR_NOMEM, "uci: out of memory");
  u->write = write;
  u->user = user;
  u->say_at_search = cfg && cfg->say_at_search;
  u->max_batch = cfg && cfg->max_batch > 0 ? cfg->max_batch : DEFAULT_MAX_BATCH;
  u->background_load = cfg && cfg->background_load;
  u->quit_wait_ms = cfg && cfg->quit_wait_ms > 0 ? cfg->quit_wait_ms : DEFAULT_QUIT_WAIT_MS;
  u->inline_search = cfg && cfg->inline_search;
  if (u->inline_search) {
    u->poll = cfg->poll;
    u->poll_user = cfg->poll_user;
  }
  pthread_mutex_init(&u->cmd_mu, NULL);
  pthread_cond_init(&u->idle_cv, NULL);
  for (int i = 0; cfg && cfg->search_dirs && cfg->search_dirs[i] && i < CF_UCI_MAX_SEARCH_DIRS; i++) {
    u->search_dirs[i] = strdup(cfg->search_dirs[i]);
    if (!u->search_dirs[i]) {
      cf_uci_free(u);
      return cf_error_set(err, CF_ERR_NOMEM, "uci: out of memory");
    }
  }
  if (cf_uci_options_default(u, err) != CF_OK) { /* a bad table row */
    cf_uci_free(u);
    return err ? err->status : CF_ERR_INTERNAL;
  }
  cf_uci_backend_options_changed(u, err);
  pthread_mutex_init(&u->out_mu, NULL);
  pthread_mutex_init(&u->mu, NULL);
  pthread_cond_init(&u->cv, NULL);
  pthread_cond_init(&u->job_cv, NULL);
  pthread_cond_init(&u->done_cv, NULL);
  atomic_init(&u->stop, false);
  if (cf_uci_log_create(&u->log, err) != CF_OK) {
    cf_uci_free(u);
    return err ? err->status : CF_ERR_NOMEM;
  }
  cf_search_params p;
  cf_uci_search_params(u, &p);
  cf_status st = cf_search_create(&p, &u->search, err);
  if (st != CF_OK) {
    cf_uci_free(u);
    return st;
  }
  cf_uci_clock_reset(u);
  cf_uci_seed_rng(u);
  st = cf_game_init(&u->game, NULL, err);
  if (st != CF_OK) {
    cf_uci_free(u);
    return st;
  }
  *out = u;
  return CF_OK;
}

void cf_uci_free(cf_uci *u) {
  if (!u) return;
  /* A load under way is let go, not waited for (quit must be prompt): it
   * finishes on its own thread and frees what it built. */
  pthread_mutex_lock(&u->cmd_mu);
  u->closing = true;
  cf_engine_loader *l = u->loader;
  u->loader = NULL;
  cf_uci_drop_queue(u);
  pthread_mutex_unlock(&u->cmd_mu);
  cf_engine_loader_release(l); /* not under cmd_mu: a load ending now takes it */
  cf_uci_finish_search(u, true);
  cf_uci_end_worker(u);
  /* The Syzygy tables are the process's (one prober) and stay loaded: the
   * next SyzygyPath replaces them. (Unloading here would also print a
   * spurious "munmap:" line per table: Fathom reports a successful unmap
   * as an error.) */
  cf_net_free(u->net);
  cf_kv_free(u->backend_kv);
  cf_search_free(u->search);
  cf_game_free(&u->game);
  cf_uci_log_free(u->log);
  for (int i = 0; i < CF_UCI_MAX_SEARCH_DIRS; i++) free(u->search_dirs[i]);
  pthread_mutex_destroy(&u->out_mu);
  pthread_mutex_destroy(&u->cmd_mu);
  pthread_cond_destroy(&u->idle_cv);
  pthread_mutex_destroy(&u->mu);
  pthread_cond_destroy(&u->cv);
  pthread_cond_destroy(&u->job_cv);
  pthread_cond_destroy(&u->done_cv);
  free(u);
}

cf_status cf_uci_reset(cf_uci *u, cf_error *err) {
  cf_game g;
  CF_TRY(cf_game_init(&g, NULL, err));
  pthread_mutex_lock(&u->cmd_mu);
  /* A load under way ends and runs what waited for it; then nothing may
   * be left running or queued. */
  while (u->loader) pthread_cond_wait(&u->idle_cv, &u->cmd_mu);
  cf_uci_drop_queue(u);
  cf_uci_finish_search(u, true);
  cf_status st = cf_uci_options_default(u, err); /* cannot fail: create parsed the same rows */
  if (st == CF_OK) st = cf_uci_backend_options_changed(u, err);
  if (st == CF_OK && cf_uci_log_open(u->log, "", err) != CF_OK) st = err ? err->status : CF_ERR_IO;
  cf_search_params p;
  cf_uci_search_params(u, &p);
  if (st == CF_OK) st = cf_search_set_params(u->search, &p, err);
  if (st != CF_OK) {
    pthread_mutex_unlock(&u->cmd_mu);
    cf_game_free(&g);
    return st;
  }
  cf_game_free(&u->game);
  u->game = g;
  cf_search_reset(u->search);
  /* Each part of the state back as create left it, by the file that owns
   * it; the network and its key stay (a net that failed to load is tried
   * again by the next isready). */
  cf_uci_clock_reset(u);
  cf_uci_seed_rng(u);
  cf_uci_load_forget_failure(u);
  cf_uci_search_reset(u);
  cf_uci_notes_reset(u);
  cf_uci_commands_reset(u);
  u->cmd = (cf_uci_cmd_state){0};
  pthread_mutex_unlock(&u->cmd_mu);
  return CF_OK;
}
