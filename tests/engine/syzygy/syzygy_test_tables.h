/* syzygy_test_tables.h: the tablebase tests' common start (header only):
 * skip (77) in a build without the prober, else load data/syzygy/. */
#ifndef SYZYGY_TEST_TABLES_H
#define SYZYGY_TEST_TABLES_H

#include <stdio.h>
#include <stdlib.h>

#include "engine/syzygy/cf_syzygy.h"
#include "tests/cf_test.h"

static inline int syzygy_test_load(cf_test *t) {
  if (!cf_syzygy_available()) {
    printf("skip: this build reads no Syzygy tables (built without libfathom-dev)\n");
    exit(77);
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/syzygy", cf_test_data_dir());
  cf_syzygy_report r;
  return CHECK_INT_EQ(cf_syzygy_load(path, &r), CF_OK) && CHECK_INT_EQ(r.max_pieces, 4);
}

#endif /* SYZYGY_TEST_TABLES_H */
