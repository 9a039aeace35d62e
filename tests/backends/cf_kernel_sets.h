/* cf_kernel_sets.h: the CPU kernel sets a test walks, each fetched the
 * way a backend gets it (cf_cpu_kernels_select with CFORMER_CPU_KERNELS
 * forcing it), so the dispatch's CPU checks guard it. */
#ifndef CF_KERNEL_SETS_H
#define CF_KERNEL_SETS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cf_cpu_kernels.h"

static const char *const SETS[] = {"portable", "avx2", "avx512", "wasm"};
enum { N_SETS = sizeof SETS / sizeof SETS[0] };

/* The set named, or NULL (printed) when this CPU or build cannot run it. */
static inline const cf_cpu_kernels *set_named(const char *name) {
  setenv("CFORMER_CPU_KERNELS", name, 1);
  const cf_cpu_kernels *k = NULL;
  cf_error err = {0};
  cf_status st = cf_cpu_kernels_select(&k, &err);
  unsetenv("CFORMER_CPU_KERNELS");
  if (st != CF_OK) {
    printf("  %s: skipped (%s)\n", name, err.msg);
    return NULL;
  }
  return k;
}

/* The kernel set a CPU backend's variant names first: "avx512" of
 * "avx512, OpenBLAS SkylakeX" (openblas adds the library's own kernels),
 * copied into buf; "" for NULL. */
static inline const char *variant_set(const char *variant, char *buf, size_t size) {
  snprintf(buf, size, "%s", variant ? variant : "");
  char *comma = strchr(buf, ',');
  if (comma) *comma = '\0';
  return buf;
}

#endif /* CF_KERNEL_SETS_H */
