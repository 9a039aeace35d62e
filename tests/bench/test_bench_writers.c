/* test_bench_writers.c: the table, JSON and SVG forms of a hand-made
 * report. JSON: parses, carries the schema and the numbers, and every key it
 * writes is documented in docs/BENCH_JSON.md. SVG: well-formed XML (expat), one
 * marker per measured backend and agent (three agents), specials escaped. */
#include <cjson/cJSON.h>
#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/bench/bench_sample.h"
#include "tests/cf_test.h"
#include "tools/bench/bench_json.h"
#include "tools/bench/bench_svg.h"
#include "tools/bench/bench_table.h"

/* Everything a writer printed to a FILE, as a string (caller frees). */
typedef void (*writer_fn)(FILE *, const bench_report *);
static char *capture(writer_fn fn, const bench_report *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return NULL;
  fn(f, r);
  fclose(f);
  return buf;
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
  if (s) s[n] = '\0';
  fclose(f);
  return s;
}

/* Checks every object key under j appears in doc as `key`. */
static void keys_documented(cf_test *t, const cJSON *j, const char *doc) {
  const cJSON *c;
  cJSON_ArrayForEach(c, j) {
    if (c->string) {
      char quoted[96], m[160];
      snprintf(quoted, sizeof quoted, "`%s`", c->string);
      snprintf(m, sizeof m, "JSON key %s is documented in docs/BENCH_JSON.md", quoted);
      cf_test_report(t, strstr(doc, quoted) != NULL, __FILE__, __LINE__, m);
    }
    if (cJSON_IsObject(c) || cJSON_IsArray(c)) keys_documented(t, c, doc);
  }
}

static double number(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* r's JSON with these backend options names precision as its yardstick,
 * compared with a peak of gflops (-1: none measured, so null). */
static void check_yardstick(cf_test *t, bench_report *r, const char *options,
                            const char *precision, double gflops) {
  snprintf(r->backend_options, sizeof r->backend_options, "%s", options);
  char *text = bench_json_text(r);
  cJSON *j = cJSON_Parse(text);
  const cJSON *yard = j ? cJSON_GetObjectItem(j, "yardstick") : NULL;
  const cJSON *p = yard ? cJSON_GetObjectItem(yard, "precision") : NULL;
  CHECK(p && cJSON_IsString(p) && strcmp(p->valuestring, precision) == 0);
  if (gflops < 0)
    CHECK(yard && cJSON_IsNull(cJSON_GetObjectItem(yard, "gflops_1_thread")));
  else
    CHECK(yard && number(yard, "gflops_1_thread") == gflops);
  cJSON_Delete(j);
  free(text);
}

static void test_json(cf_test *t) {
  bench_report r;
  bench_sample_report(&r);
  char *text = bench_json_text(&r);
  cJSON *j = cJSON_Parse(text);
  if (!CHECK(j != NULL)) {
    free(text);
    return;
  }
  CHECK_STR_EQ(cJSON_GetObjectItem(j, "schema")->valuestring, "cformer-bench");
  CHECK(number(j, "schema_version") == BENCH_SCHEMA_VERSION);
  CHECK(number(j, "paper_macs") == 107e6);
  CHECK(number(j, "full_flops") == 250e6);
  CHECK(number(cJSON_GetObjectItem(j, "net"), "paper_macs") == 107e6);
  const cJSON *backends = cJSON_GetObjectItem(j, "backends");
  CHECK_INT_EQ(cJSON_GetArraySize(backends), 2);
  const cJSON *ref = cJSON_GetArrayItem(backends, 0);
  const cJSON *value = cJSON_GetArrayItem(cJSON_GetObjectItem(ref, "agents"), 1);
  CHECK_STR_EQ(cJSON_GetObjectItem(value, "agent")->valuestring, "value");
  CHECK(number(value, "evals") == 4352);
  CHECK(number(cJSON_GetObjectItem(value, "seconds_per_move"), "p90") == 0.09);
  CHECK(cJSON_GetObjectItem(value, "search") == NULL); /* only the search agent has one */
  const cJSON *search = cJSON_GetArrayItem(cJSON_GetObjectItem(ref, "agents"), 2);
  CHECK_STR_EQ(cJSON_GetObjectItem(search, "agent")->valuestring, "search");
  const cJSON *so = cJSON_GetObjectItem(search, "search");
  CHECK(number(so, "visits_target") == 200 && number(so, "minibatch") == 32);
  CHECK(number(so, "mean_batch") == 24 && number(so, "cache_hit_rate") == 0.04);
  CHECK(number(so, "reference_batch") == 16 && number(so, "efficiency") == 0.8);
  CHECK(number(so, "search_cpu_seconds") == 0.32 && number(so, "net_call_cpu_seconds") == 90);
  CHECK(number(so, "search_cpu_per_visit") == 12.5e-6);
  CHECK(cJSON_IsFalse(cJSON_GetObjectItem(so, "smart_pruning")));
  /* no plain figure at the minibatch size: null, not NaN */
  CHECK(cJSON_IsNull(cJSON_GetObjectItem(so, "efficiency_at_minibatch")));
  CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "backend_options")));
  CHECK(cJSON_IsNull(cJSON_GetObjectItem(ref, "variant"))); /* ref has one code path */
  const cJSON *skipped = cJSON_GetArrayItem(backends, 1);
  CHECK(cJSON_IsTrue(cJSON_GetObjectItem(skipped, "skipped")));
  CHECK_STR_EQ(cJSON_GetObjectItem(skipped, "skip_reason")->valuestring, "no GPU");
  CHECK(cJSON_GetObjectItem(skipped, "agents") == NULL);
  /* the reduced precisions' peaks: bf16 measured by shape, int8 not (no
   * numbers, only why); no --backend-opts: the yardstick is the sgemm's */
  const cJSON *peaks = cJSON_GetObjectItem(j, "matmul_peaks");
  const cJSON *bf16 = cJSON_GetObjectItem(peaks, "bf16"), *int8 = cJSON_GetObjectItem(peaks, "int8");
  CHECK(cJSON_IsTrue(cJSON_GetObjectItem(bf16, "measured")));
  CHECK(number(bf16, "gflops_1_thread") == 250 && number(bf16, "gflops_all_threads") == 480);
  CHECK(number(bf16, "threads") == 2);
  const cJSON *shapes = cJSON_GetObjectItem(bf16, "shapes");
  CHECK_INT_EQ(cJSON_GetArraySize(shapes), 3);
  const cJSON *proj = cJSON_GetArrayItem(shapes, 1);
  CHECK(number(proj, "m") == 16384 && number(proj, "k") == 256 && number(proj, "n") == 768);
  CHECK(number(proj, "gflops_1_thread") == 200 && number(proj, "gflops_all_threads") == 390);
  CHECK_STR_EQ(cJSON_GetObjectItem(proj, "method")->valuestring, "matmul bf16*bf16->f32");
  CHECK(cJSON_IsFalse(cJSON_GetObjectItem(int8, "measured")));
  CHECK(cJSON_GetObjectItem(int8, "gflops_1_thread") == NULL);
  CHECK(cJSON_GetObjectItem(int8, "shapes") == NULL);
  CHECK_STR_EQ(cJSON_GetObjectItem(int8, "note")->valuestring,
               "not measured: precision=int8 needs VNNI");
  const cJSON *yard = cJSON_GetObjectItem(j, "yardstick");
  CHECK_STR_EQ(cJSON_GetObjectItem(yard, "precision")->valuestring, "f32");
  CHECK(number(yard, "gflops_1_thread") == 90);
  char *doc = read_file(BENCH_DOC_FILE);
  if (CHECK(doc != NULL)) keys_documented(t, j, doc);
  free(doc);
  cJSON_Delete(j);
  free(text);

  /* a bf16 run is measured against the bf16 peak; an int8 run, whose peak
   * was not measured, has none (null), not the sgemm's */
  check_yardstick(t, &r, "threads=1,precision=bf16", "bf16", 250);
  check_yardstick(t, &r, "precision=int8", "int8", -1);
  r.backend_options[0] = '\0';

  /* a CPU backend names its kernel set */
  snprintf(r.backends[0].variant, sizeof r.backends[0].variant, "avx512");
  text = bench_json_text(&r);
  j = cJSON_Parse(text);
  const cJSON *v = j ? cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "backends"), 0),
                                           "variant")
                     : NULL;
  CHECK(cJSON_IsString(v) && strcmp(v->valuestring, "avx512") == 0);
  cJSON_Delete(j);
  free(text);
  r.backends[0].variant[0] = '\0';

  /* cost only: the two figures and the net, nothing measured */
  r.cost_only = true;
  text = bench_json_text(&r);
  j = cJSON_Parse(text);
  CHECK(j && number(j, "paper_macs") == 107e6 && number(j, "full_flops") == 250e6);
  CHECK(j && cJSON_GetObjectItem(j, "backends") == NULL);
  CHECK(j && cJSON_IsTrue(cJSON_GetObjectItem(j, "cost_only")));
  cJSON_Delete(j);
  free(text);
}

static void test_table(cf_test *t) {
  bench_report r;
  bench_sample_report(&r);
  char *s = capture(bench_table_write, &r);
  CHECK_STR_CONTAINS(s, "paper rule 107M (weight MACs, as Table II); full count 250M FLOPs");
  CHECK_STR_CONTAINS(s, "sgemm peak 90.0 GFLOP/s on 1 thread, 170.0 GFLOP/s on 2 threads");
  CHECK_STR_CONTAINS(s, "4.00 ms [3.50 ms-5.00 ms]");
  CHECK_STR_CONTAINS(s, "8.50G");
  CHECK_STR_CONTAINS(s, "  238\n");  /* evals/s: whole numbers from 100 up */
  CHECK_STR_CONTAINS(s, "  680\n");
  CHECK_STR_CONTAINS(s, "skipped    cuda: no GPU");
  CHECK_STR_CONTAINS(s, "bench signature: 0123456789abcdef");
  CHECK_STR_CONTAINS(s, "69.4%"); /* 62.5 of the 1-thread 90 GFLOP/s */
  CHECK_STR_CONTAINS(s, "2 CPUs online, load average 0.25 at start\n");
  /* the search section: its figures, the efficiency against batch 16 and
   * "-" where the minibatch size was not swept */
  CHECK_STR_CONTAINS(s, "search agent (200 visits per move, smart pruning off");
  CHECK_STR_CONTAINS(s, "  search ");
  CHECK_STR_CONTAINS(s, "      4.0%       24.0       1.20k         250 @16       0.80             -"
                        "    12.5 us\n");
  CHECK(strstr(s, "options") == NULL); /* no --backend-opts: no line about them */
  CHECK(strstr(s, "kernels ") == NULL); /* ref has no kernel set: no line about it */
  snprintf(r.backends[0].name, sizeof r.backends[0].name, "onednn");
  snprintf(r.backends[0].variant, sizeof r.backends[0].variant, "avx512");
  free(s);
  s = capture(bench_table_write, &r);
  CHECK_STR_CONTAINS(s, "kernels    onednn avx512 (CPU kernel set; CFORMER_CPU_KERNELS forces one)\n");
  snprintf(r.backend_options, sizeof r.backend_options, "threads=2");
  free(s);
  s = capture(bench_table_write, &r);
  CHECK_STR_CONTAINS(s, "backends   options threads=2");
  /* the backends run on one thread: the all-thread rate is not the yardstick */
  r.sgemm.gflops_all = 500;
  free(s);
  s = capture(bench_table_write, &r);
  CHECK_STR_CONTAINS(s, "69.4%"); /* still 62.5 of 90 */
  /* every measured peak in the header, by shape; int8 says why it has none */
  CHECK_STR_CONTAINS(s, "bf16 peak  250.0 GFLOP/s on 1 thread, 480.0 GFLOP/s on 2 threads "
                        "(oneDNN matmul bf16*bf16->f32)\n");
  CHECK_STR_CONTAINS(s, "1024x1024x1024 250.0 / 480.0, 16384x256x768 200.0 / 390.0, "
                        "16384x256x256 125.0 / 240.0 GFLOP/s\n");
  CHECK_STR_CONTAINS(s, "int8 peak  not measured: precision=int8 needs VNNI\n");
  CHECK_STR_CONTAINS(s, "% 1T sgemm\n");
  CHECK(strstr(s, "% 1T bf16 peak") == NULL);
  /* precision=bf16: the share is of the bf16 peak, and says so */
  snprintf(r.backend_options, sizeof r.backend_options, "precision=bf16,threads=2");
  free(s);
  s = capture(bench_table_write, &r);
  CHECK_STR_CONTAINS(s, "    GFLOP/s % 1T bf16 peak\n");
  CHECK_STR_CONTAINS(s, "          25.0%\n"); /* 62.5 of 250 */
  CHECK(strstr(s, "69.4%") == NULL && strstr(s, "% 1T sgemm") == NULL);
  /* precision=int8 with no int8 peak: no share at all, not one of the sgemm */
  snprintf(r.backend_options, sizeof r.backend_options, "precision=int8");
  free(s);
  s = capture(bench_table_write, &r);
  CHECK(strstr(s, "% 1T") == NULL && strstr(s, "69.4%") == NULL);
  /* measured, int8 is in integer operations */
  r.peaks[1] = r.peaks[0];
  r.peaks[1].precision = CF_PRECISION_INT8;
  r.peaks[1].gflops_1 = 500;
  free(s);
  s = capture(bench_table_write, &r);
  CHECK_STR_CONTAINS(s, "int8 peak  500.0 GOP/s on 1 thread");
  CHECK_STR_CONTAINS(s, "    GFLOP/s % 1T int8 peak\n");
  CHECK_STR_CONTAINS(s, "          12.5%\n"); /* 62.5 of 500 */
  free(s);
}

typedef struct svg_count {
  int circles, rects, polygons, depth, max_depth;
} svg_count;

static void XMLCALL on_start(void *data, const XML_Char *name, const XML_Char **attrs) {
  (void)attrs;
  svg_count *c = data;
  c->circles += strcmp(name, "circle") == 0;
  c->rects += strcmp(name, "rect") == 0;
  c->polygons += strcmp(name, "polygon") == 0;
  if (++c->depth > c->max_depth) c->max_depth = c->depth;
}

static void XMLCALL on_end(void *data, const XML_Char *name) {
  (void)name;
  ((svg_count *)data)->depth--;
}

static int parse_svg(const char *s, svg_count *c) {
  XML_Parser p = XML_ParserCreate("UTF-8");
  *c = (svg_count){0};
  XML_SetUserData(p, c);
  XML_SetElementHandler(p, on_start, on_end);
  int ok = XML_Parse(p, s, (int)strlen(s), 1) == XML_STATUS_OK;
  if (!ok)
    printf("  svg: %s at line %lu\n", XML_ErrorString(XML_GetErrorCode(p)),
           (unsigned long)XML_GetCurrentLineNumber(p));
  XML_ParserFree(p);
  return ok;
}

static void test_svg(cf_test *t) {
  bench_report r;
  bench_sample_report(&r);
  char *s = capture(bench_svg_write, &r);
  svg_count c;
  CHECK(parse_svg(s, &c));
  /* policy: a circle on the plot and one in the legend; value: the same as rects
   * (plus the background and the plot frame); search: triangles */
  CHECK_INT_EQ(c.circles, 2);
  CHECK_INT_EQ(c.rects, 2 + 2);
  CHECK_INT_EQ(c.polygons, 2);
  CHECK_STR_CONTAINS(s, "ref search</text>");
  CHECK_STR_CONTAINS(s, "&lt;odd&gt; &amp; &quot;name&quot;");
  CHECK_STR_CONTAINS(s, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
  free(s);
  /* nothing measured: still a well-formed, empty chart */
  r.backends[0].skipped = true;
  s = capture(bench_svg_write, &r);
  CHECK(parse_svg(s, &c));
  CHECK_INT_EQ(c.circles, 0);
  free(s);
  /* many backends x three agents: the legend stays inside the chart */
  bench_sample_report(&r);
  r.n_backends = BENCH_MAX_BACKENDS;
  for (int b = 1; b < r.n_backends; b++) {
    r.backends[b] = r.backends[0];
    snprintf(r.backends[b].name, sizeof r.backends[b].name, "b%d", b);
  }
  s = capture(bench_svg_write, &r);
  CHECK(parse_svg(s, &c));
  CHECK_INT_EQ(c.polygons, 2 * BENCH_MAX_BACKENDS);
  const char *last = strstr(s, "b15 search</text>");
  const char *y = NULL;
  for (const char *p = s; last && (p = strstr(p, "<text x=\"552\" y=\"")) && p < last; p++) y = p;
  CHECK(y != NULL && atof(y + strlen("<text x=\"552\" y=\"")) <= 480);
  free(s);
}

CF_TEST_MAIN(test_json, test_table, test_svg)
