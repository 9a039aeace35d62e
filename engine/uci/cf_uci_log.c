/* cf_uci_log.c: see cf_uci_log.h. */
#include "engine/uci/cf_uci_log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/uci/cf_uci_text.h"

#ifndef CF_VERSION
#define CF_VERSION "unknown"
#endif

/* The longest message logged whole; a longer one is cut (and says so).
 * UCI lines are short; a `position ... moves` of a long game is a few KiB. */
#define LOG_TEXT_MAX (64 * 1024)

struct cf_uci_log {
  pthread_mutex_t mu;
  FILE *f;       /* NULL: off */
  bool own;      /* f was opened here (not stderr) */
  char buf[4 * LOG_TEXT_MAX + 64]; /* the clean text (escapes are 4 bytes per byte) */
};

cf_status cf_uci_log_create(cf_uci_log **out, cf_error *err) {
  cf_uci_log *log = calloc(1, sizeof *log);
  if (!log) return cf_error_set(err, CF_ERR_NOMEM, "log: out of memory");
  pthread_mutex_init(&log->mu, NULL);
  *out = log;
  return CF_OK;
}

static void close_locked(cf_uci_log *log) {
  if (log->f && log->own) fclose(log->f);
  else if (log->f) fflush(log->f);
  log->f = NULL;
  log->own = false;
}

/* "MMDD HH:MM:SS.uuuuuu", local time, as Lc0 stamps its log. */
static void stamp(char out[32]) {
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  time_t s = ts.tv_sec;
  localtime_r(&s, &tm);
  size_t n = strftime(out, 32, "%m%d %H:%M:%S", &tm);
  snprintf(out + n, 32 - n, ".%06ld", (long)(ts.tv_nsec / 1000));
}

static void write_locked(cf_uci_log *log, const char *marker, const char *text) {
  char when[32];
  stamp(when);
  fprintf(log->f, "%s %s %s\n", when, marker, text);
  fflush(log->f);
}

/* Opens path for appending without blocking on a FIFO nobody reads (that
 * is ENXIO, an error, where fopen would hang the engine). */
static FILE *open_append(const char *path) {
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) return NULL;
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "a");
  if (!f) {
    int e = errno;
    close(fd);
    errno = e;
  }
  return f;
}

cf_status cf_uci_log_open(cf_uci_log *log, const char *path, cf_error *err) {
  if (!log) return cf_error_set(err, CF_ERR_ARG, "log: no log");
  if (!path) path = "";
  cf_status st = CF_OK;
  pthread_mutex_lock(&log->mu);
  close_locked(log);
  if (strcmp(path, CF_UCI_LOG_STDERR) == 0) {
    log->f = stderr;
  } else if (path[0]) {
    log->f = open_append(path);
    log->own = log->f != NULL;
    if (!log->f)
      st = cf_error_set(err, CF_ERR_IO, "LogFile: cannot open '%s' for writing: %s", path,
                        strerror(errno));
  }
  if (log->f) write_locked(log, "##", "log started: cformer " CF_VERSION);
  pthread_mutex_unlock(&log->mu);
  return st;
}

/* text[0..len) as clean text into buf: each NUL byte as \x00 (the text
 * between is cleaned by cf_uci_text_clean). */
static void clean_n(const char *text, size_t len, char *buf, size_t size) {
  size_t at = 0;
  buf[0] = 0;
  for (size_t i = 0; i <= len && at + 1 < size;) {
    const char *nul = memchr(text + i, 0, len - i);
    size_t seg = nul ? (size_t)(nul - (text + i)) : len - i;
    char *piece = malloc(seg + 1);
    if (!piece) return;
    memcpy(piece, text + i, seg);
    piece[seg] = 0;
    at += cf_uci_text_clean(piece, buf + at, size - at);
    free(piece);
    if (!nul) break;
    if (at + 5 < size) at += (size_t)snprintf(buf + at, size - at, "\\x00");
    i += seg + 1;
  }
}

void cf_uci_log_line(cf_uci_log *log, cf_uci_log_dir dir, const char *text, size_t len) {
  if (!log) return;
  pthread_mutex_lock(&log->mu);
  if (log->f) {
    if (!text) len = 0;
    /* the line's own end is not part of the message */
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r')) len--;
    const bool cut = len > LOG_TEXT_MAX;
    clean_n(text ? text : "", cut ? LOG_TEXT_MAX : len, log->buf, sizeof log->buf - 48);
    if (cut) {
      size_t at = strlen(log->buf);
      snprintf(log->buf + at, sizeof log->buf - at, " ... (%zu bytes, cut)", len);
    }
    write_locked(log, dir == CF_UCI_LOG_IN ? ">>" : "<<", log->buf);
  }
  pthread_mutex_unlock(&log->mu);
}

void cf_uci_log_free(cf_uci_log *log) {
  if (!log) return;
  close_locked(log);
  pthread_mutex_destroy(&log->mu);
  free(log);
}
