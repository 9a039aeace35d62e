/* cf_web_uci.c: the UCI engine for a Web Worker. The worker's JavaScript
 * (web/cformer-engine.js) hands each line it receives to cf_web_feed; each
 * line the engine writes goes to the worker's onLine handler, which posts
 * it. The protocol is the engine's own (engine/uci/cf_uci.h), with the
 * built-in network; a user's network is a file the page wrote into the
 * module's memory file system, named by WeightsFile.
 *
 * In the single-threaded build (CF_SINGLE_THREAD) a `go` runs inside
 * cf_web_feed, and between its batches (at most every YIELD_MS) the
 * search yields to the worker's event loop through Asyncify (the
 * module's cf_web_feed then returns a Promise): the worker reads the lines
 * that came meanwhile and answers whether the search must end (`stop`,
 * `quit`, or any command during `go infinite`), so `go infinite` works
 * there too. With threads (meson -Dweb_threads=true; the page must be cross-origin
 * isolated) the search runs on its own thread and `stop` is read while it
 * runs, as in the native engine. */
#include <emscripten.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/uci/cf_uci.h"

/* Posts one line through the worker's handler (web/cformer-worker.js).
 * Runs only on the module's main thread (the worker's own), where that
 * handler lives. */
EM_JS(void, cf_web_emit, (const char *line), { Module["onLine"](UTF8ToString(line)); });

static cf_uci *engine;

#ifdef CF_SINGLE_THREAD
static void write_line(void *user, const char *line) {
  (void)user;
  cf_web_emit(line);
}

/* How often the search gives the event loop a turn: stop is read within
 * this and one batch; each turn costs a few microseconds to unwind and
 * rewind the stack (Asyncify) and the event loop's own round trip. */
#define YIELD_MS 10.0

/* One turn of the worker's event loop; its onYield answers 1 when a line
 * that came meanwhile ends the search. */
EM_ASYNC_JS(int, cf_web_yield, (void), { return await Module["onYield"](); });

static double last_yield;

static void poll_input(void *user) {
  (void)user;
  const double now = emscripten_get_now();
  if (now - last_yield < YIELD_MS) return;
  if (cf_web_yield()) cf_uci_interrupt(engine);
  last_yield = emscripten_get_now();
}
#else
#include <emscripten/threading.h>
#include <pthread.h>

/* With threads the search writes from its own thread, where the worker's
 * handler does not exist. Every line, from any thread, joins one queue in
 * the order written; the main thread empties it: at once when it wrote the
 * line itself, else in a call queued to it. One queue keeps the order the
 * protocol needs (a bestmove before the readyok of a later isready). */
typedef struct out_line {
  struct out_line *next;
  char text[];
} out_line;

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
static out_line *out_head, *out_tail;

static void drain(void) {
  for (;;) {
    pthread_mutex_lock(&out_mu);
    out_line *l = out_head;
    if (l) {
      out_head = l->next;
      if (!out_head) out_tail = NULL;
    }
    pthread_mutex_unlock(&out_mu);
    if (!l) return;
    cf_web_emit(l->text);
    free(l);
  }
}

static void write_line(void *user, const char *line) {
  (void)user;
  const size_t n = strlen(line);
  out_line *l = malloc(sizeof *l + n + 1);
  if (!l) return; /* out of memory: the line is lost, not the engine */
  l->next = NULL;
  memcpy(l->text, line, n + 1);
  pthread_mutex_lock(&out_mu);
  if (out_tail) out_tail->next = l;
  else out_head = l;
  out_tail = l;
  pthread_mutex_unlock(&out_mu);
  if (emscripten_is_main_runtime_thread()) drain();
  else emscripten_async_run_in_main_runtime_thread(EM_FUNC_SIG_V, drain);
}
#endif

/* Creates the engine; 0 on success, else the error was written as an
 * `info string error` line. */
EMSCRIPTEN_KEEPALIVE int cf_web_start(void) {
  if (engine) return 0;
#ifdef CF_SINGLE_THREAD
  const bool threads = false;
#else
  const bool threads = true;
#endif
  /* No folders to search: the built-in network, or the file a page named. */
  cf_uci_config cfg = {.search_dirs = NULL, .background_load = false, .inline_search = !threads};
#ifdef CF_SINGLE_THREAD
  cfg.poll = poll_input;
#endif
  cf_error err = {0};
  if (cf_uci_create(&cfg, write_line, NULL, &engine, &err) != CF_OK) {
    char line[sizeof err.msg + 32];
    snprintf(line, sizeof line, "info string error: %s", err.msg);
    cf_web_emit(line);
    return 1;
  }
  return 0;
}

/* One UCI line; 0 once the line was `quit`. */
EMSCRIPTEN_KEEPALIVE int cf_web_feed(const char *line) {
  if (!engine && cf_web_start() != 0) return 1;
  return cf_uci_feed(engine, line) ? 1 : 0;
}

/* Whether this build runs searches on a thread of their own. */
EMSCRIPTEN_KEEPALIVE int cf_web_threads(void) {
#ifdef CF_SINGLE_THREAD
  return 0;
#else
  return 1;
#endif
}
