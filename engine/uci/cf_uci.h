/* cf_uci.h: the UCI protocol as a library. Feed it one input line at a
 * time; it answers through a callback, one line per call (no newline). The
 * binary (tools/uci_cmd.c) reads stdin on its own thread and feeds lines;
 * tests feed transcripts in memory.
 *
 *     cf_uci *u;
 *     cf_uci_create(&cfg, write_line, user, &u, &err);
 *     while (read a line) if (!cf_uci_feed(u, line)) break;   // false after quit
 *     cf_uci_free(u);
 *
 * `go` starts the agent on a search thread and returns at once (unless
 * cf_uci_config.inline_search), so `stop`,
 * `ponderhit`, `isready` and `quit` are honoured while it runs; bestmove is
 * written from that thread (the callback must be callable from any thread;
 * calls never overlap). `go infinite` and `go ponder` hold bestmove until
 * stop (or ponderhit); the info line(s) of an agent that finished earlier
 * come at once. Any other command arriving during a search first ends it
 * (a held search is stopped; bestmove comes out first).
 *
 * The clock of every agent starts when `go` is read (a network loaded by
 * that `go` counts against the move) and MoveOverheadMs is kept back from
 * every budget; a clock at 0 or below means: move now.
 *
 * `isready` loads the network when the options changed it (or none is
 * loaded yet); whatever the loading has to say comes as `info string`
 * lines before `readyok`, and nothing else is written in reply.
 *
 * Without cf_uci_config.background_load a network load (isready, or a go
 * that needs one) runs in the feeding call, on the caller's thread. With
 * it the load runs on a thread of its own, feeding returns at once and:
 * `isready` and `go` wait in a queue until the load ends (readyok after
 * the load's lines; the go's clock started when it was read, so the wait
 * counts against the move, and a clock the wait used up is played as time
 * trouble: a move without the network); every command read after one that
 * waits queues behind it, in order; `setoption`, `position` and
 * `ucinewgame` read while nothing waits run at once (the load works on a
 * copy of the options; a net loaded for options since changed is loaded
 * again by the next isready or go); `stop` makes a go waiting for the load
 * answer at once, without the network (a stopped go queued behind an
 * isready runs once the load has ended: it searches the root, then
 * stops); `ponderhit` makes a waiting `go ponder` a
 * timed go whose clock starts then; `quit` waits for the load under way
 * (and for any load the commands before it start), so every `isready`
 * read before `quit` gets its `readyok` (as in Lc0; a go read before quit
 * starts and is stopped by it, with its bestmove); a load still under
 * way after cf_uci_config.quit_wait_ms is let go: quit returns and
 * cf_uci_free lets the load finish in the background and free itself.
 *
 * Nothing a GUI sends kills the engine: unknown commands, bad positions,
 * moves, FENs, options and missing or broken weights files give
 * `info string error: ...` and leave the state as it was. Every line
 * written is clean text (cf_uci_text.h): input quoted in a message has its
 * control characters and invalid UTF-8 escaped as \xNN. */
#ifndef CF_UCI_H
#define CF_UCI_H

#include <stdbool.h>
#include <stddef.h>

#include "common/cf_status.h"
#include "engine/uci/cf_uci_options.h"

typedef struct cf_uci cf_uci;

typedef void (*cf_uci_write_fn)(void *user, const char *line);

typedef struct cf_uci_config {
  /* Folders WeightsFile=<autodiscover> searches, NULL-terminated (copied);
   * NULL: none (only the built-in net). See cf_engine_default_search_dirs. */
  const char *const *search_dirs;
  int max_batch; /* positions per network pass; 0 = 32 */
  /* Network loads run on a thread of their own either way; true: feeding
   * returns during a load, so the input goes on being read (the binary);
   * false: a line that starts a load returns when it has ended (tests and
   * transcripts that read the output after each line). */
  bool background_load;
  /* How long quit waits for a network load under way before it lets the
   * load go; 0 = 30000 ms (a hung load cannot keep the engine alive). */
  long quit_wait_ms;
  /* false (the binary): go starts the search on the engine's search thread
   * and returns at once. true (tests and fuzzing): go runs the search on
   * the thread that runs the command and returns when it has ended, so a
   * transcript gives the same output every time and no thread hand-over is
   * paid; `go infinite` and `go ponder` still hold bestmove until stop,
   * ponderhit or the next command. Only for a caller whose every go ends
   * by itself (nodes, depth, movetime...): nothing can stop a search that
   * runs in the feeding call, so a held search must carry such a limit. */
  bool inline_search;
  /* What the engine says outside a search (a network's load and its
   * warnings, the Syzygy tables found or not found): false: `info string`
   * lines at once (before the readyok of the isready that loaded them);
   * true (the binary): held and written as `info string` lines when the
   * next go starts, so that isready is answered with readyok alone. A
   * client that checks isready's reply line by line (python-chess's ping
   * warns on any other line, and on every line of stderr, where Lc0 writes
   * these) reads nothing unexpected; a GUI shows them with the search. */
  bool say_at_search;
  /* With inline_search, for a caller with one thread (the browser's
   * single-threaded build): called between the batches of a search that
   * runs in the feeding call, where the caller reads its input and calls
   * cf_uci_interrupt to end the search. A held search (go infinite, go
   * ponder) then searches until interrupted, as on a search thread. NULL:
   * nothing can stop an inline search (it must carry a limit). */
  void (*poll)(void *user);
  void *poll_user;
} cf_uci_config;

cf_status cf_uci_create(const cf_uci_config *cfg, cf_uci_write_fn write, void *user,
                        cf_uci **out, cf_error *err);

/* Sets an option as `setoption` would (the command-line flags use this). */
cf_status cf_uci_set_option(cf_uci *u, cf_uci_option_id id, const char *value, cf_error *err);

/* The option's current value (normalised text). */
const char *cf_uci_get_option(const cf_uci *u, cf_uci_option_id id);

/* Starts loading the network the options name (and warming it), on the
 * loader's thread when loads run in the background, as the first isready
 * would: Lc0's --preload. A failed load is reported as isready reports it. */
void cf_uci_preload(cf_uci *u);

/* Handles one line (with or without its newline). Returns false once the
 * line was `quit` (any search has then ended). */
bool cf_uci_feed(cf_uci *u, const char *line);

/* The same for a line of len bytes as read (getline's count): a NUL byte
 * inside it makes the whole line an error (`info string error: ...`), where
 * cf_uci_feed would only see the text before the NUL. */
bool cf_uci_feed_n(cf_uci *u, const char *line, size_t len);

/* Ends the search under way as `stop` would, without a line: for a
 * search's poll (cf_uci_config.poll) or any thread. The search ends with
 * its best move so far; a held search's bestmove still waits for its
 * release (the `stop`, `quit` or other command that asked for the end,
 * fed once the search has returned). */
void cf_uci_interrupt(cf_uci *u);

/* Blocks until no network load is under way, no command waits for one and
 * no search is running (a held one must be stopped first). */
void cf_uci_wait(cf_uci *u);

/* Blocks until no network load is under way and no command waits for one
 * (a search may still be running). */
void cf_uci_drain(cf_uci *u);

/* Whether a network load is under way (cf_uci_free would let it go on in
 * the background: a process about to exit may then prefer _exit, so that
 * no library's exit handlers run under it). */
bool cf_uci_loading(cf_uci *u);

/* Back to the state cf_uci_create left, for a caller that runs many
 * independent sessions on one responder: a load under way is waited for
 * (the commands that waited for it run), any search is stopped (its
 * bestmove is written) and queued commands dropped; then every option is
 * at its default (LogFile off), the position is the start position, the
 * tree, NN cache and clock are new, and the next first command is greeted
 * again. The loaded network stays: a later isready or go keeps it when
 * the options name it again (no reload, no load lines), and loads anew
 * when they do not. Fails (changing nothing) only when out of memory. */
cf_status cf_uci_reset(cf_uci *u, cf_error *err);

/* Stops and joins any search, frees everything. Accepts NULL. */
void cf_uci_free(cf_uci *u);

#endif /* CF_UCI_H */
