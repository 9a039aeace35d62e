/* cf_syzygy_off.c: the backend of a build without libfathom-dev (meson
 * option syzygy=disabled, or the library not found): loading says so, and
 * no position is ever in the tables. */
#include "engine/syzygy/cf_syzygy.h"
#include "engine/syzygy/cf_syzygy_backend.h"

int cf_syzygy_backend_available(void) { return 0; }

cf_status cf_syzygy_backend_open(const char *paths, cf_error *err) {
  if (!paths[0]) return CF_OK;
  return cf_error_set(err, CF_ERR_UNSUPPORTED, "this build reads no Syzygy tables");
}

int cf_syzygy_backend_largest(void) { return 0; }

int cf_syzygy_probe_wdl(const cf_position *pos, cf_syzygy_wdl *wdl) {
  (void)pos, (void)wdl;
  return 0;
}

cf_syzygy_root cf_syzygy_root_probe(const cf_position *pos, int has_repeated, cf_movelist *safe,
                                    cf_syzygy_wdl *result) {
  (void)result;
  return cf_syzygy_root_filter(pos, has_repeated, safe);
}

cf_syzygy_root cf_syzygy_root_filter(const cf_position *pos, int has_repeated, cf_movelist *safe) {
  (void)pos, (void)has_repeated;
  safe->count = 0;
  return CF_SYZYGY_ROOT_NONE;
}
