/* cf_cpu_dispatch.c: which kernel set a CPU backend instance runs.
 *
 * The candidates are listed fastest first, each with a check of the CPU
 * features its translation units were compiled for. Without an override
 * the first one this CPU passes wins (portable always does). The
 * environment variable CFORMER_CPU_KERNELS=<name> forces one set, for
 * tests and for comparing speed; a name this build does not know, or a
 * set this CPU cannot run, fails backend creation with a message, rather
 * than dying on an illegal instruction later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cf_cpu_kernels.h"

#if defined(CF_CPU_HAVE_AVX2) && !(defined(__x86_64__) || defined(__i386__))
#error "CF_CPU_HAVE_AVX2 is for x86 targets only"
#endif
#if defined(CF_CPU_HAVE_WASM) && !defined(__wasm_simd128__)
#error "CF_CPU_HAVE_WASM is for WebAssembly with SIMD128 only"
#endif
#if defined(CF_CPU_HAVE_AVX512) && !defined(__x86_64__)
#error "CF_CPU_HAVE_AVX512 is for x86-64 targets only"
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

typedef struct candidate {
  const cf_cpu_kernels *kernels; /* NULL: not built for this target */
  const char *name;              /* kernels->name, also when not built */
  const char *needs;             /* CPU features it needs, for messages */
  /* Writes the needed features this CPU lacks into missing (comma
   * separated, "" if none); NULL = runs everywhere. */
  void (*lacking)(char *missing, size_t n);
} candidate;

static void append(char *missing, size_t n, const char *feature) {
  size_t len = strlen(missing);
  snprintf(missing + len, n - len, "%s%s", len ? ", " : "", feature);
}

#ifdef CF_CPU_HAVE_AVX2
/* __builtin_cpu_supports checks the CPU and that the OS saves the ymm
 * registers. clang 14 does not know "f16c" there, so F16C is read from
 * CPUID leaf 1 (its ymm state is covered by the AVX2 check). */
static void avx2_lacking(char *missing, size_t n) {
  missing[0] = '\0';
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2")) append(missing, n, "avx2");
  if (!__builtin_cpu_supports("fma")) append(missing, n, "fma");
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_F16C)) append(missing, n, "f16c");
}
#endif

#ifdef CF_CPU_HAVE_AVX512
/* XCR0, the register state the OS saves on a context switch. Plain asm:
 * the _xgetbv intrinsic needs -mxsave, which this baseline file must not
 * have. Call only when CPUID says OSXSAVE. */
static unsigned long long read_xcr0(void) {
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((unsigned long long)hi << 32) | lo;
}

/* The CPU must have AVX-512 F, DQ, BW, VL and FMA (CPUID leaves 1 and 7),
 * and the OS must save the xmm, ymm, opmask and both zmm halves (XCR0 bits
 * 1, 2, 5, 6, 7): a kernel using them on an OS that does not would have
 * its registers clobbered by any context switch, or fault. Read directly
 * rather than through __builtin_cpu_supports, so the OS check is visible
 * here and the same on every compiler. */
static void avx512_lacking(char *missing, size_t n) {
  missing[0] = '\0';
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
    append(missing, n, "cpuid leaf 1");
    return;
  }
  const bool fma = ecx & bit_FMA, osxsave = ecx & bit_OSXSAVE;
  unsigned b7 = 0;
  if (__get_cpuid_max(0, NULL) >= 7) {
    __cpuid_count(7, 0, eax, b7, ecx, edx);
  }
  if (!(b7 & bit_AVX512F)) append(missing, n, "avx512f");
  if (!(b7 & bit_AVX512DQ)) append(missing, n, "avx512dq");
  if (!(b7 & bit_AVX512BW)) append(missing, n, "avx512bw");
  if (!(b7 & bit_AVX512VL)) append(missing, n, "avx512vl");
  if (!fma) append(missing, n, "fma");
  const unsigned long long zmm_state = 0xE6; /* SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM */
  if (!osxsave || (read_xcr0() & zmm_state) != zmm_state)
    append(missing, n, "OS support for the zmm registers (XCR0)");
}
#endif

static const candidate candidates[] = {
#ifdef CF_CPU_HAVE_WASM
    {&cf_cpu_kernels_wasm, "wasm", "WebAssembly SIMD128", NULL},
#else
    {NULL, "wasm", "WebAssembly SIMD128", NULL},
#endif
#ifdef CF_CPU_HAVE_AVX512
    {&cf_cpu_kernels_avx512, "avx512",
     "avx512f, avx512dq, avx512bw, avx512vl, fma and an OS saving the zmm state", avx512_lacking},
#else
    {NULL, "avx512", "avx512f, avx512dq, avx512bw, avx512vl, fma", NULL},
#endif
#ifdef CF_CPU_HAVE_AVX2
    {&cf_cpu_kernels_avx2, "avx2", "avx2, fma, f16c", avx2_lacking},
#else
    {NULL, "avx2", "avx2, fma, f16c", NULL},
#endif
    {&cf_cpu_kernels_portable, "portable", "nothing beyond the target's baseline", NULL},
};
enum { N_CANDIDATES = sizeof candidates / sizeof candidates[0] };

static const char *const ENV = "CFORMER_CPU_KERNELS";

/* Fills missing (see candidate.lacking); true if this CPU runs c. */
static bool runs(const candidate *c, char *missing, size_t n) {
  missing[0] = '\0';
  if (c->lacking) c->lacking(missing, n);
  return missing[0] == '\0';
}

/* The names of the sets this CPU runs, comma separated, into list. */
static void runnable_names(char *list, size_t n) {
  list[0] = '\0';
  for (int i = 0; i < N_CANDIDATES; i++) {
    char missing[160];
    if (candidates[i].kernels && runs(&candidates[i], missing, sizeof missing))
      append(list, n, candidates[i].name);
  }
}

static cf_status forced(const char *want, const cf_cpu_kernels **out, cf_error *err) {
  char known[128] = "";
  for (int i = 0; i < N_CANDIDATES; i++) {
    const candidate *c = &candidates[i];
    if (strcmp(c->name, want) != 0) {
      append(known, sizeof known, c->name);
      continue;
    }
    char usable[128];
    runnable_names(usable, sizeof usable);
    if (!c->kernels)
      return cf_error_set(err, CF_ERR_UNSUPPORTED,
                          "%s=%s: the %s CPU kernels are not built for this target; unset %s "
                          "or set it to one this CPU runs: %s",
                          ENV, want, want, ENV, usable);
    char missing[160];
    if (!runs(c, missing, sizeof missing))
      return cf_error_set(err, CF_ERR_UNSUPPORTED,
                          "%s=%s: this CPU lacks %s (the %s kernels need %s); unset %s or set "
                          "it to one this CPU runs: %s",
                          ENV, want, missing, want, c->needs, ENV, usable);
    *out = c->kernels;
    return CF_OK;
  }
  return cf_error_set(err, CF_ERR_ARG, "%s=%s: unknown CPU kernel set (known: %s)", ENV, want,
                      known);
}

const cf_cpu_attention_bf16_math *cf_cpu_attention_bf16_select(const cf_cpu_kernels *k) {
#if defined(CF_CPU_HAVE_AVX512) && defined(CF_CPU_HAVE_AVX512BF16)
  /* k is the avx512 set only after avx512_lacking passed (zmm state saved
   * by the OS); AVX512_BF16 is CPUID leaf 7 subleaf 1, EAX bit 5. */
  unsigned eax = 0, ebx, ecx, edx;
  if (k == &cf_cpu_kernels_avx512 && __get_cpuid_max(0, NULL) >= 7) {
    __cpuid_count(7, 1, eax, ebx, ecx, edx);
    if (eax & bit_AVX512BF16) return &cf_cpu_attention_bf16_avx512;
  }
#else
  (void)k;
#endif
  return &cf_cpu_attention_bf16_portable;
}

const cf_cpu_attention_int8_math *cf_cpu_attention_int8_select(const cf_cpu_kernels *k) {
  if (k == &cf_cpu_kernels_portable) return &cf_cpu_attention_int8_portable;
#if defined(CF_CPU_HAVE_AVX512) && defined(CF_CPU_HAVE_AVX512VNNI)
  /* As for AVX512_BF16: k is the avx512 set only after avx512_lacking
   * passed; AVX512_VNNI is CPUID leaf 7 subleaf 0, ECX bit 11. */
  unsigned eax, ebx, ecx = 0, edx;
  if (k == &cf_cpu_kernels_avx512 && __get_cpuid_max(0, NULL) >= 7) {
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    if (ecx & bit_AVX512VNNI) return &cf_cpu_attention_int8_avx512;
  }
#endif
  return NULL;
}

cf_status cf_cpu_kernels_select(const cf_cpu_kernels **out, cf_error *err) {
  const char *want = getenv(ENV);
  if (want && *want) return forced(want, out, err);
  for (int i = 0; i < N_CANDIDATES; i++) {
    char missing[160];
    if (candidates[i].kernels && runs(&candidates[i], missing, sizeof missing)) {
      *out = candidates[i].kernels;
      return CF_OK;
    }
  }
  return cf_error_set(err, CF_ERR_INTERNAL, "no CPU kernel set runs here");
}
