/* fuzz_backend.h: a cheap deterministic backend for the UCI fuzz target,
 * added to the registry as a test double (priority < 0: chosen by name
 * only, never the default) through cf_backend_set_test_double. It lives
 * in the tests, never in the product's registry.
 *
 *     cf_fuzz_backend_register();   // before any engine is created
 *     setoption name Backend value fuzz
 */
#ifndef CF_FUZZ_BACKEND_H
#define CF_FUZZ_BACKEND_H

#include "backends/cf_backend.h"

#define CF_FUZZ_BACKEND "fuzz"

/* Builds the descriptor (once) and lists it in the registry; returns it. */
const cf_backend_desc *cf_fuzz_backend_register(void);

#endif /* CF_FUZZ_BACKEND_H */
