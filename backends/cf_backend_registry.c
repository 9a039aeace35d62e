/* cf_backend_registry.c: the one table of compiled-in backends.
 *
 * Priority is data: the default backend is the available one with the
 * highest priority; test doubles get negative priorities so they are only
 * ever chosen by name. Fast backends (onednn > openblas > ref) join this
 * table behind their meson feature macros. Keep it sorted by priority. */
#include "backends/cf_backend.h"
#include "backends/ref/cf_ref_backend.h"

static const cf_backend_desc *const registry[] = {
    &cf_backend_ref_desc,
};

int cf_backend_count(void) { return (int)(sizeof registry / sizeof registry[0]); }

const cf_backend_desc *cf_backend_at(int i) {
  return i >= 0 && i < cf_backend_count() ? registry[i] : NULL;
}
