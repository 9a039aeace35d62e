/* cf_test.h: cformer's small test harness (header only).
 *
 * A test file defines functions `static void test_x(cf_test *t)` that call
 * the CHECK macros, then lists them once:
 *
 *     CF_TEST_MAIN(test_x, test_y)
 *
 * Each executable runs its tests (or only those named on the command line),
 * prints one line per failed check and a summary, and exits non-zero when any
 * check failed, which is what meson's test() runner counts.
 *
 * A test that cannot run here says so and why, and returns:
 *
 *     if (!have_gpu()) { CF_SKIP("needs an NVIDIA GPU (no /dev/nvidia* device)"); return; }
 *
 * It is listed as skipped with the reason; when every test that ran was
 * skipped (and none failed), the executable exits 77, which meson counts as
 * SKIP. Never a CHECK(true) in its place: that passes without proving. */
#ifndef CF_TEST_H
#define CF_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CF_TEST_ASAN is 1 in a build with AddressSanitizer (gcc or clang), whose
 * memory limits and speed some tests must allow for. */
#if defined(__SANITIZE_ADDRESS__)
#define CF_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CF_TEST_ASAN 1
#endif
#endif

/* CF_TEST_SANITIZED is 1 in a build with ASan or UBSan: every network call
 * is several times slower, so latency bounds get CF_TEST_SLACK. */
#if defined(CF_TEST_ASAN) || defined(__SANITIZE_UNDEFINED__)
#define CF_TEST_SANITIZED 1
#define CF_TEST_SLACK 5.0
#else
#define CF_TEST_SLACK 1.0
#endif

typedef struct cf_test {
  const char *name;
  int checks;
  int failures;
  const char *skipped; /* why the test could not run here, or NULL */
} cf_test;

/* Marks the running test skipped with the reason; the test then returns. */
#define CF_SKIP(reason) (t->skipped = (reason))
#define CF_TEST_EXIT_SKIP 77

typedef void (*cf_test_fn)(cf_test *t);

static inline int cf_test_report(cf_test *t, int ok, const char *file, int line, const char *what) {
  t->checks++;
  if (!ok) {
    t->failures++;
    if (t->failures <= 20) fprintf(stderr, "%s:%d: %s: FAILED: %s\n", file, line, t->name, what);
  }
  return ok;
}

/* Each CHECK evaluates to 1 when it passed, so a test can stop early:
 *     if (!CHECK(p != NULL)) return; */
#define CHECK(cond) cf_test_report(t, (cond) ? 1 : 0, __FILE__, __LINE__, #cond)

#define CHECK_INT_EQ(a, b)                                                                  \
  __extension__({                                                                           \
    long long cf_a_ = (long long)(a), cf_b_ = (long long)(b);                               \
    char cf_m_[512];                                                                        \
    snprintf(cf_m_, sizeof cf_m_, "%s == %s (%lld vs %lld)", #a, #b, cf_a_, cf_b_);         \
    cf_test_report(t, cf_a_ == cf_b_, __FILE__, __LINE__, cf_m_);                           \
  })

#define CHECK_STR_EQ(a, b)                                                                  \
  __extension__({                                                                           \
    const char *cf_a_ = (a), *cf_b_ = (b);                                                  \
    char cf_m_[1024];                                                                       \
    snprintf(cf_m_, sizeof cf_m_, "%s == %s (\"%s\" vs \"%s\")", #a, #b,                    \
             cf_a_ ? cf_a_ : "(null)", cf_b_ ? cf_b_ : "(null)");                           \
    cf_test_report(t, cf_a_ && cf_b_ && strcmp(cf_a_, cf_b_) == 0, __FILE__, __LINE__,      \
                   cf_m_);                                                                  \
  })

/* Substring check, used to assert that error messages name what is wrong. */
#define CHECK_STR_CONTAINS(hay, needle)                                                     \
  __extension__({                                                                           \
    const char *cf_h_ = (hay), *cf_n_ = (needle);                                           \
    char cf_m_[1024];                                                                       \
    snprintf(cf_m_, sizeof cf_m_, "%s contains %s (\"%s\" lacks \"%s\")", #hay, #needle,    \
             cf_h_ ? cf_h_ : "(null)", cf_n_);                                              \
    cf_test_report(t, cf_h_ && strstr(cf_h_, cf_n_) != NULL, __FILE__, __LINE__, cf_m_);    \
  })

#define CHECK_NEAR(a, b, tol)                                                               \
  __extension__({                                                                           \
    double cf_a_ = (double)(a), cf_b_ = (double)(b), cf_t_ = (double)(tol);                 \
    char cf_m_[512];                                                                        \
    snprintf(cf_m_, sizeof cf_m_, "|%s - %s| <= %g (%.9g vs %.9g)", #a, #b, cf_t_, cf_a_,   \
             cf_b_);                                                                        \
    cf_test_report(t, fabs(cf_a_ - cf_b_) <= cf_t_, __FILE__, __LINE__, cf_m_);             \
  })

/* Wall-clock bounds are benchmarks, not tests: a busy machine stretches any
 * time, so a fast test that asserts one fails for reasons that are not the
 * code's. CHECK_LATENCY(ms, bound_ms, what) prints the time measured and its
 * bound, and is a check only where CF_TEST_LATENCY=assert is set: the
 * meson benchmark() entries (`meson test -C build --benchmark`, run while
 * holding the machine's benchmark lock). The functional checks around it
 * (the move came, the search stopped, nothing hung) stay in the test. */
#define CHECK_LATENCY(ms, bound_ms, what) \
  cf_test_latency(t, (double)(ms), (double)(bound_ms), (what), __FILE__, __LINE__)

static inline int cf_test_latency(cf_test *t, double ms, double bound, const char *what,
                                  const char *file, int line) {
  const char *mode = getenv("CF_TEST_LATENCY");
  printf("  latency: %s: %.0f ms (bound %.0f ms%s)\n", what, ms, bound,
         ms <= bound ? "" : ", over it");
  if (!mode || strcmp(mode, "assert") != 0) return 1;
  char m[512];
  snprintf(m, sizeof m, "latency: %s: %.0f ms <= %.0f ms", what, ms, bound);
  return cf_test_report(t, ms <= bound, file, line, m);
}

/* The repository's data folder (data/: parity nets and cases, the 1858-move
 * list, the puzzle set), passed by meson as CF_TESTDATA; tests build paths
 * under it. The fallback holds when a test runs from the repository root. */
static inline const char *cf_test_data_dir(void) {
  const char *env = getenv("CF_TESTDATA");
  return env && *env ? env : "data";
}

static inline int cf_test_run(const char *const *names, const cf_test_fn *fns, int n, int argc,
                              char **argv) {
  int failed_tests = 0, ran = 0, skipped = 0;
  /* A name that matches no test is a typo in meson.build or on the command
   * line: failing it keeps a test from silently never running. */
  for (int a = 1; a < argc; a++) {
    int known = 0;
    for (int i = 0; i < n; i++) known |= strcmp(argv[a], names[i]) == 0;
    if (!known) {
      printf("FAIL no test named '%s' here\n", argv[a]);
      failed_tests++;
    }
  }
  for (int i = 0; i < n; i++) {
    if (argc > 1) {
      int wanted = 0;
      for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], names[i]) == 0;
      if (!wanted) continue;
    }
    cf_test t = {names[i], 0, 0, NULL};
    fns[i](&t);
    ran++;
    if (t.failures) failed_tests++;
    if (t.skipped && !t.failures) {
      skipped++;
      printf("SKIP %s: %s\n", names[i], t.skipped);
      continue;
    }
    printf("%-4s %s (%d checks%s)\n", t.failures ? "FAIL" : "ok", names[i], t.checks,
           t.failures ? ", failures" : "");
    if (t.checks == 0) {
      /* A test that asserts nothing proves nothing. */
      printf("FAIL %s made no checks\n", names[i]);
      failed_tests++;
    }
  }
  printf("%d passed, %d failed, %d skipped\n", ran - failed_tests - skipped, failed_tests,
         skipped);
  if (failed_tests) return 1;
  return ran > 0 && skipped == ran ? CF_TEST_EXIT_SKIP : 0;
}

#define CF_TEST_STR_(...) #__VA_ARGS__

#define CF_TEST_MAIN(...)                                                                   \
  int main(int argc, char **argv) {                                                         \
    static const cf_test_fn fns[] = {__VA_ARGS__};                                          \
    enum { n_ = sizeof fns / sizeof fns[0] };                                               \
    static char list_[] = CF_TEST_STR_(__VA_ARGS__);                                        \
    const char *names_[n_] = {0};                                                           \
    char *save_ = NULL;                                                                     \
    int i_ = 0;                                                                             \
    for (char *tok_ = strtok_r(list_, ", ", &save_); tok_ && i_ < n_;                       \
         tok_ = strtok_r(NULL, ", ", &save_))                                               \
      names_[i_++] = tok_;                                                                  \
    return cf_test_run(names_, fns, n_, argc, argv);                                        \
  }

#endif /* CF_TEST_H */
