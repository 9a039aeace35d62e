/* bench_progress.c: see bench_progress.h. */
#include "tools/bench/bench_progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "tools/bench/bench_clock.h"

void bench_progress_init(bench_progress *p, bool enabled) {
  *p = (bench_progress){.enabled = enabled, .tty = isatty(fileno(stderr)) == 1,
                        .started = bench_now(), .last_tenth = -1};
}

void bench_progress_stage(bench_progress *p, const char *fmt, ...) {
  if (!p->enabled) return;
  bench_progress_done(p);
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "[%7.1fs] ", bench_now() - p->started);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  p->last_tenth = -1;
}

void bench_progress_step(bench_progress *p, const char *what, int done, int total) {
  if (!p->enabled || total <= 0) return;
  int tenth = (int)(10L * done / total);
  if (p->tty) {
    fprintf(stderr, "\r[%7.1fs]   %s %d/%d ", bench_now() - p->started, what, done, total);
    fflush(stderr);
    p->last_tenth = 0;
  } else if (tenth != p->last_tenth && done > 0) {
    fprintf(stderr, "[%7.1fs]   %s %d/%d\n", bench_now() - p->started, what, done, total);
    p->last_tenth = tenth;
  }
}

void bench_progress_done(bench_progress *p) {
  if (p->enabled && p->tty && p->last_tenth >= 0) {
    fprintf(stderr, "\n");
    p->last_tenth = -1;
  }
}
