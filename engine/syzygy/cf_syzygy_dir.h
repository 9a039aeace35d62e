/* cf_syzygy_dir.h: one SyzygyPath directory, checked file by file.
 *
 * A directory passes when it exists, can be listed, holds at least one WDL
 * table, and every table file in it passes cf_syzygy_check_file. Files that
 * are not tables (.rtbw/.rtbz) are ignored, as the prober ignores them. */
#ifndef CF_SYZYGY_DIR_H
#define CF_SYZYGY_DIR_H

#include "common/cf_status.h"

/* The tables a directory holds, by name stem ("KRvKP"), each once. */
typedef struct cf_syzygy_names {
  char (*stems)[16];
  unsigned char *kinds; /* bit 0: WDL present, bit 1: DTZ present */
  int count, capacity;
} cf_syzygy_names;

void cf_syzygy_names_free(cf_syzygy_names *names);

/* Adds the names of `from` to `into` (a stem already there keeps its first
 * directory's files, as the prober does). */
cf_status cf_syzygy_names_merge(cf_syzygy_names *into, const cf_syzygy_names *from, cf_error *err);

/* Checks directory `dir` and lists its tables in *names (emptied first).
 * On failure names the directory and the first bad file. */
cf_status cf_syzygy_dir_check(const char *dir, cf_syzygy_names *names, cf_error *err);

#endif /* CF_SYZYGY_DIR_H */
