/* cf_syzygy_load.c: SyzygyPath in, checked directories to the prober, a
 * report out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/syzygy/cf_syzygy.h"
#include "engine/syzygy/cf_syzygy_backend.h"
#include "engine/syzygy/cf_syzygy_dir.h"

/* Written only by load/unload, which the caller keeps apart from probes. */
static int g_max_pieces;

int cf_syzygy_available(void) { return cf_syzygy_backend_available(); }

int cf_syzygy_max_pieces(void) { return g_max_pieces; }

void cf_syzygy_report_error(cf_syzygy_report *report, const cf_error *err) {
  if (report->error_count < CF_SYZYGY_MESSAGES_MAX)
    snprintf(report->errors[report->error_count], sizeof report->errors[0], "%s", err->msg);
  report->error_count++;
}

void cf_syzygy_unload(void) {
  g_max_pieces = 0;
  if (cf_syzygy_backend_available()) (void)cf_syzygy_backend_open("", NULL);
}

/* Checks each directory of `paths` (a writable copy, split in place),
 * appending the good ones to `good` and their tables to `all`. */
static cf_status check_dirs(char *paths, char *good, size_t good_size, cf_syzygy_names *all,
                            cf_syzygy_report *report) {
  cf_status first = CF_OK;
  for (char *dir = paths, *next; dir; dir = next) {
    next = strchr(dir, ':');
    if (next) *next++ = '\0';
    if (*dir == '\0') continue; /* "a::b" and a trailing ':' name no directory */
    cf_error err;
    cf_syzygy_names names = {0};
    cf_status st = cf_syzygy_dir_check(dir, &names, &err);
    if (st == CF_OK) st = cf_syzygy_names_merge(all, &names, &err);
    cf_syzygy_names_free(&names);
    if (st != CF_OK) {
      cf_syzygy_report_error(report, &err);
      if (first == CF_OK) first = st;
      continue;
    }
    /* The good directories are a subset of `paths`, so they always fit. */
    size_t used = strlen(good), n = strlen(dir);
    if (used + 1 + n < good_size) {
      if (used) good[used++] = ':';
      memcpy(good + used, dir, n + 1);
    }
  }
  return first;
}

cf_status cf_syzygy_load(const char *paths, cf_syzygy_report *report) {
  memset(report, 0, sizeof *report);
  cf_syzygy_unload();
  if (!paths || !*paths || strcmp(paths, "<empty>") == 0) return CF_OK;
  cf_error err;
  size_t len = strlen(paths);
  if (!cf_syzygy_backend_available()) {
    cf_error_set(&err, CF_ERR_UNSUPPORTED,
                 "this build reads no Syzygy tables (built without libfathom-dev)");
  } else if (len > CF_SYZYGY_PATH_MAX) {
    cf_error_set(&err, CF_ERR_ARG, "SyzygyPath is %zu bytes long; at most %d are accepted", len,
                 CF_SYZYGY_PATH_MAX);
  } else {
    char copy[CF_SYZYGY_PATH_MAX + 1], good[CF_SYZYGY_PATH_MAX + 1] = "";
    memcpy(copy, paths, len + 1);
    cf_syzygy_names all = {0};
    cf_status st = check_dirs(copy, good, sizeof good, &all, report);
    for (int i = 0; i < all.count; i++) {
      if (!(all.kinds[i] & 1)) continue; /* a DTZ table is read only beside its WDL table */
      report->wdl_tables++;
      report->dtz_tables += (all.kinds[i] & 2) != 0;
    }
    cf_syzygy_names_free(&all);
    if (*good) {
      cf_status opened = cf_syzygy_backend_open(good, &err);
      if (opened != CF_OK) {
        cf_syzygy_report_error(report, &err);
        report->wdl_tables = report->dtz_tables = 0;
        return opened;
      }
      g_max_pieces = cf_syzygy_backend_largest();
      report->max_pieces = g_max_pieces;
    }
    return st;
  }
  cf_syzygy_report_error(report, &err);
  return err.status;
}
