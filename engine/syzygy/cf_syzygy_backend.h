/* cf_syzygy_backend.h: the seam between the loader (cf_syzygy_load.c) and
 * the prober behind it: Fathom (cf_syzygy_fathom.c), or nothing in a build
 * without libfathom-dev (cf_syzygy_off.c). The backend file also defines
 * cf_syzygy.h's probes. Internal to engine/syzygy/. */
#ifndef CF_SYZYGY_BACKEND_H
#define CF_SYZYGY_BACKEND_H

#include "common/cf_status.h"

/* Whether a prober is built in. */
int cf_syzygy_backend_available(void);

/* Hands the prober the ':'-separated directories, all already checked;
 * "" drops every table. */
cf_status cf_syzygy_backend_open(const char *paths, cf_error *err);

/* The largest piece count among the tables the prober found (0: none). */
int cf_syzygy_backend_largest(void);

#endif /* CF_SYZYGY_BACKEND_H */
