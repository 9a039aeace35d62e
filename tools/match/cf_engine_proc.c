/* cf_engine_proc.c: fork/exec with pipes, poll-based line reading. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cf_clock.h"
#include "tools/match/cf_engine_proc.h"

double cf_engine_now_ms(void) { return cf_clock_now() * 1000.0; }

static long now_ms(void) { return (long)cf_engine_now_ms(); }

#define MAX_ARGS 64
#define MAX_DECLARED 256

/* One `option name N type T [default D] [min A max B] [var V]...` line. */
typedef struct declared_option {
  char name[96];
  char type[16];
  long min, max;
  char def[64];   /* the declared default, "" when none */
  char vars[512]; /* combo: "\n"-separated */
} declared_option;

/* Parses a declaration; false if the line is not one. Names may hold
 * spaces ("Skill Level"), so the name runs up to " type ". */
static bool parse_declaration(const char *line, declared_option *o) {
  if (strncmp(line, "option name ", 12) != 0) return false;
  const char *name = line + 12, *type = strstr(name, " type ");
  if (!type) return false;
  memset(o, 0, sizeof *o);
  snprintf(o->name, sizeof o->name, "%.*s", (int)(type - name), name);
  sscanf(type + 6, "%15s", o->type);
  const char *at = strstr(type, " default ");
  if (at) sscanf(at + 9, "%63s", o->def);
  at = strstr(type, " min ");
  if (at) o->min = atol(at + 5);
  at = strstr(type, " max ");
  if (at) o->max = atol(at + 5);
  size_t used = 0;
  for (at = strstr(type, " var "); at && used < sizeof o->vars - 1; at = strstr(at + 5, " var ")) {
    const char *end = strstr(at + 5, " var ");
    int n = end ? (int)(end - (at + 5)) : (int)strlen(at + 5);
    used += (size_t)snprintf(o->vars + used, sizeof o->vars - used, "%.*s\n", n, at + 5);
  }
  return true;
}

/* Whether value suits the declared option; why says what would. */
static bool value_fits(const declared_option *o, const char *value, char *why, size_t size) {
  if (strcmp(o->type, "spin") == 0) {
    char *end;
    long v = strtol(value, &end, 10);
    snprintf(why, size, "a whole number from %ld to %ld", o->min, o->max);
    return *value && !*end && v >= o->min && v <= o->max;
  }
  if (strcmp(o->type, "check") == 0) {
    snprintf(why, size, "true or false");
    return strcasecmp(value, "true") == 0 || strcasecmp(value, "false") == 0;
  }
  if (strcmp(o->type, "combo") == 0) {
    size_t at = (size_t)snprintf(why, size, "one of:");
    bool ok = false;
    for (const char *v = o->vars; *v;) {
      const char *nl = strchr(v, '\n');
      int n = (int)(nl - v);
      if ((int)strlen(value) == n && strncasecmp(v, value, (size_t)n) == 0) ok = true;
      if (at < size) at += (size_t)snprintf(why + at, size - at, " %.*s", n, v);
      v = nl + 1;
    }
    return ok;
  }
  return true; /* string, button: anything */
}

/* Checks "Name=Value" against the declarations. */
static cf_status check_option(const declared_option *decl, int n_decl, const char *opt,
                              const char *engine, cf_error *err) {
  const char *eq = strchr(opt, '=');
  if (!eq) return cf_error_set(err, CF_ERR_ARG, "engine option '%s' is not Name=Value", opt);
  int len = (int)(eq - opt);
  for (int i = 0; i < n_decl; i++) {
    if ((int)strlen(decl[i].name) != len || strncasecmp(decl[i].name, opt, (size_t)len) != 0)
      continue;
    char why[600];
    if (value_fits(&decl[i], eq + 1, why, sizeof why)) return CF_OK;
    return cf_error_set(err, CF_ERR_ARG, "engine %s: option %s: bad value '%s' (expected %s)",
                        engine, decl[i].name, eq + 1, why);
  }
  char names[700] = "";
  size_t at = 0;
  for (int i = 0; i < n_decl && at < sizeof names; i++)
    at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", i ? ", " : "", decl[i].name);
  return cf_error_set(err, CF_ERR_ARG, "engine %s has no option '%.*s' (it has: %s)", engine, len,
                      opt, n_decl ? names : "none");
}

cf_status cf_engine_start(const cf_engine_spec *spec, int timeout_ms, cf_engine_proc *p,
                          cf_error *err) {
  memset(p, 0, sizeof *p);
  p->pid = -1;
  p->to_fd = p->from_fd = -1;
  char *cmd = strdup(spec->command ? spec->command : "");
  if (!cmd) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
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

  p->on_message = spec->on_message;
  p->message_user = spec->message_user;
  char line[CF_PROC_LINE_MAX];
  declared_option *decl = calloc(MAX_DECLARED, sizeof *decl);
  int n_decl = 0;
  cf_status st = decl ? cf_engine_send(p, "uci", err) : cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  long deadline = now_ms() + timeout_ms;
  while (st == CF_OK) {
    long left = deadline - now_ms();
    st = cf_engine_read(p, left > 0 ? (int)left : 0, line, err);
    if (st != CF_OK) break;
    if (strncmp(line, "id name ", 8) == 0) snprintf(p->name, sizeof p->name, "%.127s", line + 8);
    if (n_decl < MAX_DECLARED && parse_declaration(line, &decl[n_decl])) n_decl++;
    if (strcmp(line, "uciok") == 0) break;
  }
  for (int i = 0; st == CF_OK && i < spec->n_options; i++)
    st = check_option(decl, n_decl, spec->options[i], p->name, err);
  p->move_overhead_ms = -1;
  for (int i = 0; i < n_decl; i++)
    if (strcasecmp(decl[i].name, "MoveOverheadMs") == 0 && decl[i].def[0])
      p->move_overhead_ms = atol(decl[i].def);
  for (int i = 0; i < spec->n_options; i++)
    if (strncasecmp(spec->options[i], "MoveOverheadMs=", 15) == 0)
      p->move_overhead_ms = atol(spec->options[i] + 15);
  free(decl);
  for (int i = 0; st == CF_OK && i < spec->n_options; i++) {
    const char *eq = strchr(spec->options[i], '=');
    char cmdline[1200];
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
      if (p->on_message && (strncmp(line, "info string error", 17) == 0 ||
                            strncmp(line, "info string warning", 19) == 0))
        p->on_message(p->message_user, p, line);
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
