/* cf_engine_proc.c: fork/exec with pipes, poll-based line reading. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/match/cf_engine_proc.h"

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#define MAX_ARGS 64

cf_status cf_engine_start(const cf_engine_spec *spec, int timeout_ms, cf_engine_proc *p,
                          cf_error *err) {
  memset(p, 0, sizeof *p);
  p->pid = -1;
  p->to_fd = p->from_fd = -1;
  char *cmd = strdup(spec->command ? spec->command : "");
  char *argv[MAX_ARGS + 1];
  int argc = 0;
  for (char *s = NULL, *w = strtok_r(cmd, " ", &s); w && argc < MAX_ARGS; w = strtok_r(NULL, " ", &s))
    argv[argc++] = w;
  argv[argc] = NULL;
  if (argc == 0) {
    free(cmd);
    return cf_error_set(err, CF_ERR_ARG, "empty engine command");
  }
  int in[2], out[2];
  if (pipe(in) != 0) {
    free(cmd);
    return cf_error_set(err, CF_ERR_IO, "pipe: %s", strerror(errno));
  }
  if (pipe(out) != 0) {
    close(in[0]);
    close(in[1]);
    free(cmd);
    return cf_error_set(err, CF_ERR_IO, "pipe: %s", strerror(errno));
  }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, 2);
    for (int fd = 3; fd < 1024; fd++) close(fd);
    execvp(argv[0], argv);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  if (pid < 0) {
    close(in[1]);
    close(out[0]);
    free(cmd);
    return cf_error_set(err, CF_ERR_IO, "fork: %s", strerror(errno));
  }
  fcntl(in[1], F_SETFD, FD_CLOEXEC);
  fcntl(out[0], F_SETFD, FD_CLOEXEC);
  p->pid = pid;
  p->to_fd = in[1];
  p->from_fd = out[0];
  snprintf(p->name, sizeof p->name, "%s", argv[0]);
  free(cmd);

  char line[CF_PROC_LINE_MAX];
  cf_status st = cf_engine_send(p, "uci", err);
  long deadline = now_ms() + timeout_ms;
  while (st == CF_OK) {
    long left = deadline - now_ms();
    st = cf_engine_read(p, left > 0 ? (int)left : 0, line, err);
    if (st != CF_OK) break;
    if (strncmp(line, "id name ", 8) == 0) snprintf(p->name, sizeof p->name, "%.127s", line + 8);
    if (strcmp(line, "uciok") == 0) break;
  }
  for (int i = 0; st == CF_OK && i < spec->n_options; i++) {
    const char *eq = strchr(spec->options[i], '=');
    char cmdline[1200];
    if (!eq) {
      st = cf_error_set(err, CF_ERR_ARG, "engine option '%s' is not Name=Value", spec->options[i]);
      break;
    }
    snprintf(cmdline, sizeof cmdline, "setoption name %.*s value %s",
             (int)(eq - spec->options[i]), spec->options[i], eq + 1);
    st = cf_engine_send(p, cmdline, err);
  }
  if (st == CF_OK) st = cf_engine_send(p, "isready", err);
  if (st == CF_OK) st = cf_engine_expect(p, "readyok", timeout_ms, line, NULL, err);
  if (st != CF_OK) {
    cf_error_prefix(err, "engine '%s'", spec->command);
    cf_engine_stop(p, 200);
  }
  return st;
}

cf_status cf_engine_send(cf_engine_proc *p, const char *line, cf_error *err) {
  size_t n = strlen(line);
  char *buf = malloc(n + 1);
  if (!buf) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  memcpy(buf, line, n);
  buf[n] = '\n';
  size_t at = 0;
  while (at < n + 1) {
    ssize_t w = write(p->to_fd, buf + at, n + 1 - at);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      free(buf);
      return cf_error_set(err, CF_ERR_IO, "engine %s: write failed (%s)", p->name,
                          strerror(errno));
    }
    at += (size_t)w;
  }
  free(buf);
  return CF_OK;
}

cf_status cf_engine_read(cf_engine_proc *p, int timeout_ms, char line[CF_PROC_LINE_MAX],
                         cf_error *err) {
  long deadline = now_ms() + timeout_ms;
  for (;;) {
    char *nl = memchr(p->buf, '\n', p->len);
    if (nl || p->len == sizeof p->buf - 1) {
      size_t n = nl ? (size_t)(nl - p->buf) : p->len;
      memcpy(line, p->buf, n);
      line[n] = 0;
      if (n && line[n - 1] == '\r') line[n - 1] = 0;
      size_t used = nl ? n + 1 : n;
      memmove(p->buf, p->buf + used, p->len - used);
      p->len -= used;
      return CF_OK;
    }
    long left = deadline - now_ms();
    if (left <= 0) return cf_error_set(err, CF_ERR_BACKEND, "engine %s: timed out", p->name);
    struct pollfd pfd = {.fd = p->from_fd, .events = POLLIN};
    int r = poll(&pfd, 1, (int)left);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;
    if (r < 0) return cf_error_set(err, CF_ERR_IO, "poll: %s", strerror(errno));
    ssize_t got = read(p->from_fd, p->buf + p->len, sizeof p->buf - 1 - p->len);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return cf_error_set(err, CF_ERR_IO, "engine %s: output ended", p->name);
    p->len += (size_t)got;
  }
}

cf_status cf_engine_expect(cf_engine_proc *p, const char *prefix, int timeout_ms,
                           char line[CF_PROC_LINE_MAX], char *last_info, cf_error *err) {
  long deadline = now_ms() + timeout_ms;
  size_t k = strlen(prefix);
  for (;;) {
    long left = deadline - now_ms();
    CF_TRY(cf_engine_read(p, left > 0 ? (int)left : 0, line, err));
    if (strncmp(line, prefix, k) == 0) return CF_OK;
    if (last_info && strncmp(line, "info ", 5) == 0 && !strstr(line, "info string"))
      snprintf(last_info, CF_PROC_LINE_MAX, "%s", line);
  }
}

void cf_engine_stop(cf_engine_proc *p, int grace_ms) {
  if (p->pid <= 0) return;
  if (p->to_fd >= 0) {
    cf_engine_send(p, "quit", NULL);
    close(p->to_fd);
    p->to_fd = -1;
  }
  long deadline = now_ms() + grace_ms;
  int status;
  pid_t r;
  while ((r = waitpid(p->pid, &status, WNOHANG)) == 0 && now_ms() < deadline) {
    struct timespec ts = {0, 5 * 1000000L};
    nanosleep(&ts, NULL);
  }
  if (r == 0) {
    kill(p->pid, SIGKILL);
    waitpid(p->pid, &status, 0);
  }
  if (p->from_fd >= 0) close(p->from_fd);
  p->from_fd = -1;
  p->pid = -1;
}
