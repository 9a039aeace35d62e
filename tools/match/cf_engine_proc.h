/* cf_engine_proc.h: a UCI engine as a child process: start it, talk to it
 * line by line with time limits, and end it without leaving it behind
 * (quit, then SIGKILL if it lingers, always reaped). */
#ifndef CF_ENGINE_PROC_H
#define CF_ENGINE_PROC_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/cf_status.h"

#define CF_PROC_LINE_MAX 8192
#define CF_PROC_OPTIONS_MAX 16

struct cf_engine_proc;

/* Receives the engine's `info string error: ...` and `info string warning:
 * ...` lines as they are read (the user would otherwise never see why an
 * engine misbehaves). May be called from several match threads at once. */
typedef void (*cf_engine_message_fn)(void *user, const struct cf_engine_proc *p,
                                     const char *line);

typedef struct cf_engine_proc {
  pid_t pid;
  int to_fd, from_fd;        /* engine's stdin, stdout */
  char buf[CF_PROC_LINE_MAX];
  size_t len;                /* bytes buffered in buf */
  char name[128];            /* from `id name` */
  long move_overhead_ms;     /* its MoveOverheadMs as set, else as declared; -1: it has none */
  cf_engine_message_fn on_message; /* from the spec; NULL = none */
  void *message_user;
} cf_engine_proc;

typedef struct cf_engine_spec {
  const char *command;       /* program and arguments, split on spaces */
  const char *options[CF_PROC_OPTIONS_MAX]; /* "Name=Value" for setoption */
  int n_options;
  cf_engine_message_fn on_message; /* NULL = the engine's messages are dropped */
  void *message_user;
} cf_engine_spec;

/* Starts the engine and does the handshake (uci / uciok, options, isready /
 * readyok) within timeout_ms. stderr of the engine goes to /dev/null. Each
 * option must be one the engine declares (`option name ...`, matched
 * without regard to case, as UCI says), with a value its type allows: a
 * spin within min..max, a combo one of its vars, a check true or false;
 * otherwise CF_ERR_ARG names the option and what the engine accepts. */
cf_status cf_engine_start(const cf_engine_spec *spec, int timeout_ms, cf_engine_proc *p,
                          cf_error *err);

/* Monotonic milliseconds: the one clock of the match tool (timeouts, the
 * game clocks of --tc, the ETA). */
double cf_engine_now_ms(void);

/* Sends one line (a newline is added). */
cf_status cf_engine_send(cf_engine_proc *p, const char *line, cf_error *err);

/* Reads the next line within timeout_ms (0 = wait forever is not offered:
 * a limit is always needed). CF_ERR_IO on end of output, CF_ERR_BACKEND
 * on timeout. */
cf_status cf_engine_read(cf_engine_proc *p, int timeout_ms, char line[CF_PROC_LINE_MAX],
                         cf_error *err);

/* Reads until a line starting with prefix; copies it. Other lines are
 * skipped, except that `info` lines' last seen are kept in last_info if
 * not NULL. */
cf_status cf_engine_expect(cf_engine_proc *p, const char *prefix, int timeout_ms,
                           char line[CF_PROC_LINE_MAX], char *last_info, cf_error *err);

/* quit, wait up to grace_ms, then SIGKILL; always reaps. Safe to call on a
 * never-started or already stopped proc. */
void cf_engine_stop(cf_engine_proc *p, int grace_ms);

#endif /* CF_ENGINE_PROC_H */
