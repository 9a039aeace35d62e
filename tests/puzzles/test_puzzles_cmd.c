/* test_puzzles_cmd.c: `cformer puzzles` end to end on the built-in network
 * (argv[1] is the binary). Mate-in-one puzzles must be solved by the value
 * agent whatever the network says (terminal children are scored exactly);
 * the JSON counts add up; bad arguments and files give clear errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/cf_test.h"

static const char *cformer = "cformer";
static char dir[] = "/tmp/cf_puzzles_cmd_XXXXXX";

/* Runs command with stderr merged; output into buf. Returns the exit status. */
static int run(const char *command, char *buf, size_t cap) {
  char full[4096];
  snprintf(full, sizeof full, "%s 2>&1", command);
  FILE *p = popen(full, "r");
  if (!p) return -1;
  size_t n = fread(buf, 1, cap - 1, p);
  buf[n] = '\0';
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* CHECK_STR_CONTAINS for long outputs: prints the output on failure. */
static void has(cf_test *t, const char *out, const char *needle) {
  char m[256];
  snprintf(m, sizeof m, "output contains \"%s\"", needle);
  if (!cf_test_report(t, strstr(out, needle) != NULL, __FILE__, __LINE__, m))
    fprintf(stderr, "--- output was:\n%s\n---\n", out);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static void test_mates_json(cf_test *t) {
  char csv[512], cmd[2048], out[8192];
  snprintf(csv, sizeof csv, "%s/p.csv", dir);
  write_file(csv,
             "PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl\n"
             "002vV,8/6k1/2R4p/5p1P/5P1K/6P1/8/r7 w - - 2 58,c6b6 a1h1,564,92,100,601,mateIn1,,\n"
             "TWOMT,k7/4p3/1K6/8/8/8/8/6RR b - - 0 1,e7e6 g1g8,1200,80,90,10,mateIn1,,\n"
             "BROKE,not a fen,e7e6 g1g8,1200,80,90,10,mateIn1,,\n");
  snprintf(cmd, sizeof cmd, "%s puzzles --csv %s --agent value --json --quiet", cformer, csv);
  int rc = run(cmd, out, sizeof out);
  CHECK_INT_EQ(rc, 0);
  has(t, out, "\"puzzles\": 2");
  has(t, out, "{\"band\": \"<1000\", \"solved\": 1, \"total\": 1}");
  has(t, out, "{\"band\": \"1000-1499\", \"solved\": 1, \"total\": 1}");
  has(t, out, "BROKE");
  has(t, out, "1 malformed puzzle(s) skipped");
  CHECK(strstr(out, "\"policy\"") == NULL);

  /* the search agent, with a visit budget: solves both, within the budget */
  snprintf(cmd, sizeof cmd, "%s puzzles --csv %s --agent search --nodes 50 --json --quiet", cformer, csv);
  CHECK_INT_EQ(run(cmd, out, sizeof out), 0);
  has(t, out, "\"search\": {\"evals_per_move\": ");
  const char *e = strstr(out, "\"evals_per_move\": ");
  CHECK(e && atof(e + 18) >= 1 && atof(e + 18) <= 50);
  has(t, out, "{\"band\": \"<1000\", \"solved\": 1, \"total\": 1}");

  /* the file's path is a JSON string however it is spelt */
  char odd[512];
  snprintf(odd, sizeof odd, "%s/q\"u\\ote.csv", dir);
  snprintf(cmd, sizeof cmd, "cp %s '%s'", csv, odd);
  if (CHECK(system(cmd) == 0)) {
    snprintf(cmd, sizeof cmd, "%s puzzles --csv '%s' --agent value --json --quiet 2>/dev/null",
             cformer, odd);
    CHECK_INT_EQ(run(cmd, out, sizeof out), 0);
    has(t, out, "{\"csv\": \"");
    has(t, out, "/q\\\"u\\\\ote.csv\", \"puzzles\": 2,");
    unlink(odd);
  }

  /* --limit given twice: the last one counts */
  snprintf(cmd, sizeof cmd, "%s puzzles --csv=%s --limit 2 --limit=1", cformer, csv);
  rc = run(cmd, out, sizeof out);
  CHECK_INT_EQ(rc, 0);
  has(t, out, "policy");
  has(t, out, "value");
  has(t, out, "(1 puzzles)");
  has(t, out, "<built in>");
}

/* Progress on stderr every 100 puzzles: done of all, rate and ETA. */
static void test_progress(cf_test *t) {
  char cmd[2048], out[8192];
  snprintf(cmd, sizeof cmd, "%s puzzles --agent policy --limit 200", cformer);
  CHECK_INT_EQ(run(cmd, out, sizeof out), 0);
  has(t, out, "  100/200 puzzles, ");
  has(t, out, "  200/200 puzzles, ");
  has(t, out, " puzzles/s, ETA 0m00s\n");
  has(t, out, "(200 puzzles)");
}

static void test_errors(cf_test *t) {
  char cmd[2048], out[8192];
  snprintf(cmd, sizeof cmd, "%s puzzles --agent nosuch", cformer);
  CHECK_INT_EQ(run(cmd, out, sizeof out), 2);
  has(t, out, "bad value 'nosuch' for --agent: expected all, ");
  snprintf(cmd, sizeof cmd, "%s puzzles --csv %s/missing.csv", cformer, dir);
  CHECK_INT_EQ(run(cmd, out, sizeof out), 1);
  has(t, out, "cannot open");
  snprintf(cmd, sizeof cmd, "%s puzzles --weights %s/missing.pb.gz", cformer, dir);
  CHECK_INT_EQ(run(cmd, out, sizeof out), 1);
  has(t, out, "missing.pb.gz");
  snprintf(cmd, sizeof cmd, "%s puzzles --weights /dev/null", cformer);
  CHECK_INT_EQ(run(cmd, out, sizeof out), 1);
  has(t, out, "/dev/null: is a character device, not a regular file");
  /* lc0-smolgen-relu2-f32 inflates to ~1.5 MB. */
  snprintf(cmd, sizeof cmd,
           "%s puzzles --weights '%s/parity/lc0-smolgen-relu2-f32.pb.gz' --weights-max-mb 1",
           cformer, cf_test_data_dir());
  CHECK_INT_EQ(run(cmd, out, sizeof out), 1);
  has(t, out, "(as set); raise the limit with --weights-max-mb to load it");
  snprintf(cmd, sizeof cmd, "%s puzzles --weights-max-mb -1", cformer);
  CHECK_INT_EQ(run(cmd, out, sizeof out), 2);
  has(t, out, "bad value '-1' for --weights-max-mb: expected a whole number from 0 to 1048576");
  snprintf(cmd, sizeof cmd, "%s puzzles --limit -3", cformer);
  CHECK_INT_EQ(run(cmd, out, sizeof out), 2);
  has(t, out, "--limit");
  snprintf(cmd, sizeof cmd, "%s puzzles --nodes 0", cformer);
  CHECK_INT_EQ(run(cmd, out, sizeof out), 2);
  has(t, out, "--nodes");
  snprintf(cmd, sizeof cmd, "%s puzzles --bogus 1", cformer);
  CHECK_INT_EQ(run(cmd, out, sizeof out), 2);
  has(t, out, "unknown flag '--bogus'");
  snprintf(cmd, sizeof cmd, "%s puzzles --help", cformer);
  CHECK_INT_EQ(run(cmd, out, sizeof out), 0);
  has(t, out, "rating band");
  has(t, out, "-w, --weights NET"); /* the short flags are documented */
  snprintf(cmd, sizeof cmd, "%s puzzles --limit=0", cformer);
  CHECK_INT_EQ(run(cmd, out, sizeof out), 2);
  has(t, out, "bad value '0' for --limit: expected a whole number, at least 1");
}

static void cleanup(void) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

#define main test_main
CF_TEST_MAIN(test_mates_json, test_errors, test_progress)
#undef main

int main(int argc, char **argv) {
  if (argc > 1) cformer = argv[1];
  if (!mkdtemp(dir)) return 1;
  int rc = test_main(1, argv);
  cleanup();
  return rc;
}
