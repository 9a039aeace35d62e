/* bench_progress.h: what the benchmark is doing, on stderr, while it runs
 * (CF-240M on a CPU takes minutes). On a terminal one line is rewritten in
 * place; otherwise (a log, a test) a line is printed per stage and about every
 * 10% of a loop, so logs stay short. Silent when disabled (--quiet). */
#ifndef BENCH_PROGRESS_H
#define BENCH_PROGRESS_H

#include <stdbool.h>

typedef struct bench_progress {
  bool enabled;
  bool tty;
  double started;  /* bench_now() at creation, for the elapsed-time stamp */
  int last_tenth;  /* the last 10% step printed (non-terminal output) */
} bench_progress;

void bench_progress_init(bench_progress *p, bool enabled);

/* A stage starts: "[  3.2s] ref: value agent". */
void bench_progress_stage(bench_progress *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Step done of total within the current stage. */
void bench_progress_step(bench_progress *p, const char *what, int done, int total);

/* Ends an in-place line (terminal output). */
void bench_progress_done(bench_progress *p);

#endif /* BENCH_PROGRESS_H */
