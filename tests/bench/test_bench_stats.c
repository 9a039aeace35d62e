/* test_bench_stats.c: the numbers behind every bench line: quantiles and
 * the summary of timings, the signature hash and its quantisation, and the
 * unit formatting of the table and chart. Expected values are worked by
 * hand. */
#include <math.h>
#include <string.h>

#include "tests/cf_test.h"
#include "tools/bench/bench_clock.h"
#include "tools/bench/bench_signature.h"
#include "tools/bench/bench_units.h"

static void test_stats_by_hand(cf_test *t) {
  /* sorted: 1 2 3 4 10; median 3; p10 at position 0.4 -> 1 + 0.4 * (2 - 1) = 1.4;
   * p90 at 3.6 -> 4 + 0.6 * (10 - 4) = 7.6; mean 20 / 5 = 4 */
  double s[] = {10, 3, 1, 4, 2};
  bench_stats st = bench_stats_of(s, 5);
  CHECK_INT_EQ(st.n, 5);
  CHECK_NEAR(st.median, 3.0, 1e-12);
  CHECK_NEAR(st.p10, 1.4, 1e-12);
  CHECK_NEAR(st.p90, 7.6, 1e-12);
  CHECK_NEAR(st.min, 1.0, 0);
  CHECK_NEAR(st.max, 10.0, 0);
  CHECK_NEAR(st.mean, 4.0, 1e-12);
  /* even count: the median interpolates the middle pair */
  double e[] = {4, 1, 3, 2};
  CHECK_NEAR(bench_stats_of(e, 4).median, 2.5, 1e-12);
  double one[] = {7};
  bench_stats o = bench_stats_of(one, 1);
  CHECK(o.median == 7 && o.p10 == 7 && o.p90 == 7);
  CHECK_INT_EQ(bench_stats_of(NULL, 0).n, 0);
}

static void test_clock_is_monotonic(cf_test *t) {
  double a = bench_now(), b = bench_now();
  CHECK(b >= a);
  CHECK(a > 0);
}

static void test_signature_fnv1a(cf_test *t) {
  /* FNV-1a 64 published vectors: "" -> cbf29ce484222325, "a" -> af63dc4c8601ec8c */
  bench_signature s;
  char hex[17];
  bench_signature_init(&s);
  bench_signature_hex(&s, hex);
  CHECK_STR_EQ(hex, "cbf29ce484222325");
  bench_signature_bytes(&s, "a", 1);
  bench_signature_hex(&s, hex);
  CHECK_STR_EQ(hex, "af63dc4c8601ec8c");
}

static void test_signature_quantisation(cf_test *t) {
  bench_signature a, b, c;
  bench_signature_init(&a);
  bench_signature_init(&b);
  bench_signature_init(&c);
  /* 0.1234 * 1024 = 126.36 and 0.12341 * 1024 = 126.37: both round to 126 */
  bench_signature_quantised(&a, 0.1234);
  bench_signature_quantised(&b, 0.12341);
  /* 0.1240 * 1024 = 126.98 -> 127: a different value */
  bench_signature_quantised(&c, 0.1240);
  CHECK(a.h == b.h);
  CHECK(a.h != c.h);
  /* NaN, infinities and huge numbers hash without undefined behaviour */
  bench_signature_quantised(&a, NAN);
  bench_signature_quantised(&a, INFINITY);
  bench_signature_quantised(&a, -1e300);
  CHECK(a.h != b.h);
  /* text is hashed with its terminator: "ab"+"c" differs from "a"+"bc" */
  bench_signature_init(&a);
  bench_signature_init(&b);
  bench_signature_text(&a, "ab");
  bench_signature_text(&a, "c");
  bench_signature_text(&b, "a");
  bench_signature_text(&b, "bc");
  CHECK(a.h != b.h);
}

static void test_units(cf_test *t) {
  char s[32];
  bench_si(214e6, s, sizeof s);
  CHECK_STR_EQ(s, "214M");
  bench_si(12.8e9, s, sizeof s);
  CHECK_STR_EQ(s, "12.8G");
  bench_si(256e9, s, sizeof s);
  CHECK_STR_EQ(s, "256G");
  bench_si(950, s, sizeof s);
  CHECK_STR_EQ(s, "950");
  bench_si(1234.0, s, sizeof s);
  CHECK_STR_EQ(s, "1.23k");
  bench_si(999.7e6, s, sizeof s); /* rounds up into the next prefix */
  CHECK_STR_EQ(s, "1.00G");
  bench_si(NAN, s, sizeof s);
  CHECK_STR_EQ(s, "-");
  bench_duration(0.00456, s, sizeof s);
  CHECK_STR_EQ(s, "4.56 ms");
  bench_duration(12.3e-6, s, sizeof s);
  CHECK_STR_EQ(s, "12.3 us");
  bench_duration(1.5, s, sizeof s);
  CHECK_STR_EQ(s, "1.5 s");
  bench_duration(850e-9, s, sizeof s);
  CHECK_STR_EQ(s, "850 ns");
}

CF_TEST_MAIN(test_stats_by_hand, test_clock_is_monotonic, test_signature_fnv1a,
             test_signature_quantisation, test_units)
