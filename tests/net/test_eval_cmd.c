/* test_eval_cmd.c: `cformer eval` end to end. Runs the binary (argv[1]) on
 * parity case files, reads its output lines back with the case reader (the
 * same schema) and compares them with the truth as the parity README says:
 * transform, planes, legal moves and policy indices exactly, every number
 * within 1e-4. Also: standard input, a bad line giving an error line, and
 * weights that are not a regular file or inflate past --weights-max-mb. */
#include <cjson/cJSON.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/cf_test.h"
#include "tests/net/cf_parity.h"
#include "tests/net/cf_parity_check.h"

static const char *cformer = "cformer";

static void near(cf_test *t, const char *id, const char *what, double got, double want) {
  char m[256];
  snprintf(m, sizeof m, "%s %s: got %.9g, expected %.9g", id, what, got, want);
  cf_test_report(t, fabs(got - want) <= CF_PARITY_TOL, __FILE__, __LINE__, m);
}

static void compare(cf_test *t, const cf_parity_case *got, const cf_parity_case *want) {
  const char *id = want->id;
  CHECK_STR_EQ(got->id, want->id);
  CHECK_INT_EQ(got->input_format, want->input_format);
  CHECK_INT_EQ(got->transform, want->transform);
  int planes = 0;
  for (int j = 0; j < CF_PLANE_COUNT; j++)
    planes += got->planes.mask[j] == want->planes.mask[j] &&
              fabsf(got->planes.value[j] - want->planes.value[j]) <= CF_PARITY_TOL;
  CHECK_INT_EQ(planes, CF_PLANE_COUNT);
  for (int i = 0; i < 3; i++) near(t, id, "wdl", got->wdl[i], want->wdl[i]);
  near(t, id, "q", got->q, want->q);
  CHECK(got->has_moves_left == want->has_moves_left);
  if (want->has_moves_left) near(t, id, "moves_left", got->moves_left, want->moves_left);
  for (int h = 0; h < CF_VALUE_HEAD_COUNT; h++) {
    const cf_parity_value *g = &got->value[h], *w = &want->value[h];
    CHECK(g->present == w->present);
    if (!w->present || !g->present) continue;
    near(t, id, "value head q", g->q, w->q);
    CHECK(g->has_err == w->has_err);
    if (w->has_err) near(t, id, "value head err", g->err, w->err);
    CHECK_INT_EQ(g->n_cat, w->n_cat);
    for (int k = 0; k < w->n_cat && k < g->n_cat; k++)
      near(t, id, "cat_logits", g->cat[k], w->cat[k]);
  }
  CHECK_INT_EQ(got->policy_heads, want->policy_heads);
  CHECK_INT_EQ(got->n_legal, want->n_legal);
  for (int i = 0; i < want->n_legal; i++) {
    const cf_parity_move *w = &want->legal[i];
    int k = cf_parity_find_move(got, w->uci);
    if (!CHECK(k >= 0)) continue;
    CHECK_INT_EQ(got->legal[k].index, w->index);
    for (int h = 0; h < CF_POLICY_HEAD_COUNT; h++)
      if (want->policy_heads >> h & 1) near(t, id, w->uci, got->legal[k].logit[h], w->logit[h]);
  }
}

/* Runs command, parses every output line; returns the exit status. */
static int run(const char *command, cf_parity_case **out, int *n) {
  FILE *p = popen(command, "r");
  *out = NULL;
  *n = 0;
  if (!p) return -1;
  char *line = NULL, msg[256];
  size_t cap = 0;
  cf_parity_case *cases = calloc(64, sizeof *cases);
  while (getline(&line, &cap, p) > 0 && *n < 64) {
    if (!cf_parity_parse_line(line, &cases[*n], msg, sizeof msg)) {
      /* an error line: keep its id only */
      memset(&cases[*n], 0, sizeof cases[*n]);
      snprintf(cases[*n].id, sizeof cases[*n].id, "%s", strstr(line, "\"error\"") ? "error" : "?");
    }
    (*n)++;
  }
  free(line);
  *out = cases;
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void check_net(cf_test *t, const char *net, const char *how) {
  char msg[512], cmd[4096];
  cf_parity_case *want, *got;
  int n_want, n_got;
  if (!CHECK(cf_parity_load(cf_parity_dir(), net, &want, &n_want, msg, sizeof msg))) return;
  const char *dir = cf_parity_dir();
  if (strcmp(how, "stdin") == 0)
    snprintf(cmd, sizeof cmd,
             "'%s' eval --weights '%s/%s.pb.gz' --backend ref --batch 1 < '%s/%s.jsonl'", cformer,
             dir, net, dir, net);
  else
    snprintf(cmd, sizeof cmd, "'%s' eval --weights '%s/%s.pb.gz' --cases '%s/%s.jsonl' --batch 7",
             cformer, dir, net, dir, net);
  CHECK_INT_EQ(run(cmd, &got, &n_got), 0);
  CHECK_INT_EQ(n_got, n_want);
  for (int i = 0; i < n_want && i < n_got; i++) compare(t, &got[i], &want[i]);
  free(want);
  free(got);
}

static void test_eval_cases_file(cf_test *t) {
  check_net(t, "cf-rpe-rms", "cases");
  check_net(t, "lc0-smolgen-relu2", "cases");
}

static void test_eval_stdin(cf_test *t) { check_net(t, "cf-rpe-ln-canonical", "stdin"); }

static void test_eval_bad_lines(cf_test *t) {
  char cmd[4096];
  snprintf(
      cmd, sizeof cmd,
      "printf '%%s\\n' '{\"id\":\"ok\",\"moves\":[\"e2e4\"]}' 'not json' "
      "'{\"id\":\"bad\",\"moves\":[\"e2e5\"]}' | '%s' eval --weights '%s/lc0-map-classic.pb.gz'",
      cformer, cf_parity_dir());
  cf_parity_case *got;
  int n;
  CHECK_INT_EQ(run(cmd, &got, &n), 1);
  CHECK_INT_EQ(n, 3);
  if (n == 3) {
    CHECK_STR_EQ(got[0].id, "ok");
    CHECK_INT_EQ(got[0].n_legal, 20);
    CHECK_STR_EQ(got[1].id, "error");
    CHECK_STR_EQ(got[2].id, "error");
  }
  free(got);
  /* a network that cannot be read is a failure (1), not a usage error */
  snprintf(cmd, sizeof cmd, "'%s' eval --weights /no/such/net.pb.gz < /dev/null 2>/dev/null",
           cformer);
  CHECK_INT_EQ(run(cmd, &got, &n), 1);
  free(got);
  snprintf(cmd, sizeof cmd, "'%s' eval --batch 0 2>/dev/null", cformer);
  CHECK_INT_EQ(run(cmd, &got, &n), 2);
  free(got);
}

/* Runs a shell command line; stdout + stderr into out. Returns the exit
 * status, -1 if it did not exit. */
static int shell(const char *line, char *out, size_t size) {
  FILE *p = popen(line, "r");
  if (!p) return -1;
  size_t n = fread(out, 1, size - 1, p);
  out[n] = 0;
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Weights that are not a regular file are refused at once (`timeout`
 * makes a hang exit 124, a failure), /dev/stdin among them without eating
 * the cases: a file failure, exit status 1; --weights-max-mb decides and is
 * named; a bad value of it is a usage error (2), in the parser's words. */
static void test_eval_hostile_weights(cf_test *t) {
  enum { OUT_SIZE = 8192 };
  char dir[] = "/tmp/cf_test_eval_XXXXXX", cmd[4096];
  char *out = malloc(OUT_SIZE); /* heap: its size is no business of the checks */
  if (!CHECK(out && mkdtemp(dir))) {
    free(out);
    return;
  }
  char fifo[256];
  snprintf(fifo, sizeof fifo, "%s/net.pb.gz", dir);
  snprintf(cmd, sizeof cmd, "mkfifo '%s'", fifo);
  if (CHECK(system(cmd) == 0)) {
    snprintf(cmd, sizeof cmd, "timeout 20 '%s' eval --weights '%s' < /dev/null 2>&1", cformer, fifo);
    CHECK_INT_EQ(shell(cmd, out, OUT_SIZE), 1);
    CHECK_STR_CONTAINS(out, "net.pb.gz: is a FIFO, not a regular file");
  }
  snprintf(cmd, sizeof cmd, "echo '{}' | timeout 20 '%s' eval --weights /dev/stdin 2>&1", cformer);
  CHECK_INT_EQ(shell(cmd, out, OUT_SIZE), 1);
  CHECK_STR_CONTAINS(out, "/dev/stdin: is a FIFO, not a regular file");
  /* lc0-smolgen-relu2-f32 inflates to ~1.5 MB. */
  snprintf(cmd, sizeof cmd,
           "echo '{}' | '%s' eval --weights '%s/lc0-smolgen-relu2-f32.pb.gz' --weights-max-mb 1 2>&1",
           cformer, cf_parity_dir());
  CHECK_INT_EQ(shell(cmd, out, OUT_SIZE), 1);
  CHECK_STR_CONTAINS(out, "exceeds the limit of 1048576 bytes (as set); raise the limit with "
                          "--weights-max-mb to load it");
  snprintf(cmd, sizeof cmd,
           "echo '{}' | '%s' eval --weights '%s/lc0-smolgen-relu2-f32.pb.gz' --weights-max-mb 2 2>&1",
           cformer, cf_parity_dir());
  CHECK_INT_EQ(shell(cmd, out, OUT_SIZE), 0);
  CHECK_STR_CONTAINS(out, "\"policy\"");
  static const char *const bad[] = {"lots", "-1", "+2", "1048577", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, "'%s' eval --weights '<built in>' --weights-max-mb='%s' < /dev/null 2>&1",
             cformer, bad[i]);
    CHECK_INT_EQ(shell(cmd, out, OUT_SIZE), 2);
    char want[160];
    snprintf(want, sizeof want,
             "cformer eval: bad value '%s' for --weights-max-mb: expected a whole number from 0 to "
             "1048576 (cformer eval --help)\n",
             bad[i]);
    CHECK_STR_EQ(out, want);
  }
  unlink(fifo);
  rmdir(dir);
  free(out);
}

/* --weights '<built in>' (the embedded net) and --flag=value, as in every tool. */
static void test_eval_built_in(cf_test *t) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "printf '%%s\\n' '{\"id\":\"a\",\"moves\":[\"e2e4\"]}' | '%s' eval "
           "--weights='<built in>' --batch=2 -t 1",
           cformer);
  cf_parity_case *got;
  int n;
  CHECK_INT_EQ(run(cmd, &got, &n), 0);
  CHECK_INT_EQ(n, 1);
  if (n == 1) CHECK_INT_EQ(got[0].n_legal, 20);
  free(got);
}

/* --backend-opts is parsed once: an unknown key is one error naming the
 * backend and the keys it reads, a malformed item or an out-of-range value
 * one naming the item; each a bad argument (exit status 2). */
static void test_eval_backend_opts(cf_test *t) {
  enum { OUT_SIZE = 4096 };
  char cmd[4096], *out = malloc(OUT_SIZE);
  if (!CHECK(out)) return;
  static const char *const opts[] = {"threads=1,foo=1", "threads=1,foo", "lanes=0",
                                     "precision=fp16"};
  static const char *const want[] = {
      ("cformer eval: backend 'ref': unknown option 'foo=1' (it reads: batch_size, lanes, "
       "policy_head, value_head, precision, f32_roles, fault_alloc, fault_op, threads, "
       "fail_after, create_delay_ms)\n"),
      "cformer eval: --backend-opts: option 'foo' is not key=value\n",
      "cformer eval: option 'lanes=0' is not an integer in [1, 64]\n",
      ("cformer eval: backend 'ref': option 'precision=fp16': unknown value (known: f32, bf16, "
       "int8, auto)\n")};
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
    snprintf(cmd, sizeof cmd,
             "'%s' eval --weights '<built in>' --backend ref --backend-opts '%s' < /dev/null 2>&1",
             cformer, opts[i]);
    CHECK_INT_EQ(shell(cmd, out, OUT_SIZE), 2);
    CHECK_STR_EQ(out, want[i]);
  }
  free(out);
}

/* Reads one line from fd into out within seconds; false on timeout, end
 * of output or error. */
static bool read_line_within(int fd, char *out, size_t size, int seconds) {
  size_t at = 0;
  out[0] = 0;
  while (at + 1 < size) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, seconds * 1000) <= 0) return false;
    char ch;
    if (read(fd, &ch, 1) != 1) return false;
    if (ch == '\n') return true;
    out[at++] = ch;
    out[at] = 0;
  }
  return false;
}

/* One answer per line, as soon as it is computed: with standard input
 * kept open, the answer to a line comes before the next line is written
 * (the old eval read to the end of input first: this timed out). */
static void test_eval_streams(cf_test *t) {
  int to_child[2], from_child[2];
  if (!CHECK(pipe(to_child) == 0 && pipe(from_child) == 0)) return;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(to_child[0], 0);
    dup2(from_child[1], 1);
    close(to_child[0]);
    close(to_child[1]);
    close(from_child[0]);
    close(from_child[1]);
    execl(cformer, cformer, "eval", "--weights", "<built in>", "--batch", "4", (char *)NULL);
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  signal(SIGPIPE, SIG_IGN);
  static char line[1 << 16];
  static const char *const inputs[] = {"{\"id\":\"s1\"}\n", "\n", "not json\n",
                                       "{\"id\":\"s3\",\"moves\":[\"e2e4\"]}\n"};
  static const char *const wants[] = {"{\"id\":\"s1\",", NULL, "{\"error\":\"line 3 is not",
                                      "{\"id\":\"s3\","};
  for (int i = 0; i < 4; i++) {
    CHECK(write(to_child[1], inputs[i], strlen(inputs[i])) == (ssize_t)strlen(inputs[i]));
    if (!wants[i]) continue; /* a blank line has no answer */
    bool got = read_line_within(from_child[0], line, sizeof line, 60);
    if (!got) printf("  no answer to line %d within 60 s while input stays open\n", i + 1);
    CHECK(got);
    if (got) CHECK(strncmp(line, wants[i], strlen(wants[i])) == 0);
  }
  close(to_child[1]); /* end of input: the tool finishes */
  CHECK(!read_line_within(from_child[0], line, sizeof line, 60));
  close(from_child[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1); /* a line failed */
}

/* Runs cformer eval on one start-position line with extra flags; the
 * parsed answer (NULL if none). */
static cJSON *eval_one(const char *flags) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "echo '{\"id\":\"x\",\"moves\":[\"d2d4\"]}' | '%s' eval "
           "--weights '%s/lc0-smolgen-relu2.pb.gz' %s", cformer, cf_parity_dir(), flags);
  FILE *p = popen(cmd, "r");
  if (!p) return NULL;
  static char text[1 << 18];
  size_t n = fread(text, 1, sizeof text - 1, p);
  text[n] = 0;
  pclose(p);
  return cJSON_Parse(text);
}

/* --no-planes leaves the planes out; --policy softmax gives probabilities
 * that sum to 1 and are softmax(logit / T) of the logits --policy logits
 * gives, for every policy head; a temperature without softmax is a usage
 * error. */
static void test_eval_output_options(cf_test *t) {
  cJSON *plain = eval_one(""), *bare = eval_one("--no-planes");
  CHECK(cJSON_GetObjectItem(plain, "planes") != NULL);
  CHECK(plain && cJSON_GetObjectItem(plain, "policy_softmax_temp") == NULL);
  CHECK(bare && cJSON_GetObjectItem(bare, "planes") == NULL);
  CHECK(cJSON_GetObjectItem(bare, "wdl") != NULL);
  static const double temps[] = {1.0, 2.5};
  for (int k = 0; k < 2; k++) {
    char flags[96];
    snprintf(flags, sizeof flags, k == 0 ? "--policy softmax --no-planes"
                                         : "--policy=softmax --policy-softmax-temp %g", temps[k]);
    cJSON *soft = eval_one(flags);
    const cJSON *t_item = cJSON_GetObjectItem(soft, "policy_softmax_temp");
    CHECK(cJSON_IsNumber(t_item) && fabs(t_item->valuedouble - temps[k]) < 1e-12);
    const cJSON *heads = cJSON_GetObjectItem(soft, "policy"), *lheads = cJSON_GetObjectItem(plain, "policy");
    int n_heads = 0;
    const cJSON *head;
    cJSON_ArrayForEach(head, heads) {
      const cJSON *logits = cJSON_GetObjectItem(lheads, head->string);
      if (!CHECK(logits != NULL)) continue;
      n_heads++;
      double sum = 0, lsum = 0, top = -INFINITY;
      const cJSON *m;
      cJSON_ArrayForEach(m, logits) if (m->valuedouble > top) top = m->valuedouble;
      cJSON_ArrayForEach(m, logits) lsum += exp((m->valuedouble - top) / temps[k]);
      int n = 0, off = 0;
      cJSON_ArrayForEach(m, head) {
        sum += m->valuedouble;
        const cJSON *l = cJSON_GetObjectItem(logits, m->string);
        double want = l ? exp((l->valuedouble - top) / temps[k]) / lsum : -1;
        off += fabs(m->valuedouble - want) > 1e-6;
        n++;
      }
      CHECK_INT_EQ(n, cJSON_GetArraySize(logits));
      CHECK_INT_EQ(off, 0);
      CHECK(fabs(sum - 1) < 1e-6);
    }
    CHECK(n_heads >= 1);
    cJSON_Delete(soft);
  }
  cJSON_Delete(plain);
  cJSON_Delete(bare);
  char cmd[512], out[512];
  snprintf(cmd, sizeof cmd, "'%s' eval -w '<built in>' --policy-softmax-temp 2 < /dev/null 2>&1",
           cformer);
  CHECK_INT_EQ(shell(cmd, out, sizeof out), 2);
  CHECK_STR_EQ(out, "cformer eval: --policy-softmax-temp needs --policy softmax (cformer eval "
                    "--help)\n");
  snprintf(cmd, sizeof cmd, "'%s' eval -w '<built in>' --policy probs < /dev/null 2>&1", cformer);
  CHECK_INT_EQ(shell(cmd, out, sizeof out), 2);
}

int main(int argc, char **argv) {
  if (argc > 1) cformer = argv[1];
  static const cf_test_fn fns[] = {test_eval_cases_file, test_eval_stdin, test_eval_bad_lines,
                                   test_eval_hostile_weights, test_eval_built_in,
                                   test_eval_streams, test_eval_output_options,
                                   test_eval_backend_opts};
  static const char *names[] = {"test_eval_cases_file", "test_eval_stdin", "test_eval_bad_lines",
                                "test_eval_hostile_weights", "test_eval_built_in",
                                "test_eval_streams", "test_eval_output_options",
                                "test_eval_backend_opts"};
  return cf_test_run(names, fns, 8, 1, argv);
}
