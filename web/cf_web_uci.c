/* cf_web_uci.c: the UCI engine for a Web Worker. The worker's JavaScript
 * (web/cformer-engine.js) hands each line it receives to cf_web_feed; each
 * line the engine writes goes to the worker's onLine handler, which posts
 * it. The protocol is the engine's own (engine/uci/cf_uci.h), with the
 * built-in network; a user's network is a file the page wrote into the
 * module's memory file system, named by WeightsFile.
 *
 * In the single-threaded build (CF_SINGLE_THREAD) a `go` runs to its end
 * inside cf_web_feed, so it must carry a limit (nodes, depth, movetime,
 * a clock); the worker refuses `go infinite` and `go ponder` there. */
#include <emscripten.h>
#include <stdbool.h>
#include <stdio.h>

#include "engine/uci/cf_uci.h"

/* Posts one line through the worker's handler (web/cformer-engine.js). */
EM_JS(void, cf_web_emit, (const char *line), { Module["onLine"](UTF8ToString(line)); });

static cf_uci *engine;

static void write_line(void *user, const char *line) {
  (void)user;
  cf_web_emit(line);
}

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
