/* cf_data_path.c: finding the shipped data files (cf_data_path.h). */
#include "tools/data/cf_data_path.h"

#include <libgen.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Set by meson: the install datadir, the build tree's root and the source
 * tree's data/. */
#ifndef CF_INSTALL_DATADIR
#define CF_INSTALL_DATADIR ""
#endif
#ifndef CF_BUILD_ROOT
#define CF_BUILD_ROOT ""
#endif
#ifndef CF_SOURCE_DATADIR
#define CF_SOURCE_DATADIR ""
#endif

#define N_CANDIDATES 3

/* True when path lies inside folder (a prefix match on whole components). */
static bool inside(const char *path, const char *folder) {
  size_t n = strlen(folder);
  return n > 0 && strncmp(path, folder, n) == 0 && (path[n] == '/' || path[n] == 0);
}

/* Fills dirs[] with the candidate folders in lookup order ("" = none): the
 * override; then a binary still in the build tree reads the source tree's
 * data/, any other binary its own prefix's share/cformer and, failing that,
 * the configured one. */
static void candidates(char dirs[N_CANDIDATES][PATH_MAX]) {
  for (int i = 0; i < N_CANDIDATES; i++) dirs[i][0] = 0;
  const char *env = getenv(CF_DATA_DIR_ENV);
  if (env && *env) snprintf(dirs[0], PATH_MAX, "%s", env);
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  self[n > 0 ? n : 0] = 0;
  if (n > 0 && inside(self, CF_BUILD_ROOT)) {
    snprintf(dirs[1], PATH_MAX, "%s", CF_SOURCE_DATADIR);
    return;
  }
  /* dirname may modify its argument; self is our own copy. */
  if (n > 0) snprintf(dirs[1], PATH_MAX, "%s/../share/cformer", dirname(self));
  snprintf(dirs[2], PATH_MAX, "%s", CF_INSTALL_DATADIR);
}

cf_status cf_data_find(const char *name, char *path, size_t cap, cf_error *err) {
  char dirs[N_CANDIDATES][PATH_MAX];
  candidates(dirs);
  for (int i = 0; i < N_CANDIDATES; i++) {
    if (!dirs[i][0]) continue;
    int w = snprintf(path, cap, "%s/%s", dirs[i], name);
    if (w > 0 && (size_t)w < cap && access(path, R_OK) == 0) return CF_OK;
    /* An explicit override that lacks the file is an error, not a reason to
     * quietly read another copy. */
    if (i == 0) {
      return cf_error_set(err, CF_ERR_IO, "data file '%s' not found in %s=%s", name,
                          CF_DATA_DIR_ENV, dirs[0]);
    }
  }
  char tried[1024];
  cf_data_search_path(tried, sizeof tried);
  if (cap) path[0] = 0;
  return cf_error_set(err, CF_ERR_IO,
                      "data file '%s' not found (looked in %s); set %s to the folder that "
                      "holds it (share/cformer of an install, or data/ of the source tree)",
                      name, tried, CF_DATA_DIR_ENV);
}

void cf_data_search_path(char *out, size_t cap) {
  char dirs[N_CANDIDATES][PATH_MAX];
  candidates(dirs);
  size_t len = 0;
  if (cap) out[0] = 0;
  for (int i = 0; i < N_CANDIDATES && len < cap; i++) {
    if (!dirs[i][0]) continue;
    int w = snprintf(out + len, cap - len, "%s%s", len ? ", " : "", dirs[i]);
    if (w < 0) break;
    len += (size_t)w;
  }
}
