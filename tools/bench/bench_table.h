/* bench_table.h: the report as the human-readable table `cformer bench`
 * prints by default. */
#ifndef BENCH_TABLE_H
#define BENCH_TABLE_H

#include <stdio.h>

#include "tools/bench/bench_report.h"

void bench_table_write(FILE *out, const bench_report *r);

#endif /* BENCH_TABLE_H */
