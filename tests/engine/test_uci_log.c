/* test_uci_log.c: LogFile (--logfile, -l): the log's line format (time
 * stamp, direction marker, one line per message, clean text), the order of
 * lines in and out through the responder, switching the file at run time,
 * turning it off, an unopenable path (an error line, the engine goes on),
 * and the flag on the real binary (argv[1]). */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/uci/cf_uci.h"
#include "engine/uci/cf_uci_log.h"
#include "tests/cf_test.h"
#include "tests/engine/uci_transcript.h"

static const char *cformer = "cformer";

/* Feeds one line, waits for any search; returns the output it caused. */
static const char *feed(cf_uci *u, transcript *tr, const char *line) {
  return uci_transcript_run(u, tr, line);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return strdup("");
  static char buf[1 << 18];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return strdup(buf);
}

/* Whether line starts with Lc0's stamp "MMDD HH:MM:SS.uuuuuu " and then
 * marker and a space; *usec gets the time of day in microseconds. */
static bool stamped(const char *line, const char *marker, long long *usec) {
  static const char pattern[] = "dddd dd:dd:dd.dddddd ";
  for (size_t i = 0; i < sizeof pattern - 1; i++) {
    if (pattern[i] == 'd' ? !isdigit((unsigned char)line[i]) : line[i] != pattern[i]) return false;
  }
  int h, m, s;
  long us;
  if (sscanf(line + 5, "%2d:%2d:%2d.%6ld", &h, &m, &s, &us) != 4) return false;
  if (usec) *usec = (((long long)h * 60 + m) * 60 + s) * 1000000LL + us;
  size_t k = strlen(marker);
  return strncmp(line + 21, marker, k) == 0 && line[21 + k] == ' ';
}

/* The log's lines, each checked for its stamp; returns the count. Every
 * line must be stamped, with a marker of >>, << or ##, and the stamps
 * must not go back (the test runs well inside one day, bar midnight). */
static int check_lines(cf_test *t, const char *log, char lines[][512], int max) {
  int n = 0;
  long long last = -1;
  for (const char *p = log; *p && n < max;) {
    const char *e = strchr(p, '\n');
    if (!CHECK(e != NULL)) break; /* every line ends with a newline */
    snprintf(lines[n], 512, "%.*s", (int)(e - p), p);
    long long us = 0;
    bool ok = stamped(lines[n], ">>", &us) || stamped(lines[n], "<<", &us) ||
              stamped(lines[n], "##", &us);
    if (!ok) printf("  unstamped log line: %s\n", lines[n]);
    CHECK(ok);
    if (last >= 0 && us < last && last - us < 3600LL * 1000000) CHECK(!"log stamps go back");
    last = us;
    n++;
    p = e + 1;
  }
  return n;
}

/* Index of the first line whose text after the stamp is exactly text
 * (starts with it, when text ends with "..."); -1 when none. */
static int find(char lines[][512], int n, const char *text) {
  size_t k = strlen(text);
  const bool prefix = k >= 3 && strcmp(text + k - 3, "...") == 0;
  for (int i = 0; i < n; i++)
    if (strlen(lines[i]) > 21 && (prefix ? strncmp(lines[i] + 21, text, k - 3) == 0
                                         : strcmp(lines[i] + 21, text) == 0))
      return i;
  return -1;
}

static void temp_dir(char *dir, size_t size) {
  snprintf(dir, size, "/tmp/cf_test_uci_log_XXXXXX");
  if (!mkdtemp(dir)) dir[0] = 0;
}

/* The log on its own: format, clean text, NUL bytes, newlines dropped,
 * appending to what was there, off. */
static void test_log_format(cf_test *t) {
  char dir[64], path[128];
  temp_dir(dir, sizeof dir);
  if (!CHECK(dir[0])) return;
  snprintf(path, sizeof path, "%s/a.log", dir);
  FILE *f = fopen(path, "w");
  if (f) {
    fputs("earlier line\n", f);
    fclose(f);
  }
  cf_uci_log *log = NULL;
  cf_error err = {0};
  CHECK(cf_uci_log_create(&log, &err) == CF_OK);
  cf_uci_log_line(log, CF_UCI_LOG_IN, "not logged: off", 15);
  CHECK(cf_uci_log_open(log, path, &err) == CF_OK);
  cf_uci_log_line(log, CF_UCI_LOG_IN, "position startpos\r\n", 19);
  cf_uci_log_line(log, CF_UCI_LOG_OUT, "bestmove e2e4", 13);
  cf_uci_log_line(log, CF_UCI_LOG_IN, "go\nnodes\0x\x01", 11);
  CHECK(cf_uci_log_open(log, "", &err) == CF_OK);
  cf_uci_log_line(log, CF_UCI_LOG_OUT, "not logged either", 17);
  cf_uci_log_free(log);
  char *text = slurp(path);
  CHECK(strncmp(text, "earlier line\n", 13) == 0); /* appended, not truncated */
  char lines[16][512];
  int n = check_lines(t, text + 13, lines, 16);
  CHECK_INT_EQ(n, 4);
  if (n == 4) {
    CHECK_STR_EQ(lines[0] + 21, "## log started: cformer " CF_VERSION);
    CHECK_STR_EQ(lines[1] + 21, ">> position startpos");
    CHECK_STR_EQ(lines[2] + 21, "<< bestmove e2e4");
    CHECK_STR_EQ(lines[3] + 21, ">> go\\x0anodes\\x00x\\x01"); /* one line per message */
  }
  CHECK(strstr(text, "not logged") == NULL);
  free(text);
  unlink(path);
  rmdir(dir);
}

/* Through the responder: set as an option, every line in before its
 * replies and every reply logged in order; switched at run time; off. */
static void test_log_through_uci(cf_test *t) {
  char dir[64], first[128], second[128], cmd[256];
  temp_dir(dir, sizeof dir);
  if (!CHECK(dir[0])) return;
  snprintf(first, sizeof first, "%s/first.log", dir);
  snprintf(second, sizeof second, "%s/second.log", dir);
  static transcript tr;
  uci_transcript_init(&tr);
  cf_uci_config cfg = {.max_batch = 8};
  cf_uci *u = NULL;
  cf_error err = {0};
  if (!CHECK(cf_uci_create(&cfg, uci_transcript_collect, &tr, &u, &err) == CF_OK)) return;
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_LOG_FILE), ""); /* off by default */
  feed(u, &tr, "uci"); /* before the log: not in it */
  CHECK(cf_uci_set_option(u, CF_OPT_LOG_FILE, first, &err) == CF_OK);
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_LOG_FILE), first);
  feed(u, &tr, "isready");
  feed(u, &tr, "bogus\x01");
  feed(u, &tr, "position startpos moves e2e4");
  const char *o = feed(u, &tr, "go nodes 1");
  CHECK_STR_CONTAINS(o, "bestmove ");
  char bestmove[64] = "";
  const char *b = strstr(o, "bestmove ");
  if (b) snprintf(bestmove, sizeof bestmove, "<< %.*s", (int)strcspn(b, "\n"), b);
  snprintf(cmd, sizeof cmd, "setoption name LogFile value %s", second);
  CHECK_STR_EQ(feed(u, &tr, cmd), "");
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_LOG_FILE), second);
  feed(u, &tr, "isready");
  CHECK_STR_EQ(feed(u, &tr, "setoption name LogFile value"), ""); /* off */
  feed(u, &tr, "ucinewgame");
  cf_uci_free(u);

  char *text = slurp(first);
  char lines[64][512];
  int n = check_lines(t, text, lines, 64);
  CHECK(find(lines, n, ">> uci") < 0 && find(lines, n, "<< uciok") < 0);
  const int started = find(lines, n, "## log started: cformer " CF_VERSION);
  const int isready = find(lines, n, ">> isready"), readyok = find(lines, n, "<< readyok");
  const int loaded = find(lines, n, "<< info string loaded network <built in> (...");
  const int bogus = find(lines, n, ">> bogus\\x01");
  const int unknown = find(lines, n, "<< info string error: unknown command 'bogus\\x01'");
  const int position = find(lines, n, ">> position startpos moves e2e4");
  const int go = find(lines, n, ">> go nodes 1"), best = find(lines, n, bestmove);
  snprintf(cmd, sizeof cmd, ">> setoption name LogFile value %s", second);
  const int switched = find(lines, n, cmd);
  CHECK(started == 0);
  CHECK(isready > started && loaded > isready && readyok > loaded);
  CHECK(bogus > readyok && unknown == bogus + 1);
  CHECK(position > unknown && go == position + 1 && best > go);
  CHECK(switched > best && switched == n - 1); /* the switch is the old file's last line */
  free(text);

  text = slurp(second);
  n = check_lines(t, text, lines, 64);
  CHECK_INT_EQ(n, 4);
  CHECK(find(lines, n, "## log started: cformer " CF_VERSION) == 0);
  CHECK(find(lines, n, ">> isready") == 1);
  CHECK(find(lines, n, "<< readyok") == 2);
  CHECK(find(lines, n, ">> setoption name LogFile value") == 3);
  CHECK(strstr(text, "ucinewgame") == NULL);
  free(text);
  unlink(first);
  unlink(second);
  rmdir(dir);
}

/* A path that cannot be opened: an error line, logging off (the option
 * reads empty), the engine answers the next command; a good path later
 * works. A directory and a FIFO nobody reads (which must not hang). */
static void test_log_bad_path(cf_test *t) {
  char dir[64], fifo[128], good[128], cmd[256];
  temp_dir(dir, sizeof dir);
  if (!CHECK(dir[0])) return;
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  snprintf(good, sizeof good, "%s/good.log", dir);
  CHECK(mkfifo(fifo, 0600) == 0);
  static transcript tr;
  uci_transcript_init(&tr);
  cf_uci *u = NULL;
  cf_error err = {0};
  if (!CHECK(cf_uci_create(NULL, uci_transcript_collect, &tr, &u, &err) == CF_OK)) return;
  CHECK(cf_uci_set_option(u, CF_OPT_LOG_FILE, good, &err) == CF_OK);
  const char *o = feed(u, &tr, "setoption name LogFile value /nonexistent-cf-dir/x.log");
  CHECK_STR_EQ(o, "info string error: LogFile: cannot open '/nonexistent-cf-dir/x.log' for "
                  "writing: No such file or directory; logging is off\n");
  CHECK_STR_EQ(cf_uci_get_option(u, CF_OPT_LOG_FILE), "");
  CHECK_STR_CONTAINS(feed(u, &tr, "isready"), "readyok");
  snprintf(cmd, sizeof cmd, "setoption name LogFile value %s", dir);
  CHECK_STR_CONTAINS(feed(u, &tr, cmd), "info string error: LogFile: cannot open ");
  snprintf(cmd, sizeof cmd, "setoption name LogFile value %s", fifo);
  CHECK_STR_CONTAINS(feed(u, &tr, cmd), "info string error: LogFile: cannot open ");
  /* the command-line flag goes through the same call: no failure status */
  CHECK(cf_uci_set_option(u, CF_OPT_LOG_FILE, "/nonexistent-cf-dir/y.log", &err) == CF_OK);
  CHECK_STR_CONTAINS(tr.text, "cannot open '/nonexistent-cf-dir/y.log'");
  CHECK_STR_CONTAINS(feed(u, &tr, "isready"), "readyok");
  cf_uci_free(u);
  /* the good file stopped at the failed switch */
  char *text = slurp(good);
  CHECK_STR_CONTAINS(text, ">> setoption name LogFile value /nonexistent-cf-dir/x.log\n");
  CHECK(strstr(text, "<< info string error") == NULL && strstr(text, ">> isready") == NULL);
  free(text);
  unlink(good);
  unlink(fifo);
  rmdir(dir);
}

/* The real binary: -l FILE and --logfile=FILE, the option line, the
 * conversation over pipes; a bad path keeps the engine running. */
static void test_log_flag(cf_test *t) {
  char dir[64], path[128], cmd[1024], out[32768];
  temp_dir(dir, sizeof dir);
  if (!CHECK(dir[0])) return;
  snprintf(path, sizeof path, "%s/flag.log", dir);
  static const char *const forms[] = {"-l '%s'", "--logfile='%s'"};
  for (int k = 0; k < 2; k++) {
    char flag[256];
    snprintf(flag, sizeof flag, forms[k], path);
    snprintf(cmd, sizeof cmd, "printf 'uci\\nisready\\nquit\\n' | '%s' -w '<built in>' %s", cformer,
             flag);
    FILE *p = popen(cmd, "r");
    size_t got = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[got] = 0;
    CHECK(p && pclose(p) == 0);
    CHECK_STR_CONTAINS(out, "option name LogFile type string default \n");
    char *text = slurp(path);
    /* room for every option line of two runs of uci */
    static char lines[512][512];
    int n = check_lines(t, text, lines, 512);
    /* The 2nd run appends: its part starts at the 2nd "log started" line. */
    int first = 0;
    if (k == 1) {
      const int second = find(lines + 1, n - 1, "## log started: ...");
      if (!CHECK(second >= 0)) break;
      first = second + 1;
    }
    CHECK(find(lines + first, n - first, ">> uci") == 1);
    CHECK(find(lines + first, n - first, "<< id name cformer " CF_VERSION) == 2);
    CHECK(find(lines + first, n - first, "<< uciok") > 2);
    CHECK(find(lines + first, n - first, "<< readyok") > find(lines + first, n - first, ">> isready"));
    /* The binary reads on while the network loads, so quit may be read
     * before readyok is written: it is the last line read, after isready. */
    CHECK(find(lines + first, n - first, ">> quit") > find(lines + first, n - first, ">> isready"));
    for (int i = first + find(lines + first, n - first, ">> quit") + 1; i < n; i++)
      CHECK(strncmp(lines[i] + 21, ">> ", 3) != 0);
    free(text);
  }
  snprintf(cmd, sizeof cmd,
           "printf 'isready\\nquit\\n' | '%s' -w '<built in>' -l /nonexistent-cf-dir/z.log", cformer);
  FILE *p = popen(cmd, "r");
  size_t got = p ? fread(out, 1, sizeof out - 1, p) : 0;
  out[got] = 0;
  CHECK(p && pclose(p) == 0);
  CHECK_STR_CONTAINS(out, "info string error: LogFile: cannot open '/nonexistent-cf-dir/z.log'");
  CHECK_STR_CONTAINS(out, "readyok\n");
  unlink(path);
  rmdir(dir);
}

int main(int argc, char **argv) {
  if (argc > 1) cformer = argv[1];
  static const cf_test_fn fns[] = {test_log_format, test_log_through_uci, test_log_bad_path,
                                   test_log_flag};
  static const char *names[] = {"test_log_format", "test_log_through_uci", "test_log_bad_path",
                                "test_log_flag"};
  return cf_test_run(names, fns, 4, 1, argv);
}
