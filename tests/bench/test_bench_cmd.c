/* test_bench_cmd.c: `cformer bench` end to end (the binary is argv[1]) on
 * tiny nets: the JSON against the schema of docs/BENCH.md (the three
 * agents, the search agent's figures sane), the presets' cost against the
 * paper, --cost-only building nothing, the signature stable from run to
 * run, the chart well-formed, --backend-opts reaching the backend, bad
 * arguments answered with a clear message and exit status 2. */
#define _DEFAULT_SOURCE 1 /* wait4 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <expat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/cf_backend.h"
#include "engine/search/cf_search.h"
#include "tests/cf_test.h"

static const char *cformer = "cformer";

/* Runs `cformer bench ARGS` (stderr into stdout when merge), returns the
 * exit status and its output (caller frees). */
static int run(const char *args, bool merge, char **out) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "\"%s\" bench %s%s", cformer, args, merge ? " 2>&1" : " 2>/dev/null");
  FILE *p = popen(cmd, "r");
  *out = NULL;
  if (!p) return -1;
  size_t len = 0, cap = 4096;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
    len += got;
    if (cap - len < 2) {
      char *g = realloc(buf, cap * 2);
      if (!g) break;
      buf = g;
      cap *= 2;
    }
  }
  if (buf) buf[len] = '\0';
  *out = buf;
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static double num(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

static bool is_hex16(const char *s) {
  if (strlen(s) != 16) return false;
  for (; *s; s++)
    if (!strchr("0123456789abcdef", *s)) return false;
  return true;
}

static bool stats_ok(const cJSON *s) {
  double med = num(s, "median"), lo = num(s, "p10"), hi = num(s, "p90");
  return num(s, "n") >= 1 && num(s, "min") <= lo && lo <= med && med <= hi &&
         hi <= num(s, "max") && num(s, "min") >= 0 && !isnan(num(s, "mean"));
}

/* The search agent at 24 visits per move in batches of up to 4: 4 is not
 * among --batches, so the sweep gains it. */
#define TINY                                                                                 \
  "--arch 1x32 --positions 12 --batches 1,3 --min-time 0 --min-calls 2 --no-sgemm "         \
  "--search-nodes 24 --minibatch 4"

/* The search agent's own object: visits per move as asked (fewer only in
 * moves whose root was proven), rates, hit rate, batch sizes and the
 * efficiency against the same run's sweep (positive; its size is a timing). */
static void check_search(cf_test *t, const cJSON *agent, const cJSON *batches, int positions,
                         int visits, int minibatch) {
  const cJSON *s = cJSON_GetObjectItem(agent, "search");
  if (!CHECK(cJSON_IsObject(s))) return;
  CHECK(num(s, "visits_target") == visits);
  CHECK(num(s, "minibatch") == minibatch);
  CHECK(cJSON_IsFalse(cJSON_GetObjectItem(s, "smart_pruning")));
  /* every move makes exactly `visits` visits, but for the puzzles whose
   * root the search proves (a mate found) before that: those are counted */
  double solved = num(s, "solved");
  CHECK(solved >= 0 && solved <= positions);
  CHECK(num(s, "visits_max") == visits || (solved == positions && num(s, "visits_max") < visits));
  CHECK(num(s, "visits_min") >= 1 && num(s, "visits_min") <= visits);
  CHECK((num(s, "visits_min") == visits) == (solved == 0));
  CHECK(num(s, "visits") >= visits * (positions - solved) + solved &&
        num(s, "visits") <= visits * (positions - solved) + (visits - 1) * solved);
  CHECK(num(s, "visits_per_second") > 0);
  double evals = num(agent, "evals"), hits = num(s, "cache_hits");
  CHECK(evals >= positions && evals <= num(s, "visits"));
  CHECK(hits >= 0);
  double rate = num(s, "cache_hit_rate");
  CHECK(rate >= 0 && rate <= 1);
  CHECK_NEAR(rate, hits / (evals + hits), 1e-9);
  double mean = num(s, "mean_batch");
  CHECK(mean >= 1 && mean <= minibatch);
  CHECK_NEAR(mean, evals / num(s, "batches"), 1e-9);
  CHECK(num(s, "collisions") >= 0);
  CHECK(num(s, "tree_bytes_per_visit") > 0 && num(s, "nodes_per_visit") > 0);
  /* the search's own CPU time: positive, per visit as documented, and with
   * the network calls' share on the same thread within the moves' wall
   * time (one thread's CPU time cannot outrun the clock; 1 ms for the two
   * clocks' reading) */
  const double search_cpu = num(s, "search_cpu_seconds"), net_cpu = num(s, "net_call_cpu_seconds");
  CHECK(search_cpu > 0 && net_cpu >= 0);
  CHECK_NEAR(num(s, "search_cpu_per_visit"), search_cpu / num(s, "visits"), 1e-12);
  const cJSON *move_s = cJSON_GetObjectItem(agent, "seconds_per_move");
  CHECK(search_cpu + net_cpu <= num(move_s, "mean") * positions + 1e-3);
  /* the reference is a swept batch size, the nearest to the mean batch */
  double ref = num(s, "reference_batch"), best = INFINITY, at_minibatch = NAN;
  const cJSON *b;
  cJSON_ArrayForEach(b, batches) {
    best = fmin(best, fabs(num(b, "batch") - mean));
    /* plain rates as the search's: batch / mean call time */
    double mean_rate = num(b, "batch") / num(cJSON_GetObjectItem(b, "seconds_per_call"), "mean");
    if (num(b, "batch") == ref)
      CHECK_NEAR(num(s, "reference_evals_per_second"), mean_rate, 1e-6 * mean_rate);
    if (num(b, "batch") == minibatch) at_minibatch = mean_rate;
  }
  CHECK(fabs(ref - mean) == best);
  /* efficiencies are ratios of two timings on a shared machine: only their sign and their
     definition are facts a test can hold (a sanitized build has seen 1.5 and more) */
  double eff = num(s, "efficiency");
  CHECK(eff > 0 && isfinite(eff));
  CHECK_NEAR(eff, num(agent, "evals_per_second") / num(s, "reference_evals_per_second"), 1e-6);
  CHECK(!isnan(at_minibatch)); /* the sweep always holds the minibatch size */
  CHECK_NEAR(num(s, "minibatch_evals_per_second"), at_minibatch, 1e-6 * at_minibatch);
  double eff_mb = num(s, "efficiency_at_minibatch");
  CHECK(eff_mb > 0 && isfinite(eff_mb));
}

static void test_json_schema(cf_test *t) {
  char *out;
  CHECK_INT_EQ(run(TINY " --json --quiet", false, &out), 0);
  cJSON *j = cJSON_Parse(out);
  if (!CHECK(j != NULL)) {
    printf("  output: %.300s\n", out ? out : "(none)");
    free(out);
    return;
  }
  CHECK_STR_EQ(str(j, "schema"), "cformer-bench");
  CHECK(num(j, "schema_version") == 2);
  CHECK(cJSON_IsFalse(cJSON_GetObjectItem(j, "cost_only")));
  CHECK(num(j, "paper_macs") > 0 && num(j, "full_flops") > 2 * num(j, "paper_macs"));
  const cJSON *net = cJSON_GetObjectItem(j, "net");
  CHECK(num(net, "layers") == 1 && num(net, "d_model") == 32 && num(net, "heads") == 1 &&
        num(net, "dff") == 32);
  CHECK(num(net, "params") > 0);
  CHECK_STR_EQ(str(net, "source"), "1x32");
  CHECK(num(cJSON_GetObjectItem(j, "suite"), "positions") == 12);
  CHECK(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "sgemm"), "measured")));
  /* --no-sgemm skips the bf16 and int8 peaks too, and says so */
  const cJSON *peaks = cJSON_GetObjectItem(j, "matmul_peaks");
  for (int i = 0; i < 2; i++) {
    const cJSON *p = cJSON_GetObjectItem(peaks, i ? "int8" : "bf16");
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(p, "measured")));
    CHECK_STR_EQ(str(p, "note"), "not measured (--no-sgemm)");
    CHECK(cJSON_GetObjectItem(p, "gflops_1_thread") == NULL);
  }
  const cJSON *yard = cJSON_GetObjectItem(j, "yardstick");
  CHECK_STR_EQ(str(yard, "precision"), "f32");
  CHECK(cJSON_IsNull(cJSON_GetObjectItem(yard, "gflops_1_thread")));
  CHECK(is_hex16(str(j, "signature")));
  CHECK(num(cJSON_GetObjectItem(j, "machine"), "cpus") >= 1);
  const cJSON *backends = cJSON_GetObjectItem(j, "backends");
  CHECK_INT_EQ(cJSON_GetArraySize(backends), 1);
  const cJSON *b = cJSON_GetArrayItem(backends, 0);
  CHECK_STR_EQ(str(b, "signature"), str(j, "signature"));
  const cJSON *agents = cJSON_GetObjectItem(b, "agents");
  const cJSON *batches = cJSON_GetObjectItem(b, "batches");
  /* the default: every agent, in registry order */
  CHECK_INT_EQ(cJSON_GetArraySize(agents), 3);
  const char *names[] = {"policy", "value", "search"};
  for (int i = 0; i < 3; i++) CHECK_STR_EQ(str(cJSON_GetArrayItem(agents, i), "agent"), names[i]);
  const cJSON *a;
  cJSON_ArrayForEach(a, agents) {
    bool policy = strcmp(str(a, "agent"), "policy") == 0;
    bool search = strcmp(str(a, "agent"), "search") == 0;
    CHECK(policy || search || strcmp(str(a, "agent"), "value") == 0);
    CHECK(num(a, "positions") == 12);
    double per_move = num(a, "evals") / 12;
    CHECK_NEAR(num(a, "evals_per_move"), per_move, 1e-9);
    /* the policy agent evaluates once; the value agent the root and each
     * non-terminal child: more than one, at most 1 + 218 */
    if (policy) CHECK(num(a, "evals_min") == 1 && num(a, "evals_max") == 1);
    if (!policy && !search)
      CHECK(num(a, "evals_min") >= 2 && num(a, "evals_max") <= 219 && per_move > 2);
    /* the search: at most one evaluation per visit, the root's included */
    if (search) {
      CHECK(num(a, "evals_min") >= 1 && num(a, "evals_max") <= 24);
      check_search(t, a, batches, 12, 24, 4);
    } else {
      CHECK(cJSON_GetObjectItem(a, "search") == NULL);
    }
    CHECK_NEAR(num(a, "flops_per_move"), per_move * num(j, "full_flops"), 1);
    CHECK_NEAR(num(a, "paper_flops_per_move"), per_move * num(j, "paper_macs"), 1);
    CHECK(stats_ok(cJSON_GetObjectItem(a, "seconds_per_move")));
    CHECK(num(cJSON_GetObjectItem(a, "seconds_per_move"), "n") == 12);
    CHECK(num(a, "evals_per_second") > 0);
    CHECK(is_hex16(str(a, "signature")));
  }
  /* --batches 1,3 and then the search's minibatch size 4 */
  CHECK_INT_EQ(cJSON_GetArraySize(batches), 3);
  CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "backend_options")));
  const cJSON *bt;
  int want[] = {1, 3, 4}, k = 0;
  cJSON_ArrayForEach(bt, batches) {
    CHECK(num(bt, "batch") == want[k++ % 3]);
    const cJSON *s = cJSON_GetObjectItem(bt, "seconds_per_call");
    CHECK(stats_ok(s) && num(s, "n") >= 2);
    CHECK_NEAR(num(bt, "evals_per_second"), num(bt, "batch") / num(s, "median"), 1e-6);
    CHECK_NEAR(num(bt, "gflops"), num(bt, "evals_per_second") * num(j, "full_flops") / 1e9,
               1e-6);
  }

  /* the same run again: the same signature (it is over quantised outputs) */
  char *again;
  CHECK_INT_EQ(run(TINY " --json --quiet", false, &again), 0);
  cJSON *k2 = cJSON_Parse(again);
  CHECK(k2 && strcmp(str(k2, "signature"), str(j, "signature")) == 0);
  /* another seed is another net: another signature */
  char *other;
  CHECK_INT_EQ(run(TINY " --seed 2 --json --quiet", false, &other), 0);
  cJSON *k3 = cJSON_Parse(other);
  CHECK(k3 && strcmp(str(k3, "signature"), str(j, "signature")) != 0);
  cJSON_Delete(k2);
  cJSON_Delete(k3);
  free(again);
  free(other);
  cJSON_Delete(j);
  free(out);
}

/* The search agent alone with its defaults: 200 visits per move, the
 * backend's MinibatchSize, which the sweep gains; no other agent, so only
 * its moves make the signature. (Of the first 6 suite positions the tiny
 * net's search proves some early, not all.) */
static void test_search_defaults(cf_test *t) {
  char *out;
  CHECK_INT_EQ(run("--arch 1x32 --positions 6 --batches 1 --min-time 0 --min-calls 1 --no-sgemm "
                   "--agents search --json --quiet",
                   false, &out),
               0);
  cJSON *j = cJSON_Parse(out);
  const cJSON *b = j ? cJSON_GetArrayItem(cJSON_GetObjectItem(j, "backends"), 0) : NULL;
  const cJSON *agents = cJSON_GetObjectItem(b, "agents"), *batches = cJSON_GetObjectItem(b, "batches");
  if (CHECK(j && cJSON_GetArraySize(agents) == 1)) {
    const cJSON *a = cJSON_GetArrayItem(agents, 0);
    int minibatch = cf_search_default_minibatch(str(b, "name"));
    CHECK_STR_EQ(str(a, "agent"), "search");
    check_search(t, a, batches, 6, 200, minibatch);
    CHECK_INT_EQ(cJSON_GetArraySize(batches), minibatch == 1 ? 1 : 2);
    CHECK(num(cJSON_GetArrayItem(batches, 1), "batch") == minibatch);
    CHECK_STR_EQ(str(a, "signature"), str(b, "signature"));
  }
  cJSON_Delete(j);
  free(out);
  /* --minibatch already among --batches: not added twice */
  CHECK_INT_EQ(run("--arch 1x32 --positions 2 --batches 1,8 --min-time 0 --min-calls 1 "
                   "--no-sgemm --agents search --search-nodes 16 --minibatch 8 --json --quiet",
                   false, &out),
               0);
  j = cJSON_Parse(out);
  b = j ? cJSON_GetArrayItem(cJSON_GetObjectItem(j, "backends"), 0) : NULL;
  CHECK(j && cJSON_GetArraySize(cJSON_GetObjectItem(b, "batches")) == 2);
  if (j) check_search(t, cJSON_GetArrayItem(cJSON_GetObjectItem(b, "agents"), 0),
                      cJSON_GetObjectItem(b, "batches"), 2, 16, 8);
  cJSON_Delete(j);
  free(out);
}

/* --backend-opts reaches the backend: recorded in the report, and a key
 * the backend refuses is an error naming it, not a silently skipped run. */
static void test_backend_opts(cf_test *t) {
  char *out;
  CHECK_INT_EQ(run("--arch 1x32 --positions 2 --batches 1 --min-time 0 --min-calls 1 --no-sgemm "
                   "--agents policy --backend-opts threads=1 --json --quiet",
                   false, &out),
               0);
  cJSON *j = cJSON_Parse(out);
  CHECK(j && strcmp(str(j, "backend_options"), "threads=1") == 0);
  cJSON_Delete(j);
  free(out);
  CHECK_INT_EQ(run("--arch 1x32 --positions 2 --batches 1 --min-time 0 --min-calls 1 --no-sgemm "
                   "--agents policy --backend-opts threads=1",
                   false, &out),
               0);
  CHECK_STR_CONTAINS(out, "backends   options threads=1");
  free(out);
  CHECK_INT_EQ(run("--arch 1x32 --positions 2 --no-sgemm --backend-opts nosuch=1", true, &out), 2);
  CHECK_STR_CONTAINS(out, "nosuch");
  free(out);
  /* --threads N is lanes=N in front of --backend-opts, unless they set lanes or threads */
  CHECK_INT_EQ(run("--arch=1x32 --positions=2 --batches=1 --min-time=0 --min-calls=1 --no-sgemm "
                   "--agents=policy --threads=2 --backend-opts=batch_size=4 --json --quiet",
                   false, &out),
               0);
  j = cJSON_Parse(out);
  CHECK(j && strcmp(str(j, "backend_options"), "lanes=2,batch_size=4") == 0);
  cJSON_Delete(j);
  free(out);
  CHECK_INT_EQ(run("--arch 1x32 --positions 2 --batches 1 --min-time 0 --min-calls 1 --no-sgemm "
                   "--agents policy -t 2 -o threads=1 --json --quiet",
                   false, &out),
               0);
  j = cJSON_Parse(out);
  CHECK(j && strcmp(str(j, "backend_options"), "threads=1") == 0);
  cJSON_Delete(j);
  free(out);
}

/* The report names the kernel set the default backend ran, when it has
 * kernel sets (the CPU backends): forced to portable, which every CPU
 * runs, the table and the JSON say so. */
static void test_kernel_set_named(cf_test *t) {
  const cf_backend_desc *d = cf_backend_default();
  if (!CHECK(d != NULL)) return;
  if (!d->iface->variant) {
    CF_SKIP("the default backend has no kernel sets (not a CPU backend): nothing to name");
    return;
  }
  setenv("CFORMER_CPU_KERNELS", "portable", 1);
  char *out;
  CHECK_INT_EQ(run(TINY " --agents policy --batches 1", true, &out), 0);
  char want[96];
  snprintf(want, sizeof want, "kernels    %s portable (CPU kernel set", d->name);
  CHECK_STR_CONTAINS(out, want);
  free(out);
  CHECK_INT_EQ(run(TINY " --agents policy --batches 1 --json --quiet", false, &out), 0);
  cJSON *j = cJSON_Parse(out);
  const cJSON *b = j ? cJSON_GetArrayItem(cJSON_GetObjectItem(j, "backends"), 0) : NULL;
  CHECK_STR_EQ(str(b, "variant"), "portable");
  cJSON_Delete(j);
  free(out);
  unsetenv("CFORMER_CPU_KERNELS");
}

static void test_table_and_progress(cf_test *t) {
  char *out;
  CHECK_INT_EQ(run(TINY " --agents policy --batches 2", true, &out), 0);
  CHECK_STR_CONTAINS(out, "per move (12 positions");
  CHECK_STR_CONTAINS(out, "throughput per batch");
  CHECK_STR_CONTAINS(out, "bench signature: ");
  CHECK_STR_CONTAINS(out, "policy agent over 12 positions"); /* progress on stderr */
  CHECK(strstr(out, "value") == NULL || strstr(out, " value ") == NULL);
  /* --no-sgemm: no peak measured, each line says so, no share column */
  CHECK(strstr(out, "measuring") == NULL);
  CHECK_STR_CONTAINS(out, "sgemm peak not measured (--no-sgemm)\n");
  CHECK_STR_CONTAINS(out, "bf16 peak  not measured (--no-sgemm)\n");
  CHECK_STR_CONTAINS(out, "int8 peak  not measured (--no-sgemm)\n");
  CHECK(strstr(out, "% 1T") == NULL);
  free(out);
}

/* A bench run with every peak measured (slow suite: about 10 s of timing
 * per run): each precision measured where oneDNN runs it, with positive
 * rates by shape and the best shape's as the peak, or not, with the reason
 * and no numbers; the share column against the run's precision's peak. */
static void check_peak(cf_test *t, const cJSON *p, int d_model) {
  const char *note = str(p, "note");
  if (!cJSON_IsTrue(cJSON_GetObjectItem(p, "measured"))) {
    CHECK(strncmp(note, "not measured: ", 14) == 0);
    CHECK(cJSON_GetObjectItem(p, "gflops_1_thread") == NULL);
    CHECK(cJSON_GetObjectItem(p, "shapes") == NULL);
    return;
  }
  CHECK(strncmp(note, "oneDNN ", 7) == 0);
  CHECK(num(p, "threads") >= 1);
  const cJSON *shapes = cJSON_GetObjectItem(p, "shapes");
  if (!CHECK_INT_EQ(cJSON_GetArraySize(shapes), 3)) return;
  const int dims[3][3] = {{1024, 1024, 1024}, {16384, d_model, 3 * d_model},
                          {16384, d_model, d_model}};
  double best_1 = 0, best_all = 0;
  for (int i = 0; i < 3; i++) {
    const cJSON *sh = cJSON_GetArrayItem(shapes, i);
    CHECK(num(sh, "m") == dims[i][0] && num(sh, "k") == dims[i][1] && num(sh, "n") == dims[i][2]);
    CHECK(num(sh, "gflops_1_thread") > 0 && num(sh, "gflops_all_threads") > 0);
    CHECK(str(sh, "method")[0] != '\0');
    best_1 = fmax(best_1, num(sh, "gflops_1_thread"));
    best_all = fmax(best_all, num(sh, "gflops_all_threads"));
  }
  CHECK(num(p, "gflops_1_thread") == best_1 && num(p, "gflops_all_threads") == best_all);
}

static void test_measured_peaks(cf_test *t) {
  char *out, dir[] = "/tmp/cf_bench_peaks_XXXXXX";
  if (mkdtemp(dir)) setenv("XDG_CACHE_HOME", dir, 1); /* not the user's cache */
  CHECK_INT_EQ(run("--arch 1x32 --positions 1 --batches 4 --min-time 0 --min-calls 1 "
                   "--agents policy --json --remeasure-peaks",
                   true, &out),
               0);
  /* progress names what is measured */
  CHECK_STR_CONTAINS(out, "measuring the f32 sgemm peak (1024x1024x1024)");
  const char *json = out ? strchr(out, '{') : NULL;
  cJSON *j = json ? cJSON_Parse(json) : NULL;
  if (!CHECK(j != NULL)) {
    free(out);
    return;
  }
  const cJSON *peaks = cJSON_GetObjectItem(j, "matmul_peaks");
  const cJSON *bf16 = cJSON_GetObjectItem(peaks, "bf16"), *int8 = cJSON_GetObjectItem(peaks, "int8");
  check_peak(t, bf16, 32);
  check_peak(t, int8, 32);
  if (cJSON_IsTrue(cJSON_GetObjectItem(bf16, "measured")))
    CHECK_STR_CONTAINS(out, "measuring the bf16 matmul peak (1024x1024x1024, 16384x32x96, "
                            "16384x32x32)");
  /* f32: the sgemm's */
  const cJSON *yard = cJSON_GetObjectItem(j, "yardstick");
  CHECK_STR_EQ(str(yard, "precision"), "f32");
  const cJSON *sgemm = cJSON_GetObjectItem(j, "sgemm");
  if (cJSON_IsTrue(cJSON_GetObjectItem(sgemm, "measured")))
    CHECK(num(yard, "gflops_1_thread") == num(sgemm, "gflops_1_thread"));
  const bool bf16_runs = cJSON_IsTrue(cJSON_GetObjectItem(bf16, "measured"));
  cJSON_Delete(j);
  free(out);
  /* precision=bf16 on onednn: the share is of the bf16 peak, named so */
  if (!cf_backend_find("onednn") || !bf16_runs) return;
  CHECK_INT_EQ(run("--arch 1x32 --positions 1 --batches 4 --min-time 0 --min-calls 1 "
                   "--agents policy --backend onednn --backend-opts precision=bf16 --quiet",
                   false, &out),
               0);
  CHECK_STR_CONTAINS(out, "bf16 peak  ");
  CHECK_STR_CONTAINS(out, "GFLOP/s % 1T bf16 peak\n");
  CHECK(strstr(out, "% 1T sgemm") == NULL);
  free(out);
}

/* The peaks of --json's report: sgemm and bf16/int8, as text. */
static void peak_numbers(const char *out, char *text, size_t size) {
  const char *json = out ? strchr(out, '{') : NULL;
  cJSON *j = json ? cJSON_Parse(json) : NULL;
  const cJSON *sg = cJSON_GetObjectItem(j, "sgemm"), *pk = cJSON_GetObjectItem(j, "matmul_peaks");
  snprintf(text, size, "%.17g %.17g %.17g %.17g", num(sg, "gflops_1_thread"),
           num(sg, "gflops_all_threads"), num(cJSON_GetObjectItem(pk, "bf16"), "gflops_1_thread"),
           num(cJSON_GetObjectItem(pk, "int8"), "gflops_1_thread"));
  cJSON_Delete(j);
}

/* The one cache file under dir/cformer into path; false if not one. */
static bool cache_file(const char *dir, char *path, size_t size) {
  char sub[600];
  snprintf(sub, sizeof sub, "%s/cformer", dir);
  DIR *d = opendir(sub);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    if (strncmp(e->d_name, "bench-peaks-", 12) == 0 && n++ == 0)
      snprintf(path, size, "%s/%s", sub, e->d_name);
  if (d) closedir(d);
  return n == 1;
}

/* Replaces line `line` (1-based) of path with text. */
static void replace_line(const char *path, int line, const char *text) {
  char lines[64][1024];
  int n = 0;
  FILE *f = fopen(path, "r");
  while (f && n < 64 && fgets(lines[n], sizeof lines[n], f)) n++;
  if (f) fclose(f);
  f = fopen(path, "w");
  for (int i = 0; f && i < n; i++) fputs(i + 1 == line ? text : lines[i], f);
  if (f) fclose(f);
}

/* The peaks measured once and cached per machine and build: a second run
 * reads them (the same numbers, no measuring), a corrupt or stale cache is
 * named in one line and measured again, --remeasure-peaks measures. The
 * cache lives in a temporary XDG_CACHE_HOME; --peak-seconds keeps each
 * measurement short. */
static void test_peak_cache(cf_test *t) {
  char dir[] = "/tmp/cf_bench_cache_XXXXXX", path[1200], first[256], again[256];
  if (!CHECK(mkdtemp(dir) != NULL)) return;
  setenv("XDG_CACHE_HOME", dir, 1);
  const char *args = "--arch 1x32 --positions 1 --batches 1 --min-time 0 --min-calls 1 "
                     "--agents policy --json --peak-seconds 0.01";
  char *out;
  CHECK_INT_EQ(run(args, true, &out), 0);
  CHECK_STR_CONTAINS(out, "measuring the f32 sgemm peak");
  peak_numbers(out, first, sizeof first);
  free(out);
  CHECK(cache_file(dir, path, sizeof path));
  /* the second run: read, not measured, the same figures */
  CHECK_INT_EQ(run(args, true, &out), 0);
  CHECK(out && strstr(out, "measuring the f32 sgemm peak") == NULL);
  CHECK_STR_CONTAINS(out, "matmul peaks from ");
  CHECK(out && strstr(out, path) != NULL);
  peak_numbers(out, again, sizeof again);
  CHECK_STR_EQ(again, first);
  free(out);
  /* corrupt: named with its line, measured again, rewritten */
  replace_line(path, 4, "sgemm not numbers\n");
  CHECK_INT_EQ(run(args, true, &out), 0);
  CHECK_STR_CONTAINS(out, "cached peaks ");
  CHECK_STR_CONTAINS(out, ": line 4 is not right: measuring again\n");
  CHECK_STR_CONTAINS(out, "measuring the f32 sgemm peak");
  free(out);
  CHECK_INT_EQ(run(args, true, &out), 0);
  CHECK_STR_CONTAINS(out, "matmul peaks from ");
  free(out);
  /* stale: another build's key */
  replace_line(path, 2, "key host=elsewhere; build=0.0.0\n");
  CHECK_INT_EQ(run(args, true, &out), 0);
  CHECK_STR_CONTAINS(out, "holds the peaks of another machine or build (host=elsewhere; "
                          "build=0.0.0): measuring again");
  CHECK_STR_CONTAINS(out, "measuring the f32 sgemm peak");
  free(out);
  /* on demand */
  CHECK_INT_EQ(run("--arch 1x32 --positions 1 --batches 1 --min-time 0 --min-calls 1 "
                   "--agents policy --peak-seconds 0.01 --remeasure-peaks --quiet",
                   true, &out),
               0);
  free(out);
  CHECK_INT_EQ(run(args, true, &out), 0);
  CHECK_STR_CONTAINS(out, "matmul peaks from ");
  free(out);
  remove(path);
  char sub[600];
  snprintf(sub, sizeof sub, "%s/cformer", dir);
  rmdir(sub);
  rmdir(dir);
  unsetenv("XDG_CACHE_HOME");
}

static void test_parity_net(cf_test *t) {
  const char *data = getenv("CF_TESTDATA");
  if (!data) data = "data";
  char args[1024], *out;
  snprintf(args, sizeof args,
           "--weights %s/parity/cf-rpe-rms.pb.gz --positions 4 --batches 2 --min-time 0 "
           "--min-calls 1 --no-sgemm --json --quiet",
           data);
  CHECK_INT_EQ(run(args, false, &out), 0);
  cJSON *j = cJSON_Parse(out);
  const cJSON *net = cJSON_GetObjectItem(j, "net");
  /* the parity README: 3 layers, d 64, 4 heads, dff 128 */
  CHECK(j && num(net, "layers") == 3 && num(net, "d_model") == 64 && num(net, "heads") == 4 &&
        num(net, "dff") == 128);
  cJSON_Delete(j);
  free(out);
}

#ifndef CF_TEST_ASAN
/* Runs argv with stdout and stderr discarded; the child's peak RSS in KiB,
 * or -1 when it could not run or failed. */
static long child_maxrss_kb(const char *const *argv) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(127);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid) return -1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ru.ru_maxrss : -1;
}
#endif

static void test_cost_only_presets(cf_test *t) {
  /* the paper's Table II: CF-6M 214M, CF-240M 12.8B, within 2% */
  static const struct {
    const char *arch;
    double paper;
  } presets[] = {{"cf-6m", 214e6}, {"cf-240m", 12.8e9}};
  for (int i = 0; i < 2; i++) {
    char args[256], *out;
    /* a suite that does not exist: --cost-only must not even read one */
    snprintf(args, sizeof args, "--arch %s --cost-only --json --suite /nonexistent",
             presets[i].arch);
    CHECK_INT_EQ(run(args, false, &out), 0);
    cJSON *j = cJSON_Parse(out);
    if (!CHECK(j != NULL)) {
      free(out);
      continue;
    }
    double macs = num(j, "paper_macs");
    CHECK(fabs(macs - presets[i].paper) / presets[i].paper < 0.02);
    CHECK(num(j, "full_flops") > 2 * macs);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "cost_only")));
    CHECK(cJSON_GetObjectItem(j, "backends") == NULL);
    cJSON_Delete(j);
    free(out);
  }
#ifndef CF_TEST_ASAN
  /* No weights are built: CF-240M's ~1 GB of floats would show in the
   * child's peak RSS. Measured against `cformer --version`, since loading
   * the backends' shared libraries (oneDNN, OpenBLAS) costs RSS
   * before main; ASan's shadow memory inflates RSS, so this runs only
   * without it. */
  const char *cost_argv[] = {cformer, "bench", "--arch", "cf-240m", "--cost-only", NULL};
  const char *version_argv[] = {cformer, "--version", NULL};
  long cost_kb = child_maxrss_kb(cost_argv), base_kb = child_maxrss_kb(version_argv);
  CHECK(cost_kb > 0 && base_kb > 0);
  CHECK(cost_kb - base_kb < 64 * 1024);
#endif
}

/* --arch LxD[xH[xF]]: defaults H = D/32 (at least 1) and F = D, as documented. */
static void test_arch_shapes(cf_test *t) {
  static const struct {
    const char *arch;
    int layers, d, heads, dff;
  } cases[] = {{"4x128", 4, 128, 4, 128}, {"2x64x2", 2, 64, 2, 64},
               {"2x64x2x96", 2, 64, 2, 96}, {"1x16", 1, 16, 1, 16},
               {"cf-6m", 8, 256, 8, 256}, {"cf-240m", 15, 1024, 32, 4096}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char args[128], *out;
    snprintf(args, sizeof args, "--arch %s --cost-only --json", cases[i].arch);
    CHECK_INT_EQ(run(args, false, &out), 0);
    cJSON *j = cJSON_Parse(out);
    const cJSON *net = j ? cJSON_GetObjectItem(j, "net") : NULL;
    char m[160];
    snprintf(m, sizeof m, "--arch %s gives %d layers, d %d, %d heads, dff %d", cases[i].arch,
             cases[i].layers, cases[i].d, cases[i].heads, cases[i].dff);
    cf_test_report(t,
                   net && num(net, "layers") == cases[i].layers &&
                       num(net, "d_model") == cases[i].d && num(net, "heads") == cases[i].heads &&
                       num(net, "dff") == cases[i].dff,
                   __FILE__, __LINE__, m);
    cJSON_Delete(j);
    free(out);
  }
}

typedef struct xml_count {
  int elements;
} xml_count;

static void XMLCALL on_start(void *d, const XML_Char *n, const XML_Char **a) {
  (void)n, (void)a;
  ((xml_count *)d)->elements++;
}

static void test_svg_file(cf_test *t) {
  char path[] = "/tmp/cf_bench_svg_XXXXXX";
  int fd = mkstemp(path);
  if (!CHECK(fd >= 0)) return;
  close(fd);
  char args[512], *out;
  snprintf(args, sizeof args, TINY " --positions 3 --batches 1 --quiet --svg %s", path);
  CHECK_INT_EQ(run(args, false, &out), 0);
  free(out);
  FILE *f = fopen(path, "rb");
  char *svg = calloc(1, 1 << 20);
  size_t n = f && svg ? fread(svg, 1, (1 << 20) - 1, f) : 0;
  if (f) fclose(f);
  remove(path);
  XML_Parser p = XML_ParserCreate("UTF-8");
  xml_count c = {0};
  XML_SetUserData(p, &c);
  XML_SetStartElementHandler(p, on_start);
  CHECK(n > 0 && XML_Parse(p, svg, (int)n, 1) == XML_STATUS_OK);
  CHECK(c.elements > 10);
  CHECK_STR_CONTAINS(svg, "FLOPs per move");
  XML_ParserFree(p);
  free(svg);
}

static void test_backend_all(cf_test *t) {
  char *out;
  CHECK_INT_EQ(run(TINY " --positions 2 --batches 1 --agents policy --backend all --json --quiet",
                   false, &out),
               0);
  cJSON *j = cJSON_Parse(out);
  int real = 0;
  for (int i = 0; i < cf_backend_count(); i++) real += cf_backend_at(i)->priority >= 0;
  /* every registered backend appears, measured or skipped with a reason */
  CHECK(j && cJSON_GetArraySize(cJSON_GetObjectItem(j, "backends")) == real);
  const cJSON *b, *list = j ? cJSON_GetObjectItem(j, "backends") : NULL;
  cJSON_ArrayForEach(b, list) {
    CHECK(cf_backend_find(str(b, "name")) != NULL);
    if (cJSON_IsTrue(cJSON_GetObjectItem(b, "skipped"))) CHECK(str(b, "skip_reason")[0]);
  }
  cJSON_Delete(j);
  free(out);
}

static void test_help_and_bad_arguments(cf_test *t) {
  char *out;
  CHECK_INT_EQ(run("--help", false, &out), 0);
  CHECK_STR_CONTAINS(out, "usage: cformer bench");
  CHECK_STR_CONTAINS(out, "--cost-only");
  CHECK_STR_CONTAINS(out, "--search-nodes N");
  CHECK_STR_CONTAINS(out, "--minibatch N");
  CHECK_STR_CONTAINS(out, "--backend-opts");
  free(out);
  /* Usage errors exit 2; a file or a net that cannot be read exits 1. */
  static const struct {
    const char *args, *message;
    int status;
  } bad[] = {
      {"", "give exactly one of --weights", 2},
      {"--arch 1x32 --weights x.pb.gz", "give exactly one of --weights", 2},
      {"--arch 3x", "bad value '3x' for --arch: expected cf-6m, cf-240m or LxD", 2},
      {"--arch 2x30x4", "not a multiple of 4 heads", 2},
      {"--arch cf-7m", "expected cf-6m, cf-240m or LxD", 2},
      {"--arch 1x32 --batches 0", "bad batch size '0'", 2},
      {"--arch 1x32 --batches 1,,x", "bad batch size 'x'", 2},
      {"--arch 1x32 --backend nosuch", "bad value 'nosuch' for --backend: expected auto, all", 2},
      {"--arch 1x32 --agents policy,nosuch", "unknown agent 'nosuch'", 2},
      {"--arch 1x32 --positions abc", "bad value 'abc' for --positions", 2},
      {"--arch 1x32 --min-time -1", "bad value '-1' for --min-time: expected a number from 0 to 3600", 2},
      {"--arch 1x32 --search-nodes 0",
       "bad value '0' for --search-nodes: expected a whole number from 10 to 1000000", 2},
      {"--arch 1x32 --search-nodes 9", "bad value '9' for --search-nodes", 2},
      {"--arch 1x32 --search-nodes many", "bad value 'many' for --search-nodes", 2},
      {"--arch 1x32 --search-nodes 1000001", "bad value '1000001' for --search-nodes", 2},
      {"--arch 1x32 --minibatch 0", "bad value '0' for --minibatch: expected a whole number from 1 to 1024", 2},
      {"--arch 1x32 --minibatch 1025", "bad value '1025' for --minibatch", 2},
      {"--arch 1x32 --minibatch -4", "bad value '-4' for --minibatch", 2},
      {"--arch 1x32 --minibatch=", "bad value '' for --minibatch", 2},
      {"--arch 1x32 --search-nodes", "--search-nodes needs a value: --search-nodes N", 2},
      {"--arch 1x32 --frobnicate 1", "unknown flag '--frobnicate' (cformer bench --help)", 2},
      {"--arch", "--arch needs a value", 2},
      {"--arch 1x32 --arch 3x", "bad value '3x' for --arch", 2},
      {"--arch 1x32 --threads 0", "bad value '0' for --threads", 2},
      {"--weights /nonexistent/net.pb.gz --cost-only", "/nonexistent/net.pb.gz", 1},
      {"--weights /dev/null --cost-only", "/dev/null: is a character device, not a regular file", 1},
      {"--weights x.pb.gz --weights-max-mb lots",
       "bad value 'lots' for --weights-max-mb: expected a whole number from 0 to 1048576", 2},
      {"--arch 1x32 --suite /nonexistent/suite.txt --no-sgemm", "/nonexistent/suite.txt", 1},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int st = run(bad[i].args, true, &out);
    char m[512];
    snprintf(m, sizeof m, "'%s' exits %d saying \"%s\"; got %d: %.200s", bad[i].args,
             bad[i].status, bad[i].message, st, out ? out : "");
    cf_test_report(t, st == bad[i].status && out && strstr(out, bad[i].message), __FILE__,
                   __LINE__, m);
    free(out);
  }
}

/* --weights '<built in>' is the embedded network, as in cformer uci. */
/* Each agent plays one untimed move before its timed ones: the JSON has
 * its time (> 0) and the progress says so before the first timed move. */
static void test_warmup(cf_test *t) {
  char *out;
  CHECK_INT_EQ(run(TINY " --json --quiet", false, &out), 0);
  cJSON *j = cJSON_Parse(out);
  const cJSON *b, *a, *backends = j ? cJSON_GetObjectItem(j, "backends") : NULL;
  int agents = 0;
  cJSON_ArrayForEach(b, backends) {
    cJSON_ArrayForEach(a, cJSON_GetObjectItem(b, "agents")) {
      CHECK(num(a, "warmup_seconds") > 0);
      agents++;
    }
  }
  CHECK_INT_EQ(agents, 3);
  cJSON_Delete(j);
  free(out);
  CHECK_INT_EQ(run(TINY, true, &out), 0);
  static const char *const names[] = {"policy", "value", "search"};
  for (int i = 0; i < 3; i++) {
    char warm[96], first[96];
    snprintf(warm, sizeof warm, "  warm-up: one untimed %s move took ", names[i]);
    snprintf(first, sizeof first, "  %s agent, position 1/12", names[i]);
    const char *w = strstr(out, warm), *f = strstr(out, first);
    CHECK(w && f && w < f);
  }
  free(out);
}

/* Seconds in an estimate's text ("0m04s", "3m20s", "2h05m"); -1 when it
 * reads otherwise. */
static double estimate_seconds(const char *text) {
  long a = 0, b = 0;
  char unit = 0;
  if (sscanf(text, "%ldh%ld%c", &a, &b, &unit) == 3 && unit == 'm') return a * 3600.0 + b * 60.0;
  if (sscanf(text, "%ldm%ld%c", &a, &b, &unit) == 3 && unit == 's') return a * 60.0 + b;
  return -1;
}

/* --backend all says before it starts how long it will take: a positive
 * duration in all and one per measured backend, before the first net is
 * created for timing; --quiet says nothing of it; one backend alone is not
 * estimated. */
static void test_backend_all_estimate(cf_test *t) {
  char *out;
  CHECK_INT_EQ(run(TINY " --agents policy --backend all", true, &out), 0);
  const char *e = strstr(out, "] estimate: about ");
  const char *created = strstr(out, ": creating the net");
  CHECK(e && created && e < created);
  if (e) {
    CHECK(estimate_seconds(e + strlen("] estimate: about ")) > 0);
    const char *paren = strstr(e, " in all (");
    int measured = 0;
    for (int i = 0; paren && i < cf_backend_count(); i++) {
      const cf_backend_desc *d = cf_backend_at(i);
      if (d->priority < 0 || (d->probe && !d->probe())) continue;
      char key[80];
      snprintf(key, sizeof key, "%s ", d->name);
      const char *at = strstr(paren, key);
      if (at && at < strchr(e, '\n') && estimate_seconds(at + strlen(key)) > 0) measured++;
      else CHECK_STR_CONTAINS(paren, "will be skipped");
    }
    CHECK(measured >= 1);
  }
  free(out);
  CHECK_INT_EQ(run(TINY " --agents policy --backend all --quiet", true, &out), 0);
  CHECK(strstr(out, "estimate") == NULL);
  free(out);
  CHECK_INT_EQ(run(TINY " --agents policy", true, &out), 0);
  CHECK(strstr(out, "estimate") == NULL);
  free(out);
}

static void test_built_in_weights(cf_test *t) {
  char *out;
  CHECK_INT_EQ(run("--weights '<built in>' --cost-only --json", false, &out), 0);
  cJSON *j = cJSON_Parse(out);
  const cJSON *net = j ? cJSON_GetObjectItem(j, "net") : NULL;
  CHECK(net && strcmp(str(net, "source"), "<built in>") == 0 && num(net, "layers") > 0);
  cJSON_Delete(j);
  free(out);
}

int main(int argc, char **argv) {
  if (argc > 1) cformer = argv[1];
  static const cf_test_fn fns[] = {
      test_json_schema, test_search_defaults, test_backend_opts, test_table_and_progress,
      test_parity_net,  test_cost_only_presets, test_arch_shapes, test_svg_file,
      test_backend_all, test_help_and_bad_arguments, test_built_in_weights, test_warmup,
      test_backend_all_estimate, test_kernel_set_named, test_peak_cache, test_measured_peaks};
  static const char *names[] = {"test_json_schema", "test_search_defaults",
                                "test_backend_opts", "test_table_and_progress",
                                "test_parity_net",  "test_cost_only_presets",
                                "test_arch_shapes", "test_svg_file",
                                "test_backend_all", "test_help_and_bad_arguments",
                                "test_built_in_weights", "test_warmup",
                                "test_backend_all_estimate", "test_kernel_set_named",
                                "test_peak_cache", "test_measured_peaks"};
  /* the last, test_measured_peaks, runs only when named (the slow suite) */
  const int n = (int)(sizeof fns / sizeof fns[0]);
  return cf_test_run(names, fns, argc > 2 ? n : n - 1, argc > 2 ? argc - 1 : 1,
                     argc > 2 ? argv + 1 : argv);
}
