/* test_cli_tools.c: every tool and subcommand binary against the command-
 * line conventions of docs/CLI.md, from one table:
 *
 *   --help: exit 0, the usage on stdout, nothing on stderr;
 *   --version: exit 0, "<tool> <version>" on stdout;
 *   an unknown flag (also the last argument, also --x=1): exit 2, one line
 *     on stderr naming it, nothing on stdout;
 *   a missing value, a bad number, an out-of-range number, an empty value
 *     (--flag=): exit 2 with the one wording;
 *   a flag given twice: accepted, the last value wins;
 *   --flag=value accepted (a real run of the command);
 *   nothing written on a usage error (commands that write files).
 *
 *     test_cli_tools CFORMER NETCONV CFORMER_MATCH VERSION [tests]
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/cf_test.h"

#define MAX_ARGS 48
#define TEXT_MAX (1 << 16)

static const char *cformer, *netconv, *match, *version;
static char dir[] = "/tmp/cf_cli_tools_XXXXXX";
static char *out_text, *err_text;

/* One tool or subcommand and the flags that exercise it. "@" in an
 * argument is replaced by the scratch folder. */
typedef struct tool_case {
  const char *name;      /* "cformer perft": the prefix of every message */
  const char *exe;       /* "cformer", "netconv" or "match" */
  const char *sub;       /* the subcommand, or NULL */
  const char *version;   /* what --version prints, before the number */
  const char *number;    /* a flag taking a whole number, or NULL */
  const char *value;     /* a flag taking a value (for "needs a value" and "--flag=") */
  const char *twice;     /* a flag to give twice (with its value, if any: "--depth=1") */
  const char *ok[12];    /* a run with --flag=value that succeeds (exit ok_status) */
  int ok_status;
  const char *writes[12]; /* a usage error whose run would write @/written, or {NULL} */
} tool_case;

static const tool_case tools[] = {
    {"cformer uci", "cformer", "uci", "cformer", "--threads", "--agent", "--ponder",
     {"--threads=1", "--show-wdl", "--no-ponder", "-w=<built in>", "--agent=policy"}, 0, {NULL}},
    {"cformer perft", "cformer", "perft", "cformer", "--depth", "--depth", "--divide",
     {"--depth=1", "--fen=8/8/8/8/8/8/8/K6k w - - 0 1"}, 0, {NULL}},
    {"cformer eval", "cformer", "eval", "cformer", "--batch", "--history-fill", "--batch=2",
     {"--weights=<built in>", "--batch=1", "--history-fill=always", "--threads=1"}, 0, {NULL}},
    {"cformer bench", "cformer", "bench", "cformer", "--positions", "--arch", "--json",
     {"--arch=1x16", "--cost-only", "--json=false", "--seed=3"}, 0,
     {"--arch=1x16", "--positions=1", "--no-sgemm", "--quiet", "--svg=@/written", "--min-time=x"}},
    {"cformer puzzles", "cformer", "puzzles", "cformer", "--limit", "--csv", "--quiet",
     {"--limit=1", "--agent=policy", "--quiet", "--weights=<built in>", "--json"}, 0, {NULL}},
    {"cformer pack-data", "cformer", "pack-data", "cformer", "--progress-every", "--out",
     "--strict",
     {"--out=@/packed", "--val-fraction=0.5", "--seed=2", "--progress-every=0", "@/empty.tsv"}, 0,
     {"--out=@/written", "--seed=-1", "@/empty.tsv"}},
    {"netconv describe", "netconv", "describe", "netconv", NULL, NULL, "--json",
     {"--json=true", "<built in>"}, 0, {NULL}},
    {"netconv convert", "netconv", "convert", "netconv", NULL, "--encoding", "--quiet",
     {"<built in>", "--output=@/conv.pb.gz", "--encoding=FLOAT16", "--quiet"}, 0,
     {"<built in>", "-o", "@/written", "--encoding=int4"}},
    {"netconv export", "netconv", "export", "netconv", NULL, "--naming", "--naming=ours",
     {"<built in>", "-o=@/net.safetensors", "--naming=ours"}, 0,
     {"<built in>", "-o", "@/written", "--naming=theirs"}},
    {"netconv import", "netconv", "import", "netconv", NULL, "--config", "--no-gzip",
     {"@/net.safetensors", "--output=@/back.pb", "--no-gzip", "--encoding=float32"}, 0,
     {"@/net.safetensors", "-o", "@/written", "--bogus"}},
    {"netconv random", "netconv", "random", "netconv", "--layers", "--preset", "--rpe",
     {"--layers=1", "--embedding=8", "--heads=2", "--dff=8", "--seed=1", "--rpe",
      "--no-moves-left", "-o=@/random.pb.gz"}, 0,
     {"--layers=1", "--embedding=8", "--heads=2", "--dff=8", "--seed=1", "-o=@/written",
      "--input=x"}},
    /* a real match needs engines: an openings file that is not there is a
     * failure of the run (1), after every flag was accepted */
    {"cformer-match", "match", NULL, "cformer-match", "--games", "--openings", "--quiet",
     {"--games=2", "--movetime=5", "--nodes=3", "--copt=Threads=1", "--copt", "Agent=policy",
      "--openings=@/missing.txt", "--quiet"}, 1,
     {"--pgn=@/written", "--games=0"}},
};

static const char *exe_path(const tool_case *c) {
  return strcmp(c->exe, "cformer") == 0 ? cformer : strcmp(c->exe, "netconv") == 0 ? netconv
                                                                                 : match;
}

/* "@" -> the scratch folder; into buf. */
static const char *expand(const char *arg, char *buf, size_t size) {
  const char *at = strchr(arg, '@');
  if (!at) return arg;
  snprintf(buf, size, "%.*s%s%s", (int)(at - arg), arg, dir, at + 1);
  return buf;
}

/* Runs the tool with its subcommand and the NULL-terminated args (stdin
 * from /dev/null); stdout and stderr into out_text and err_text. Returns
 * the exit status (-1 if it did not exit). */
static int run(const tool_case *c, const char *const *args) {
  static char store[MAX_ARGS][1024];
  char *argv[MAX_ARGS + 3];
  int n = 0;
  argv[n++] = (char *)exe_path(c);
  if (c->sub) argv[n++] = (char *)c->sub;
  for (int i = 0; args[i] && n < MAX_ARGS; i++)
    argv[n++] = (char *)expand(args[i], store[i], sizeof store[i]);
  argv[n] = NULL;
  char out_path[512], err_path[512];
  snprintf(out_path, sizeof out_path, "%s/stdout", dir);
  snprintf(err_path, sizeof err_path, "%s/stderr", dir);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || o < 0 || e < 0) _exit(126);
    dup2(in, 0);
    dup2(o, 1);
    dup2(e, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  int status;
  if (waitpid(pid, &status, 0) != pid) return -1;
  char *bufs[2] = {out_text, err_text};
  const char *paths[2] = {out_path, err_path};
  for (int k = 0; k < 2; k++) {
    FILE *f = fopen(paths[k], "rb");
    size_t got = f ? fread(bufs[k], 1, TEXT_MAX - 1, f) : 0;
    bufs[k][got] = '\0';
    if (f) fclose(f);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define RUN(c, ...) run(c, (const char *const[]){__VA_ARGS__, NULL})

static int lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* A usage error of tool c: exit 2, nothing on stdout, one line on stderr
 * "NAME: ... WANT ... (NAME --help)". */
static void check_usage_error(cf_test *t, const tool_case *c, int status, const char *want,
                              const char *what) {
  char prefix[128], hint[128], m[1024];
  snprintf(prefix, sizeof prefix, "%s: ", c->name);
  snprintf(hint, sizeof hint, "(%s --help)\n", c->name);
  size_t len = strlen(err_text), hint_len = strlen(hint);
  bool ok = status == 2 && out_text[0] == '\0' && lines(err_text) == 1 &&
            strncmp(err_text, prefix, strlen(prefix)) == 0 && strstr(err_text, want) &&
            len >= hint_len && strcmp(err_text + len - hint_len, hint) == 0;
  snprintf(m, sizeof m, "%s %s: exit 2 and one line with \"%s\"; got %d, stdout \"%.80s\", "
           "stderr \"%.300s\"", c->name, what, want, status, out_text, err_text);
  cf_test_report(t, ok, __FILE__, __LINE__, m);
}

static void test_help(cf_test *t) {
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
    const tool_case *c = &tools[i];
    char usage[128], m[512];
    if (strcmp(c->name, "cformer uci") == 0) snprintf(usage, sizeof usage, "usage: cformer [uci]");
    else snprintf(usage, sizeof usage, "usage: %s", c->name);
    for (int k = 0; k < 2; k++) {
      int st = RUN(c, k ? "-h" : "--help");
      bool ok = st == 0 && strstr(out_text, usage) && strstr(out_text, "--help") &&
                strstr(out_text, "--version") && err_text[0] == '\0';
      snprintf(m, sizeof m, "%s %s: exit 0, usage on stdout; got %d, stderr \"%.200s\"", c->name,
               k ? "-h" : "--help", st, err_text);
      cf_test_report(t, ok, __FILE__, __LINE__, m);
    }
  }
}

static void test_version(cf_test *t) {
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
    const tool_case *c = &tools[i];
    char want[128], m[512];
    snprintf(want, sizeof want, "%s %s\n", c->version, version);
    int st = RUN(c, "--version");
    snprintf(m, sizeof m, "%s --version: exit 0 and \"%s\"; got %d, \"%.100s\"", c->name, want, st,
             out_text);
    cf_test_report(t, st == 0 && strcmp(out_text, want) == 0 && !err_text[0], __FILE__, __LINE__, m);
  }
}

static void test_unknown_flag(cf_test *t) {
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
    const tool_case *c = &tools[i];
    check_usage_error(t, c, RUN(c, "--no-such-flag"), "unknown flag '--no-such-flag'", "--no-such-flag");
    check_usage_error(t, c, RUN(c, "--no-such-flag=1"), "unknown flag '--no-such-flag'",
                      "--no-such-flag=1");
    /* last, after a good flag: still unknown, not short of a value */
    check_usage_error(t, c, RUN(c, c->twice, "--bogus"), "unknown flag '--bogus'", "last --bogus");
  }
}

static void test_missing_value(cf_test *t) {
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
    const tool_case *c = &tools[i];
    if (!c->value) continue;
    char want[128];
    snprintf(want, sizeof want, "%s needs a value: %s ", c->value, c->value);
    check_usage_error(t, c, RUN(c, c->value), want, "missing value");
  }
}

static void test_bad_numbers(cf_test *t) {
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
    const tool_case *c = &tools[i];
    if (!c->number) continue;
    char want[160];
    snprintf(want, sizeof want, "bad value 'x' for %s: expected a whole number", c->number);
    check_usage_error(t, c, RUN(c, c->number, "x"), want, "bad number");
    snprintf(want, sizeof want, "bad value '99999999999999999999' for %s: expected", c->number);
    check_usage_error(t, c, RUN(c, c->number, "99999999999999999999"), want, "out of range");
    snprintf(want, sizeof want, "bad value '3.5' for %s", c->number);
    check_usage_error(t, c, RUN(c, c->number, "3.5"), want, "not whole");
  }
}

static void test_empty_value(cf_test *t) {
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
    const tool_case *c = &tools[i];
    const char *flag = c->number ? c->number : c->value ? c->value : c->twice; /* a boolean */
    if (!flag || strchr(flag, '=') || strcmp(flag, "--csv") == 0 || strcmp(flag, "--out") == 0 ||
        strcmp(flag, "--openings") == 0 || strcmp(flag, "--config") == 0 ||
        strcmp(flag, "--arch") == 0)
      continue; /* strings may be empty */
    char arg[64], want[128];
    snprintf(arg, sizeof arg, "%s=", flag);
    snprintf(want, sizeof want, "bad value '' for %s: expected", flag);
    check_usage_error(t, c, RUN(c, arg), want, "--flag=");
  }
}

static void test_repeated(cf_test *t) {
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
    const tool_case *c = &tools[i];
    int st = RUN(c, c->twice, c->twice, "--version");
    char m[512];
    snprintf(m, sizeof m, "%s %s %s: accepted; got %d, stderr \"%.200s\"", c->name, c->twice,
             c->twice, st, err_text);
    cf_test_report(t, st == 0, __FILE__, __LINE__, m);
  }
  /* the last value wins */
  const tool_case *perft = &tools[1];
  CHECK_INT_EQ(RUN(perft, "--depth=4", "--fen", "8/8/8/8/8/8/8/K6k", "w", "-", "-", "--depth", "1",
                   "--no-divide", "--divide"),
               0);
  CHECK_STR_CONTAINS(out_text, "depth: 1\n");
  CHECK_STR_CONTAINS(out_text, "moves: 3\n"); /* --divide, the last word on it */
}

/* --flag=value runs the command (tools in table order: export before import). */
static void test_flag_equals_value(cf_test *t) {
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
    const tool_case *c = &tools[i];
    int st = run(c, c->ok);
    char m[1024];
    snprintf(m, sizeof m, "%s %s ...: exit %d; got %d, stderr \"%.300s\"", c->name, c->ok[0],
             c->ok_status, st, err_text);
    cf_test_report(t, st == c->ok_status, __FILE__, __LINE__, m);
    if (c->ok_status == 1) CHECK_STR_CONTAINS(err_text, "missing.txt");
  }
}

/* A usage error creates no file, even where the same run would write one. */
static void test_nothing_written(cf_test *t) {
  char written[512];
  snprintf(written, sizeof written, "%s/written", dir);
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
    const tool_case *c = &tools[i];
    if (!c->writes[0]) continue;
    int st = run(c, c->writes);
    char m[1024];
    struct stat sb;
    bool absent = stat(written, &sb) != 0;
    snprintf(m, sizeof m, "%s usage error: exit 2 and no file; got %d, file %s, stderr \"%.200s\"",
             c->name, st, absent ? "absent" : "written", err_text);
    cf_test_report(t, st == 2 && absent, __FILE__, __LINE__, m);
    remove(written);
  }
}

/* The dispatchers: cformer and netconv without a known command. */
static void test_dispatchers(cf_test *t) {
  const tool_case top_cformer = {"cformer", "cformer", NULL, "cformer", 0, 0, 0, {0}, 0, {0}};
  const tool_case top_netconv = {"netconv", "netconv", NULL, "netconv", 0, 0, 0, {0}, 0, {0}};
  check_usage_error(t, &top_cformer, RUN(&top_cformer, "frobnicate"), "unknown command 'frobnicate'",
                    "unknown command");
  check_usage_error(t, &top_netconv, RUN(&top_netconv, "frobnicate"), "unknown command 'frobnicate'",
                    "unknown command");
  check_usage_error(t, &top_netconv, RUN(&top_netconv, "--bogus"), "unknown flag '--bogus'",
                    "unknown flag");
  /* cformer with option flags only is the engine */
  const tool_case as_uci = {"cformer uci", "cformer", NULL, "cformer", 0, 0, 0, {0}, 0, {0}};
  check_usage_error(t, &as_uci, RUN(&as_uci, "--bogus"), "unknown flag '--bogus'", "flags only");
  for (int k = 0; k < 2; k++) {
    const tool_case *c = k ? &top_netconv : &top_cformer;
    CHECK_INT_EQ(RUN(c, "--help"), 0);
    CHECK_STR_CONTAINS(out_text, "commands:");
    CHECK_INT_EQ(RUN(c, "--version"), 0);
    CHECK(strncmp(out_text, c->version, strlen(c->version)) == 0);
  }
}

static int cleanup(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd);
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: test_cli_tools CFORMER NETCONV CFORMER_MATCH VERSION [tests]\n");
    return 2;
  }
  cformer = argv[1];
  netconv = argv[2];
  match = argv[3];
  version = argv[4];
  out_text = malloc(TEXT_MAX);
  err_text = malloc(TEXT_MAX);
  if (!out_text || !err_text || !mkdtemp(dir)) return 1;
  char empty[512];
  snprintf(empty, sizeof empty, "%s/empty.tsv", dir);
  FILE *f = fopen(empty, "w");
  if (!f) return 1;
  fclose(f);
  static const cf_test_fn fns[] = {test_help,        test_version,   test_unknown_flag,
                                   test_missing_value, test_bad_numbers, test_empty_value,
                                   test_repeated,    test_flag_equals_value, test_nothing_written,
                                   test_dispatchers};
  static const char *names[] = {"test_help",        "test_version",   "test_unknown_flag",
                                "test_missing_value", "test_bad_numbers", "test_empty_value",
                                "test_repeated",    "test_flag_equals_value",
                                "test_nothing_written", "test_dispatchers"};
  int rc = cf_test_run(names, fns, (int)(sizeof fns / sizeof fns[0]), argc - 4, argv + 4);
  if (cleanup() != 0) fprintf(stderr, "could not remove %s\n", dir);
  free(out_text);
  free(err_text);
  return rc;
}
