/* test_cli.c: the tools' command-line parser (tools/cli/cf_cli.h) on its
 * own: every kind, both value forms, booleans and their negations, empty
 * values, repeats, the one-line error wording and its exit status, help and
 * version, positionals, "--"; and the shared --threads/--backend-opts rule
 * (tools/cli/cf_cli_net.h). */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/cf_test.h"
#include "tools/cli/cf_cli.h"
#include "tools/cli/cf_cli_net.h"

/* What one parse printed on stdout and stderr (through pointers: the
 * checks' messages need not know the buffers' size). */
#define TEXT_MAX 8192
static char *out_text, *err_text;

static void read_back(int fd, char *buf, size_t size) {
  lseek(fd, 0, SEEK_SET);
  ssize_t n = read(fd, buf, size - 1);
  buf[n > 0 ? n : 0] = '\0';
}

/* The destinations of the test table; reset before every parse. */
typedef struct dests {
  bool verbose, no_cache;
  int depth, choice;
  long count;
  uint64_t seed;
  double ratio;
  const char *name, *empty_ok;
  cf_cli_list items;
  char words[32];
  int set_calls;
  char set_seen[64];
} dests;

static dests d;

static bool set_even(void *ctx, const char *value, char *why, size_t why_size) {
  dests *x = ctx;
  x->set_calls++;
  snprintf(x->set_seen, sizeof x->set_seen, "%s", value);
  if (atoi(value) % 2 == 0) return true;
  snprintf(why, why_size, "expected an even number");
  return false;
}

static bool set_record(void *ctx, const char *value, char *why, size_t why_size) {
  (void)why, (void)why_size;
  dests *x = ctx;
  x->set_calls++;
  snprintf(x->set_seen, sizeof x->set_seen, "%s", value);
  return true;
}

static const char *const colours[] = {"red", "Green", "blue", NULL};

static cf_cli_flag flags[] = {
    {.name = "verbose", .letter = 'v', .kind = CF_CLI_BOOL, .dest = &d.verbose, .help = "talk"},
    {.name = "no-cache", .kind = CF_CLI_BOOL, .dest = &d.no_cache, .help = "no cache"},
    {.name = "depth", .letter = 'd', .kind = CF_CLI_INT, .dest = &d.depth, .imin = 1, .imax = 20,
     .help = "plies"},
    {.name = "count", .kind = CF_CLI_LONG, .dest = &d.count, .imin = 0, .imax = 1000000000L,
     .help = "how many"},
    {.name = "seed", .kind = CF_CLI_U64, .dest = &d.seed, .arg = "S", .help = "seed"},
    {.name = "ratio", .kind = CF_CLI_DOUBLE, .dest = &d.ratio, .dmin = 0, .dmax = 1,
     .help = "share\nsecond line"},
    {.name = "name", .letter = 'n', .kind = CF_CLI_STRING, .dest = &d.name, .arg = "NAME",
     .alias = "old-name", .help = "a name"},
    {.name = "opts", .kind = CF_CLI_STRING, .dest = &d.empty_ok, .help = "may be empty"},
    {.name = "colour", .kind = CF_CLI_CHOICE, .dest = &d.choice, .choices = colours,
     .set = set_record, .ctx = &d, .help = "a colour"},
    {.name = "item", .letter = 'i', .kind = CF_CLI_STRINGS, .dest = &d.items, .help = "repeatable"},
    {.name = "fen", .kind = CF_CLI_WORDS, .dest = d.words, .size = sizeof d.words, .arg = "FEN",
     .help = "words"},
    {.name = "even", .kind = CF_CLI_INT, .imin = 0, .imax = 100, .set = set_even, .ctx = &d,
     .help = "checked by a callback"},
    {.name = "secret", .kind = CF_CLI_BOOL, .attrs = CF_CLI_HIDDEN, .help = "not listed"},
};

static cf_cli_spec spec;

/* Parses the NULL-terminated arguments (after the program name) with
 * stdout and stderr captured; returns cf_cli_parse's result. */
static int parse_captured(cf_cli_spec *sp, int argc, const char **args);

static int parse_with(int max_positional, const char *positional_name, const char *first, ...) {
  const char *args[64] = {"prog"};
  int argc = 1;
  va_list ap;
  va_start(ap, first);
  for (const char *a = first; a && argc < 63; a = va_arg(ap, const char *)) args[argc++] = a;
  va_end(ap);
  args[argc] = NULL;
  if (!out_text) out_text = calloc(TEXT_MAX, 1); /* reachable to the end: no leak */
  if (!err_text) err_text = calloc(TEXT_MAX, 1);
  memset(&d, 0, sizeof d);
  d.depth = 5;
  d.choice = -1;
  spec = (cf_cli_spec){.prog = "tool sub", .version = "tool 9.9",
                       .usage = "usage: tool sub [options]\n\n", .footer = "the end\n",
                       .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0]),
                       .positional_name = positional_name, .max_positional = max_positional};
  return parse_captured(&spec, argc, args);
}

/* cf_cli_parse of any spec with stdout and stderr captured. */
static int parse_captured(cf_cli_spec *sp, int argc, const char **args) {
  if (!out_text) out_text = calloc(TEXT_MAX, 1); /* reachable to the end: no leak */
  if (!err_text) err_text = calloc(TEXT_MAX, 1);
  fflush(stdout);
  fflush(stderr);
  char out_path[] = "/tmp/cf_test_cli_out_XXXXXX", err_path[] = "/tmp/cf_test_cli_err_XXXXXX";
  int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
  int saved_out = dup(1), saved_err = dup(2);
  dup2(out_fd, 1);
  dup2(err_fd, 2);
  int rc = cf_cli_parse(sp, argc, (char **)args);
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  read_back(out_fd, out_text, TEXT_MAX);
  read_back(err_fd, err_text, TEXT_MAX);
  close(out_fd);
  close(err_fd);
  unlink(out_path);
  unlink(err_path);
  return rc;
}

#define PARSE(...) parse_with(0, NULL, __VA_ARGS__, (const char *)NULL)

/* A usage error: status 2, nothing on stdout, one line on stderr that
 * holds want and ends with the help hint. */
static void check_usage_error(cf_test *t, int rc, const char *want) {
  CHECK_INT_EQ(rc, CF_CLI_EXIT_USAGE);
  CHECK_STR_EQ(out_text, "");
  CHECK_STR_CONTAINS(err_text, want);
  CHECK(strncmp(err_text, "tool sub: ", 10) == 0);
  const char *nl = strchr(err_text, '\n');
  CHECK(nl && nl[1] == '\0');
  CHECK(nl && nl - err_text > 17 && strncmp(nl - 17, "(tool sub --help)", 17) == 0);
}

static void test_value_forms(cf_test *t) {
  CHECK_INT_EQ(PARSE("--depth", "7"), CF_CLI_CONTINUE);
  CHECK_INT_EQ(d.depth, 7);
  CHECK_INT_EQ(PARSE("--depth=8"), CF_CLI_CONTINUE);
  CHECK_INT_EQ(d.depth, 8);
  CHECK_INT_EQ(PARSE("-d", "9"), CF_CLI_CONTINUE);
  CHECK_INT_EQ(d.depth, 9);
  CHECK_INT_EQ(PARSE("-d=10"), CF_CLI_CONTINUE);
  CHECK_INT_EQ(d.depth, 10);
  CHECK_INT_EQ(PARSE("--name", "x", "--count=12", "--seed", "18446744073709551615", "--ratio=0.25"),
               CF_CLI_CONTINUE);
  CHECK_STR_EQ(d.name, "x");
  CHECK_INT_EQ(d.count, 12);
  CHECK(d.seed == UINT64_MAX);
  CHECK_NEAR(d.ratio, 0.25, 0);
  CHECK_INT_EQ(cf_cli_given(&spec, "count"), 1);
  CHECK_INT_EQ(cf_cli_given(&spec, "depth"), 0);
  /* the alias is the same flag */
  CHECK_INT_EQ(PARSE("--old-name=y"), CF_CLI_CONTINUE);
  CHECK_STR_EQ(d.name, "y");
  /* a value that starts with -- only attached with '='; negative numbers as they come */
  CHECK_INT_EQ(PARSE("--name=--odd", "--count", "0"), CF_CLI_CONTINUE);
  CHECK_STR_EQ(d.name, "--odd");
  CHECK_INT_EQ(PARSE("--depth", "-3"), CF_CLI_EXIT_USAGE);
}

static void test_booleans(cf_test *t) {
  CHECK_INT_EQ(PARSE("--verbose"), CF_CLI_CONTINUE);
  CHECK(d.verbose);
  CHECK_INT_EQ(PARSE("--no-verbose"), CF_CLI_CONTINUE);
  CHECK(!d.verbose && cf_cli_given(&spec, "verbose") == 1);
  CHECK_INT_EQ(PARSE("--verbose=false"), CF_CLI_CONTINUE);
  CHECK(!d.verbose);
  CHECK_INT_EQ(PARSE("--verbose=TRUE"), CF_CLI_CONTINUE);
  CHECK(d.verbose);
  CHECK_INT_EQ(PARSE("-v"), CF_CLI_CONTINUE);
  CHECK(d.verbose);
  /* the next argument is the value only when it is literally true or false */
  CHECK_INT_EQ(PARSE("--verbose", "false"), CF_CLI_CONTINUE);
  CHECK(!d.verbose);
  CHECK_INT_EQ(parse_with(0, "FILE", "--verbose", "notes.txt", (const char *)NULL),
               CF_CLI_CONTINUE);
  CHECK(d.verbose && spec.positional.count == 1);
  cf_cli_free(&spec);
  /* a flag declared as no-x is turned back off with --x */
  CHECK_INT_EQ(PARSE("--no-cache"), CF_CLI_CONTINUE);
  CHECK(d.no_cache);
  CHECK_INT_EQ(PARSE("--cache"), CF_CLI_CONTINUE);
  CHECK(!d.no_cache);
  check_usage_error(t, PARSE("--verbose=maybe"),
                    "bad value 'maybe' for --verbose: expected true or false");
  check_usage_error(t, PARSE("--verbose="), "bad value '' for --verbose: expected true or false");
  check_usage_error(t, PARSE("--no-verbose=1"), "--no-verbose takes no value");
  /* given again: the last one wins */
  CHECK_INT_EQ(PARSE("--verbose", "--no-verbose"), CF_CLI_CONTINUE);
  CHECK(!d.verbose && cf_cli_given(&spec, "verbose") == 2);
  CHECK_INT_EQ(PARSE("--no-verbose", "-v"), CF_CLI_CONTINUE);
  CHECK(d.verbose);
  check_usage_error(t, PARSE("--no-depth"), "unknown flag '--no-depth'");
}

static void test_numbers(cf_test *t) {
  check_usage_error(t, PARSE("--depth", "x"),
                    "bad value 'x' for --depth: expected a whole number from 1 to 20");
  check_usage_error(t, PARSE("--depth", "21"), "bad value '21' for --depth");
  check_usage_error(t, PARSE("--depth", "0"), "bad value '0' for --depth");
  check_usage_error(t, PARSE("--depth", "4x"), "bad value '4x' for --depth");
  check_usage_error(t, PARSE("--depth", " 4"), "bad value ' 4' for --depth");
  check_usage_error(t, PARSE("--depth="), "bad value '' for --depth");
  check_usage_error(t, PARSE("--depth", ""), "bad value '' for --depth");
  check_usage_error(t, PARSE("--count", "99999999999999999999"), "bad value '99999999999999999999'");
  check_usage_error(t, PARSE("--seed", "-1"),
                    "bad value '-1' for --seed: expected a whole number, at least 0");
  check_usage_error(t, PARSE("--seed", "18446744073709551616"), "for --seed");
  check_usage_error(t, PARSE("--ratio", "nan"), "bad value 'nan' for --ratio: expected a number from 0 to 1");
  check_usage_error(t, PARSE("--ratio", "inf"), "bad value 'inf' for --ratio");
  check_usage_error(t, PARSE("--ratio", "1.5"), "bad value '1.5' for --ratio");
  check_usage_error(t, PARSE("--ratio="), "bad value '' for --ratio");
  CHECK_INT_EQ(PARSE("--depth", "20", "--ratio", "1"), CF_CLI_CONTINUE);
  CHECK_INT_EQ(d.depth, 20);
}

static void test_strings_choices_lists(cf_test *t) {
  /* an empty string is a value (e.g. no backend options) */
  CHECK_INT_EQ(PARSE("--opts="), CF_CLI_CONTINUE);
  CHECK(d.empty_ok && d.empty_ok[0] == '\0');
  CHECK_INT_EQ(PARSE("--opts", ""), CF_CLI_CONTINUE);
  CHECK(d.empty_ok && d.empty_ok[0] == '\0');
  /* choices match without regard to case; the callback sees the declared spelling */
  CHECK_INT_EQ(PARSE("--colour", "GREEN"), CF_CLI_CONTINUE);
  CHECK_INT_EQ(d.choice, 1);
  CHECK_STR_EQ(d.set_seen, "Green");
  check_usage_error(t, PARSE("--colour=pink"),
                    "bad value 'pink' for --colour: expected red, Green or blue");
  check_usage_error(t, PARSE("--colour="), "bad value '' for --colour");
  /* a repeatable flag keeps every value in order */
  CHECK_INT_EQ(PARSE("--item", "a", "-i=b", "--item=c"), CF_CLI_CONTINUE);
  CHECK_INT_EQ(d.items.count, 3);
  if (d.items.count == 3) {
    CHECK_STR_EQ(d.items.items[0], "a");
    CHECK_STR_EQ(d.items.items[2], "c");
  }
  CHECK_INT_EQ(cf_cli_given(&spec, "item"), 3);
  cf_cli_free(&spec);
  CHECK(d.items.items == NULL && d.items.count == 0);
  /* words: up to the next flag ("-" alone is a word) */
  CHECK_INT_EQ(PARSE("--fen", "8/8", "w", "-", "-", "--depth", "2"), CF_CLI_CONTINUE);
  CHECK_STR_EQ(d.words, "8/8 w - -");
  CHECK_INT_EQ(d.depth, 2);
  CHECK_INT_EQ(PARSE("--fen=a b", "c"), CF_CLI_EXIT_USAGE);
  check_usage_error(t, PARSE("--fen", "0123456789", "0123456789", "0123456789", "x"),
                    "bad value '0123456789' for --fen: too long (at most 31 characters)");
  /* the callback refuses with its own reason, after the kind's check */
  check_usage_error(t, PARSE("--even", "3"), "bad value '3' for --even: expected an even number");
  CHECK_INT_EQ(PARSE("--even", "4"), CF_CLI_CONTINUE);
  CHECK_INT_EQ(d.set_calls, 1);
  CHECK_INT_EQ(PARSE("--even", "x"), 2);
  CHECK_INT_EQ(d.set_calls, 0);
}

static void test_errors(cf_test *t) {
  check_usage_error(t, PARSE("--bogus"), "tool sub: unknown flag '--bogus' (tool sub --help)");
  check_usage_error(t, PARSE("--bogus=1"), "unknown flag '--bogus'");
  check_usage_error(t, PARSE("-x"), "unknown flag '-x'");
  check_usage_error(t, PARSE("-dd"), "unknown flag '-dd'");
  /* an unknown last flag is unknown, not short of a value */
  check_usage_error(t, PARSE("--depth", "3", "--bogus"), "unknown flag '--bogus'");
  check_usage_error(t, PARSE("--depth"), "--depth needs a value: --depth N");
  check_usage_error(t, PARSE("-n"), "-n needs a value: -n NAME");
  check_usage_error(t, PARSE("--name", "--depth", "3"), "--name needs a value: --name NAME");
  /* a flag given again: the last value wins, through any of its spellings;
   * every value is still checked */
  CHECK_INT_EQ(PARSE("--depth", "3", "--depth", "4"), CF_CLI_CONTINUE);
  CHECK_INT_EQ(d.depth, 4);
  CHECK_INT_EQ(cf_cli_given(&spec, "depth"), 2);
  CHECK_INT_EQ(PARSE("-d", "3", "--depth=6", "-d=2"), CF_CLI_CONTINUE);
  CHECK_INT_EQ(d.depth, 2);
  CHECK_INT_EQ(PARSE("--name=a", "--old-name=b"), CF_CLI_CONTINUE);
  CHECK_STR_EQ(d.name, "b");
  check_usage_error(t, PARSE("--depth", "x", "--depth", "3"), "bad value 'x' for --depth");
  check_usage_error(t, PARSE("stray"), "unexpected argument 'stray'");
  CHECK_INT_EQ(parse_with(1, "NET", "a", "b", (const char *)NULL), 2);
  CHECK_STR_CONTAINS(err_text, "unexpected argument 'b' (one NET only)");
  CHECK_INT_EQ(parse_with(2, "NET", "a", "b", "c", (const char *)NULL), 2);
  CHECK_STR_CONTAINS(err_text, "unexpected argument 'c' (at most 2 NET)");
  /* a required flag */
  flags[2].attrs = CF_CLI_REQUIRED;
  check_usage_error(t, PARSE("--count", "1"), "--depth is required: --depth N");
  CHECK_INT_EQ(PARSE("--depth", "1"), CF_CLI_CONTINUE);
  flags[2].attrs = 0;
}

static void test_positionals(cf_test *t) {
  CHECK_INT_EQ(parse_with(0, "FILE", "a", "--depth", "2", "b", "-", "--", "--depth", "-x",
                          (const char *)NULL),
               CF_CLI_CONTINUE);
  CHECK_INT_EQ(spec.positional.count, 5);
  if (spec.positional.count == 5) {
    CHECK_STR_EQ(spec.positional.items[0], "a");
    CHECK_STR_EQ(spec.positional.items[2], "-");
    CHECK_STR_EQ(spec.positional.items[3], "--depth");
    CHECK_STR_EQ(spec.positional.items[4], "-x");
  }
  CHECK_INT_EQ(d.depth, 2);
  cf_cli_free(&spec);
  CHECK(spec.positional.items == NULL);
}

static void test_help_and_version(cf_test *t) {
  CHECK_INT_EQ(PARSE("--depth", "3", "--help", "--bogus"), 0);
  CHECK_STR_EQ(err_text, "");
  CHECK(strncmp(out_text, "usage: tool sub [options]\n\n", 27) == 0);
  CHECK_STR_CONTAINS(out_text, "  -d, --depth N");
  CHECK_STR_CONTAINS(out_text, "  --seed S");
  CHECK_STR_CONTAINS(out_text, "  -v, --verbose  ");
  CHECK_STR_CONTAINS(out_text, "a name (also --old-name)");
  CHECK_STR_CONTAINS(out_text, "share\n");
  CHECK_STR_CONTAINS(out_text, "  -h, --help");
  CHECK_STR_CONTAINS(out_text, "  --version");
  CHECK(strstr(out_text, "secret") == NULL);
  CHECK(strlen(out_text) > 8 && strcmp(out_text + strlen(out_text) - 8, "the end\n") == 0);
  /* the continuation line starts under the text column */
  const char *share = strstr(out_text, "share\n");
  const char *line = strstr(out_text, "  --ratio X");
  if (share && line) {
    size_t column = (size_t)(share - line);
    const char *next = share + 6;
    CHECK(strspn(next, " ") == column && strncmp(next + column, "second line", 11) == 0);
  }
  CHECK_INT_EQ(PARSE("-h"), 0);
  CHECK_STR_CONTAINS(out_text, "usage: tool sub");
  CHECK_INT_EQ(PARSE("--version"), 0);
  CHECK_STR_EQ(out_text, "tool 9.9\n");
  CHECK_STR_EQ(err_text, "");
}

/* cf_cli_backend_options(opts, threads) rendered ("!" + the message when it fails). */
static const char *options(const char *opts, int threads, char *buf, size_t size) {
  cf_kv *kv = NULL;
  cf_error err = {0};
  char *text = NULL;
  if (cf_cli_backend_options(opts, threads, &kv, &err) != CF_OK)
    snprintf(buf, size, "!%.120s", err.msg);
  else if ((text = cf_kv_render(kv)))
    snprintf(buf, size, "%s", text);
  else
    snprintf(buf, size, "!out of memory");
  free(text);
  cf_kv_free(kv);
  return buf;
}

static void test_backend_options(cf_test *t) {
  char buf[128];
  CHECK_STR_EQ(options(NULL, 0, buf, sizeof buf), "");
  CHECK_STR_EQ(options("a=1", 0, buf, sizeof buf), "a=1");
  /* --threads N becomes lanes=N (net/cf_net_lanes.h) unless the options
   * name lanes or the backend's own threads; 1 adds nothing. */
  CHECK_STR_EQ(options(NULL, 1, buf, sizeof buf), "");
  CHECK_STR_EQ(options(NULL, 4, buf, sizeof buf), "lanes=4");
  CHECK_STR_EQ(options("a=1", 4, buf, sizeof buf), "lanes=4,a=1");
  CHECK_STR_EQ(options("threads=2", 4, buf, sizeof buf), "threads=2");
  CHECK_STR_EQ(options("a=1,threads=2", 4, buf, sizeof buf), "a=1,threads=2");
  CHECK_STR_EQ(options("a=1,lanes=3", 4, buf, sizeof buf), "a=1,lanes=3");
  CHECK_STR_EQ(options("xlanes=3", 4, buf, sizeof buf), "lanes=4,xlanes=3");
  /* A malformed item is refused naming the flag and the item. */
  CHECK_STR_EQ(options("a=1,b", 4, buf, sizeof buf), "!--backend-opts: option 'b' is not key=value");
  char why[128];
  CHECK(cf_cli_check_backend(NULL, "auto", why, sizeof why));
  CHECK(!cf_cli_check_backend(NULL, "all", why, sizeof why));
  CHECK(cf_cli_check_backend(&spec, "all", why, sizeof why));
  CHECK(!cf_cli_check_backend(NULL, "warp", why, sizeof why));
  CHECK_STR_CONTAINS(why, "expected auto, ");
  CHECK_STR_CONTAINS(why, "ref");
  CHECK(cf_cli_check_backend(NULL, "ref", why, sizeof why));
  CHECK(cf_cli_check_backend(NULL, "sim", why, sizeof why)); /* named, not chosen */
  CHECK(!cf_cli_check_backend(NULL, "warp", why, sizeof why));
  CHECK_STR_CONTAINS(why, "sim (for testing)");
}

static void test_built_in_weights(cf_test *t) {
  cf_weights *w = NULL;
  cf_error err = {0};
  CHECK_INT_EQ(cf_cli_load_weights(CF_CLI_WEIGHTS_BUILT_IN, NULL, &w, &err), CF_OK);
  CHECK(w && w->arch.layers > 0);
  cf_weights_free(w);
  w = NULL;
  /* A user's limit is for files: the embedded net loads under any. */
  cf_weights_load_options tiny = CF_CLI_WEIGHTS_LOAD;
  tiny.max_decompressed_bytes = 1;
  CHECK_INT_EQ(cf_cli_load_weights(CF_CLI_WEIGHTS_BUILT_IN, &tiny, &w, &err), CF_OK);
  cf_weights_free(w);
  w = NULL;
  CHECK(cf_cli_load_weights("/nonexistent/net.pb.gz", NULL, &w, &err) != CF_OK);
  CHECK(w == NULL);
  CHECK_STR_CONTAINS(err.msg, "/nonexistent/net.pb.gz");
  /* Only a regular file. */
  CHECK_INT_EQ(cf_cli_load_weights("/dev/null", &tiny, &w, &err), CF_ERR_IO);
  CHECK_STR_CONTAINS(err.msg, "/dev/null: is a character device, not a regular file");
}

/* --weights-max-mb in a table: cf_weights_parse_max_mb into the options,
 * and the parser's wording for a bad value. */
/* cf_cli_parse of sp with the NULL-terminated arguments, captured. */
static int parse_spec(cf_cli_spec *sp, const char *first, ...) {
  const char *args[16] = {"prog"};
  int argc = 1;
  va_list ap;
  va_start(ap, first);
  for (const char *a = first; a && argc < 15; a = va_arg(ap, const char *)) args[argc++] = a;
  va_end(ap);
  args[argc] = NULL;
  return parse_captured(sp, argc, args);
}

static void test_weights_max_mb(cf_test *t) {
  cf_weights_load_options load = CF_CLI_WEIGHTS_LOAD;
  cf_cli_flag flags[] = {CF_CLI_WEIGHTS_MAX_MB_FLAG(&load)};
  cf_cli_spec ws = {.prog = "tool", .usage = "usage: tool\n", .flags = flags, .n_flags = 1};
  CHECK_INT_EQ(parse_spec(&ws, NULL), CF_CLI_CONTINUE);
  CHECK(load.max_decompressed_bytes == 0);
  CHECK_STR_EQ(load.limit_name, "--weights-max-mb");
  CHECK_INT_EQ(parse_spec(&ws, "--weights-max-mb", "5", NULL), CF_CLI_CONTINUE);
  CHECK(load.max_decompressed_bytes == 5ull << 20);
  CHECK_STR_EQ(load.limit_name, "--weights-max-mb");
  CHECK_INT_EQ(parse_spec(&ws, "--weights-max-mb=1048576", "--weights-max-mb=0", NULL), CF_CLI_CONTINUE);
  CHECK(load.max_decompressed_bytes == 0);
  static const char *const bad[] = {"x", "-1", "+2", "-0", "1048577", " 3", "3MB", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char arg[64], want[200];
    snprintf(arg, sizeof arg, "--weights-max-mb=%s", bad[i]);
    CHECK_INT_EQ(parse_spec(&ws, arg, NULL), 2);
    snprintf(want, sizeof want,
             "tool: bad value '%s' for --weights-max-mb: expected a whole number from 0 to 1048576 "
             "(tool --help)\n",
             bad[i]);
    CHECK_STR_EQ(err_text, want);
  }
  CHECK_INT_EQ(parse_spec(&ws, "--weights-max-mb", NULL), 2);
  CHECK_STR_CONTAINS(err_text, "--weights-max-mb needs a value: --weights-max-mb MB");
  CHECK_INT_EQ(parse_spec(&ws, "-h", NULL), 0);
  CHECK_STR_CONTAINS(out_text, "--weights-max-mb MB");
  CHECK_STR_CONTAINS(out_text, "largest network the file may inflate to");
}

/* The one error exit of the tools: "PROG: MESSAGE\n" on stderr, status 1. */
static void test_fail(cf_test *t) {
  if (!err_text) err_text = calloc(TEXT_MAX, 1);
  fflush(stderr);
  char path[] = "/tmp/cf_test_cli_fail_XXXXXX";
  int fd = mkstemp(path), saved = dup(2);
  dup2(fd, 2);
  int rc = cf_cli_fail("tool sub", "cannot read '%s': %d", "x.pgn", 7);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  read_back(fd, err_text, TEXT_MAX);
  close(fd);
  unlink(path);
  CHECK_INT_EQ(rc, CF_CLI_EXIT_FAILURE);
  CHECK_STR_EQ(err_text, "tool sub: cannot read 'x.pgn': 7\n");
}

CF_TEST_MAIN(test_fail, test_value_forms, test_booleans, test_numbers, test_strings_choices_lists, test_errors,
             test_positionals, test_help_and_version, test_backend_options, test_built_in_weights,
             test_weights_max_mb)
