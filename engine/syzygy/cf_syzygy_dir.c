/* cf_syzygy_dir.c: lists and checks the table files of one directory. */
#include "engine/syzygy/cf_syzygy_dir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/syzygy/cf_syzygy.h"
#include "engine/syzygy/cf_syzygy_file.h"

void cf_syzygy_names_free(cf_syzygy_names *names) {
  free(names->stems);
  free(names->kinds);
  memset(names, 0, sizeof *names);
}

static cf_status names_add(cf_syzygy_names *names, const char *stem, int kind_bits, cf_error *err) {
  for (int i = 0; i < names->count; i++)
    if (strcmp(names->stems[i], stem) == 0) {
      names->kinds[i] |= (unsigned char)kind_bits;
      return CF_OK;
    }
  if (names->count == names->capacity) {
    int cap = names->capacity ? 2 * names->capacity : 64;
    char(*stems)[16] = realloc(names->stems, (size_t)cap * sizeof *stems);
    if (stems) names->stems = stems;
    unsigned char *kinds = realloc(names->kinds, (size_t)cap);
    if (kinds) names->kinds = kinds;
    if (!stems || !kinds) return cf_error_set(err, CF_ERR_NOMEM, "out of memory listing tables");
    names->capacity = cap;
  }
  snprintf(names->stems[names->count], sizeof names->stems[0], "%s", stem);
  names->kinds[names->count++] = (unsigned char)kind_bits;
  return CF_OK;
}

cf_status cf_syzygy_names_merge(cf_syzygy_names *into, const cf_syzygy_names *from, cf_error *err) {
  for (int i = 0; i < from->count; i++) CF_TRY(names_add(into, from->stems[i], from->kinds[i], err));
  return CF_OK;
}

cf_status cf_syzygy_dir_check(const char *dir, cf_syzygy_names *names, cf_error *err) {
  cf_syzygy_names_free(names);
  struct stat sb;
  if (stat(dir, &sb) != 0)
    return cf_error_set(err, CF_ERR_IO, "Syzygy directory '%s': %s", dir, strerror(errno));
  if (!S_ISDIR(sb.st_mode))
    return cf_error_set(err, CF_ERR_IO, "Syzygy directory '%s' is not a directory", dir);
  DIR *d = opendir(dir);
  if (!d) return cf_error_set(err, CF_ERR_IO, "Syzygy directory '%s': %s", dir, strerror(errno));
  cf_status st = CF_OK;
  int wdl = 0;
  struct dirent *e;
  while (st == CF_OK && (e = readdir(d)) != NULL) {
    if (!cf_syzygy_is_table_name(e->d_name)) continue;
    char path[CF_SYZYGY_PATH_MAX + 256];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path) {
      st = cf_error_set(err, CF_ERR_ARG, "Syzygy directory '%s': path too long", dir);
      break;
    }
    cf_syzygy_material mat;
    cf_syzygy_kind kind;
    st = cf_syzygy_check_file(path, e->d_name, &mat, &kind, err);
    if (st != CF_OK) break;
    char stem[16];
    snprintf(stem, sizeof stem, "%.*s", (int)(strlen(e->d_name) - 5), e->d_name);
    st = names_add(names, stem, kind == CF_SYZYGY_WDL ? 1 : 2, err);
    wdl += kind == CF_SYZYGY_WDL;
  }
  closedir(d);
  if (st == CF_OK && wdl == 0)
    st = cf_error_set(err, CF_ERR_IO, "Syzygy directory '%s' holds no WDL tables (.rtbw)", dir);
  if (st != CF_OK) cf_syzygy_names_free(names);
  return st;
}
