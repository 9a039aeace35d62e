/* test_cpu_kernels.c: how the CPU backends pick their kernel set
 * (backends/cpu/cf_cpu_dispatch.c). Without CFORMER_CPU_KERNELS the fastest
 * set this CPU runs is chosen; with it, that set or a clear refusal at
 * backend creation (an unknown name, a set this CPU cannot run), never a
 * crash later. Every compiled-in backend with a variant slot (the CPU
 * ones) is tried. Sets the variable itself, so it ignores the caller's. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "tests/backends/cf_kernel_sets.h"
#include "tests/cf_test.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static const char *const ENV = "CFORMER_CPU_KERNELS";

/* True if this CPU runs the avx2 set: the same features the dispatch
 * checks, asked independently. */
static inline bool cpu_has_avx2_set(void) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax, ebx, ecx, edx;
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C);
#else
  return false;
#endif
}

/* True if this CPU and OS run the avx512 set: AVX-512 F/DQ/BW/VL and FMA,
 * and the OS saving the zmm state. Asked through the compiler's builtins
 * (which read XCR0 too), not the dispatch's own CPUID code. */
static inline bool cpu_has_avx512_set(void) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

/* True if the CPU has the AVX-512 features (CPUID) but the OS does not
 * save the zmm state, so the set must be refused for the OS's sake. */
static inline bool cpu_has_avx512_features_only(void) {
#if defined(__x86_64__)
  unsigned eax, ebx = 0, ecx, edx;
  if (__get_cpuid_max(0, NULL) < 7) return false;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  const unsigned want = bit_AVX512F | bit_AVX512DQ | bit_AVX512BW | bit_AVX512VL;
  return (ebx & want) == want && !cpu_has_avx512_set();
#else
  return false;
#endif
}

/* The set the dispatch must pick on its own: the fastest built and
 * runnable, wasm (the WebAssembly build's, always runnable there) >
 * avx512 > avx2 > portable. */
static const char *expected_auto(void) {
#ifdef CF_CPU_HAVE_WASM
  return "wasm";
#endif
#ifdef CF_CPU_HAVE_AVX512
  if (cpu_has_avx512_set()) return "avx512";
#endif
#ifdef CF_CPU_HAVE_AVX2
  if (cpu_has_avx2_set()) return "avx2";
#endif
  return "portable";
}

/* True if set `name` is built and this CPU runs it. */
static bool runnable(const char *name) {
#ifdef CF_CPU_HAVE_WASM
  if (strcmp(name, "wasm") == 0) return true;
#endif
#ifdef CF_CPU_HAVE_AVX512
  if (strcmp(name, "avx512") == 0) return cpu_has_avx512_set();
#endif
#ifdef CF_CPU_HAVE_AVX2
  if (strcmp(name, "avx2") == 0) return cpu_has_avx2_set();
#endif
  return strcmp(name, "portable") == 0;
}

/* True if set `name` is compiled into this build. */
static bool built(const char *name) {
#ifdef CF_CPU_HAVE_WASM
  if (strcmp(name, "wasm") == 0) return true;
#endif
#ifdef CF_CPU_HAVE_AVX512
  if (strcmp(name, "avx512") == 0) return true;
#endif
#ifdef CF_CPU_HAVE_AVX2
  if (strcmp(name, "avx2") == 0) return true;
#endif
  return strcmp(name, "portable") == 0;
}

/* Creates backend d with CFORMER_CPU_KERNELS = value (NULL: unset). */
static cf_status create_with(const cf_backend_desc *d, const char *value, cf_backend **be,
                             cf_error *err) {
  if (value) setenv(ENV, value, 1);
  else unsetenv(ENV);
  cf_backend_config cfg = {.max_batch = 1};
  cf_error_clear(err);
  return cf_backend_create(d->name, &cfg, be, err);
}

/* Calls fn for every compiled-in backend that has kernel sets; fails if
 * there is none (the test is only built with a CPU backend). */
static void each_cpu_backend(cf_test *t, void (*fn)(cf_test *t, const cf_backend_desc *d)) {
  int seen = 0;
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    if (d->priority < 0 || !d->iface->variant) continue;
    fn(t, d);
    seen++;
  }
  CHECK(seen > 0);
}

static void auto_choice(cf_test *t, const cf_backend_desc *d) {
  cf_backend *be = NULL;
  cf_error err;
  for (int unset = 0; unset < 2; unset++) { /* unset and "" both mean: choose */
    if (!CHECK_INT_EQ(create_with(d, unset ? NULL : "", &be, &err), CF_OK)) {
      fprintf(stderr, "%s\n", err.msg);
      continue;
    }
    char set[64];
    CHECK_STR_EQ(variant_set(cf_backend_variant(be), set, sizeof set), expected_auto());
    /* openblas also names OpenBLAS's own kernels (docs/BACKENDS.md). */
    if (strcmp(d->name, "openblas") == 0) CHECK_STR_CONTAINS(cf_backend_variant(be), ", OpenBLAS ");
    cf_backend_free(be);
  }
}

static void test_default_is_fastest_the_cpu_runs(cf_test *t) { each_cpu_backend(t, auto_choice); }

static void forced_portable(cf_test *t, const cf_backend_desc *d) {
  cf_backend *be = NULL;
  cf_error err;
  if (!CHECK_INT_EQ(create_with(d, "portable", &be, &err), CF_OK)) {
    fprintf(stderr, "%s\n", err.msg);
    return;
  }
  char set[64];
  CHECK_STR_EQ(variant_set(cf_backend_variant(be), set, sizeof set), "portable");
  cf_backend_free(be);
}

static void test_portable_can_be_forced(cf_test *t) { each_cpu_backend(t, forced_portable); }

/* A set forced: runs where the CPU has it, else a refusal naming what is
 * missing (or, where the set is not compiled for the target, saying so). */
static void forced_set(cf_test *t, const cf_backend_desc *d, const char *name,
                       const char *feature) {
  cf_backend *be = NULL;
  cf_error err;
  cf_status st = create_with(d, name, &be, &err);
  if (runnable(name)) {
    char set[64];
    if (CHECK_INT_EQ(st, CF_OK))
      CHECK_STR_EQ(variant_set(cf_backend_variant(be), set, sizeof set), name);
    else fprintf(stderr, "%s\n", err.msg);
    cf_backend_free(be);
    return;
  }
  CHECK_INT_EQ(st, CF_ERR_UNSUPPORTED);
  CHECK(be == NULL);
  char want[64];
  snprintf(want, sizeof want, "CFORMER_CPU_KERNELS=%s", name);
  CHECK_STR_CONTAINS(err.msg, want);
  if (built(name)) {
    CHECK_STR_CONTAINS(err.msg, "this CPU lacks");
    CHECK_STR_CONTAINS(err.msg, feature); /* names a missing feature */
  } else {
    CHECK_STR_CONTAINS(err.msg, "not built for this target");
  }
  printf("  %s refused on this machine, as it should be: %s\n", name, err.msg);
}

static void forced_avx2(cf_test *t, const cf_backend_desc *d) {
  forced_set(t, d, "avx2", "avx2");
}

static void test_avx2_forced_runs_or_is_refused(cf_test *t) { each_cpu_backend(t, forced_avx2); }

/* Refused, the message names at least one AVX-512 feature (or the OS's
 * missing zmm support, which also says "zmm"): "avx512" or "zmm". */
static void forced_avx512(cf_test *t, const cf_backend_desc *d) {
  forced_set(t, d, "avx512", cpu_has_avx512_features_only() ? "zmm" : "avx512");
}

static void test_avx512_forced_runs_or_is_refused(cf_test *t) {
  each_cpu_backend(t, forced_avx512);
}

static void bogus(cf_test *t, const cf_backend_desc *d) {
  const char *values[] = {"bogus", "AVX2", "avx", "portable,avx2", "avx512f", "AVX512"};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    cf_backend *be = (cf_backend *)1;
    cf_error err;
    CHECK_INT_EQ(create_with(d, values[i], &be, &err), CF_ERR_ARG);
    CHECK(be == NULL);
    char want[64];
    snprintf(want, sizeof want, "CFORMER_CPU_KERNELS=%s", values[i]);
    CHECK_STR_CONTAINS(err.msg, want);
    CHECK_STR_CONTAINS(err.msg, d->name); /* which backend refused */
    CHECK_STR_CONTAINS(err.msg, "unknown CPU kernel set");
    CHECK_STR_CONTAINS(err.msg, "portable"); /* lists the known ones */
    CHECK_STR_CONTAINS(err.msg, "avx2");
    CHECK_STR_CONTAINS(err.msg, "avx512");
  }
}

static void test_bogus_value_is_refused(cf_test *t) { each_cpu_backend(t, bogus); }

/* Backends without kernel sets ignore the variable. */
static void test_ref_ignores_the_variable(cf_test *t) {
  setenv(ENV, "bogus", 1);
  cf_backend_config cfg = {.max_batch = 1};
  cf_backend *be = NULL;
  cf_error err = {0};
  CHECK_INT_EQ(cf_backend_create("ref", &cfg, &be, &err), CF_OK);
  CHECK(be && cf_backend_variant(be) == NULL);
  cf_backend_free(be);
  unsetenv(ENV);
}

CF_TEST_MAIN(test_default_is_fastest_the_cpu_runs, test_portable_can_be_forced,
             test_avx2_forced_runs_or_is_refused, test_avx512_forced_runs_or_is_refused,
             test_bogus_value_is_refused,
             test_ref_ignores_the_variable)
