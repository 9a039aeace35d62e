/* cf_backend_registry.c: the one table of compiled-in backends.
 *
 * Priority is data: the default backend is the available one with the
 * highest priority; test doubles get negative priorities so they are only
 * ever chosen by name. Fast backends (cuda 40 > onednn 30 > openblas 20 >
 * wasm 10 > ref 0) join this table behind the CF_HAVE_* macros backends/meson.build
 * defines; the simulated accelerator (sim, -10) is always there, for
 * testing the search. Keep it sorted by priority. A test may add one double of its
 * own behind them (cf_backend_set_test_double). */
#include "backends/cf_backend.h"
#include "backends/ref/cf_ref_backend.h"
#include "backends/sim/cf_sim_backend.h"
#ifdef CF_HAVE_CUDA
#include "backends/cuda/cf_cuda_backend.h"
#endif
#ifdef CF_HAVE_ONEDNN
#include "backends/onednn/cf_onednn_backend.h"
#endif
#ifdef CF_HAVE_OPENBLAS
#include "backends/openblas/cf_openblas_backend.h"
#endif
#ifdef CF_HAVE_WASM
#include "backends/wasm/cf_wasm_backend.h"
#endif

static const cf_backend_desc *const registry[] = {
#ifdef CF_HAVE_CUDA
    &cf_backend_cuda_desc,
#endif
#ifdef CF_HAVE_ONEDNN
    &cf_backend_onednn_desc,
#endif
#ifdef CF_HAVE_OPENBLAS
    &cf_backend_openblas_desc,
#endif
#ifdef CF_HAVE_WASM
    &cf_backend_wasm_desc,
#endif
    &cf_backend_ref_desc,
    &cf_backend_sim_desc, /* a test double: by name only */
};

enum { N_REGISTERED = (int)(sizeof registry / sizeof registry[0]) };

/* A test's double, listed last (cf_backend_set_test_double); none in the
 * product. */
static const cf_backend_desc *test_double;

void cf_backend_set_test_double(const cf_backend_desc *d) {
  test_double = d && d->priority < 0 ? d : NULL;
}

int cf_backend_count(void) { return N_REGISTERED + (test_double != NULL); }

const cf_backend_desc *cf_backend_at(int i) {
  if (i >= 0 && i < N_REGISTERED) return registry[i];
  return i == N_REGISTERED ? test_double : NULL;
}
