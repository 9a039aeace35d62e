/* test_bench_peak.c: the bf16 and int8 matmul peaks (tools/bench/
 * bench_matmul_peak.h) measured on tiny shapes, and the choice of the peak
 * a run's share is of (bench_yardstick.h). No rate is asserted beyond being
 * positive: on a shared machine any figure is a timing.
 *
 * Run a second time (meson) with ONEDNN_MAX_CPU_ISA=AVX2, under which
 * oneDNN runs neither precision: then the peaks must say why, with no
 * numbers. */
#include <stdlib.h>
#include <string.h>

#include "tests/bench/bench_sample.h"
#include "tests/cf_test.h"
#include "tools/bench/bench_matmul_peak.h"
#include "tools/bench/bench_yardstick.h"

#ifdef CF_TEST_HAVE_DNNL
#include "backends/onednn/cf_onednn_precision.h"
#endif

static void test_options_precision(cf_test *t) {
  CHECK_INT_EQ(bench_options_precision("precision=int8,lanes=2", NULL), CF_PRECISION_INT8);
  CHECK_INT_EQ(bench_options_precision("lanes=2,precision=bf16", NULL), CF_PRECISION_BF16);
  CHECK_INT_EQ(bench_options_precision("threads=2,precision=bf16,lanes=1", NULL), CF_PRECISION_BF16);
  CHECK_INT_EQ(bench_options_precision("precision=f32", NULL), CF_PRECISION_F32);
  /* the last one wins, as for the backends */
  CHECK_INT_EQ(bench_options_precision("precision=bf16,precision=int8", NULL), CF_PRECISION_INT8);
  /* none */
  CHECK_INT_EQ(bench_options_precision(NULL, NULL), CF_PRECISION_F32);
  CHECK_INT_EQ(bench_options_precision("", NULL), CF_PRECISION_F32);
  CHECK_INT_EQ(bench_options_precision("threads=2,lanes=2", NULL), CF_PRECISION_F32);
  /* unknown values (the backends refuse them): f32. Items are separated
   * by commas, so "int8;lanes=2" is one unknown value. */
  CHECK_INT_EQ(bench_options_precision("precision=fp16", NULL), CF_PRECISION_F32);
  CHECK_INT_EQ(bench_options_precision("precision=int8;lanes=2", NULL), CF_PRECISION_F32);
  CHECK_INT_EQ(bench_options_precision("precision=", NULL), CF_PRECISION_F32);
  CHECK_INT_EQ(bench_options_precision("xprecision=int8", NULL), CF_PRECISION_F32);
  /* longer than any fixed buffer would hold */
  char longer[600];
  memset(longer, 'a', sizeof longer);
  memcpy(longer, "x=", 2);
  snprintf(longer + 500, sizeof longer - 500, ",precision=bf16");
  CHECK_INT_EQ(bench_options_precision(longer, NULL), CF_PRECISION_BF16);
  /* auto: what the named (or default) backend picks on this CPU. */
  CHECK_INT_EQ(bench_options_precision("precision=auto", NULL),
               cf_backend_auto_precision(cf_backend_default()));
  CHECK_INT_EQ(bench_options_precision("lanes=1,precision=auto", "ref"), CF_PRECISION_F32);
}

static void test_yardstick(cf_test *t) {
  bench_report r;
  bench_sample_report(&r); /* sgemm 90, bf16 250 measured, int8 not */
  bench_yardstick y = bench_yardstick_for(&r);
  CHECK_INT_EQ(y.precision, CF_PRECISION_F32);
  CHECK(y.gflops == 90);
  CHECK_STR_EQ(y.label, "% 1T sgemm");
  snprintf(r.backend_options, sizeof r.backend_options, "lanes=2,precision=bf16");
  y = bench_yardstick_for(&r);
  CHECK_INT_EQ(y.precision, CF_PRECISION_BF16);
  CHECK(y.gflops == 250);
  CHECK_STR_EQ(y.label, "% 1T bf16 peak");
  /* the one-thread rate, as for sgemm: bench's backends run one thread */
  r.peaks[0].gflops_all = 1000;
  CHECK(bench_yardstick_for(&r).gflops == 250);
  /* not measured: no yardstick (0), never the sgemm's */
  snprintf(r.backend_options, sizeof r.backend_options, "precision=int8");
  y = bench_yardstick_for(&r);
  CHECK_INT_EQ(y.precision, CF_PRECISION_INT8);
  CHECK(y.gflops == 0);
  CHECK_STR_EQ(y.label, "% 1T int8 peak");
  r.peaks[1] = (bench_matmul_peak){.precision = CF_PRECISION_INT8, .measured = true,
                                   .gflops_1 = 700};
  CHECK(bench_yardstick_for(&r).gflops == 700);
  /* an unknown precision is f32's */
  snprintf(r.backend_options, sizeof r.backend_options, "precision=int4");
  CHECK(bench_yardstick_for(&r).gflops == 90);
  CHECK(bench_report_peak(&r, CF_PRECISION_F32) == NULL);
  CHECK(bench_report_peak(&r, CF_PRECISION_BF16) == &r.peaks[0]);
  CHECK(bench_report_peak(&r, CF_PRECISION_INT8) == &r.peaks[1]);
}

/* Whether this build and CPU run p, by the backend's own test. */
static bool runs(cf_precision p) {
#ifdef CF_TEST_HAVE_DNNL
  cf_error err = {0};
  return cf_onednn_precision_check(p, &err) == CF_OK;
#else
  (void)p;
  return false;
#endif
}

static void test_measure(cf_test *t) {
  const char *cap = getenv("ONEDNN_MAX_CPU_ISA");
  const bool capped = cap && strcmp(cap, "AVX2") == 0;
  for (int i = 0; i < BENCH_PEAK_PRECISIONS; i++) {
    const cf_precision p = bench_peak_precision_at(i);
    CHECK(p == CF_PRECISION_BF16 || p == CF_PRECISION_INT8);
    /* a 64 square and a d_model 32 net's projections, one timed run or so */
    bench_matmul_peak m = bench_matmul_peak_measure(p, 64, 32, 0);
    CHECK_INT_EQ(m.precision, p);
    CHECK(m.measured == runs(p));
    if (capped) CHECK(!m.measured); /* AVX2 has neither AVX512_BF16 nor VNNI */
    if (!m.measured) {
      /* why, and no numbers */
      CHECK(strncmp(m.note, "not measured: ", 14) == 0);
      if (capped) CHECK_STR_CONTAINS(m.note, "needs");
      CHECK(m.gflops_1 == 0 && m.gflops_all == 0 && m.n_shapes == 0);
      CHECK(bench_matmul_peak_seconds(p, 32, 1) == 0);
      continue;
    }
    CHECK(strncmp(m.note, "oneDNN ", 7) == 0);
    CHECK(m.threads >= 1);
    CHECK(bench_matmul_peak_seconds(p, 32, 1) > 0);
    if (!CHECK_INT_EQ(m.n_shapes, 3)) continue;
    const int dims[3][3] = {{64, 64, 64}, {64 * BENCH_PEAK_BATCH, 32, 96},
                            {64 * BENCH_PEAK_BATCH, 32, 32}};
    double best_1 = 0, best_all = 0;
    for (int s = 0; s < 3; s++) {
      const bench_peak_shape *sh = &m.shapes[s];
      CHECK(sh->m == dims[s][0] && sh->k == dims[s][1] && sh->n == dims[s][2]);
      CHECK(sh->gflops_1 > 0 && isfinite(sh->gflops_1));
      CHECK(sh->gflops_all > 0 && isfinite(sh->gflops_all));
      CHECK(sh->method[0] != '\0');
      best_1 = fmax(best_1, sh->gflops_1);
      best_all = fmax(best_all, sh->gflops_all);
    }
    /* the peak is the best shape's */
    CHECK(m.gflops_1 == best_1 && m.gflops_all == best_all);
  }
  /* no net shape known: the square alone */
  if (runs(CF_PRECISION_BF16)) {
    bench_matmul_peak m = bench_matmul_peak_measure(CF_PRECISION_BF16, 32, 0, 0);
    CHECK(m.measured && m.n_shapes == 1 && m.shapes[0].m == 32 && m.gflops_1 > 0);
  }
  /* f32 has the sgemm peak, not one of these */
  bench_matmul_peak f = bench_matmul_peak_measure(CF_PRECISION_F32, 64, 32, 0);
  CHECK(!f.measured && f.gflops_1 == 0);
}

static void test_skipped(cf_test *t) {
  bench_matmul_peak s = bench_matmul_peak_skipped(CF_PRECISION_INT8, "--no-sgemm");
  CHECK(!s.measured && s.precision == CF_PRECISION_INT8 && s.gflops_1 == 0 && s.n_shapes == 0);
  CHECK_STR_EQ(s.note, "not measured (--no-sgemm)");
}

CF_TEST_MAIN(test_options_precision, test_yardstick, test_measure, test_skipped)
