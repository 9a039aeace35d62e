/* cf_api_tablebase.c: cformer_set_tablebases over engine/syzygy/. */
#include <stdio.h>
#include <string.h>

#include "engine/syzygy/cf_syzygy.h"
#include "lib/cf_api_internal.h"

cformer_status cformer_set_tablebases(const char *paths, cformer_tablebase_info *out,
                                      cformer_error *err) {
  cf_syzygy_report r;
  cf_status st = cf_syzygy_load(paths ? paths : "", &r);
  if (out) {
    out->wdl_tables = r.wdl_tables;
    out->dtz_tables = r.dtz_tables;
    out->max_pieces = r.max_pieces;
  }
  if (st == CF_OK) return cf_api_ok(err);
  cf_error e;
  e.status = st;
  if (r.error_count > 1)
    snprintf(e.msg, sizeof e.msg, "%.400s (and %d more problems)", r.errors[0], r.error_count - 1);
  else
    snprintf(e.msg, sizeof e.msg, "%s", r.error_count ? r.errors[0] : cf_status_name(st));
  return cf_api_fail(err, st, &e);
}
