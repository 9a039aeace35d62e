/* bench_json.h: the report as one JSON object, schema in docs/BENCH.md
 * ("schema": "cformer-bench", "schema_version": BENCH_SCHEMA_VERSION). */
#ifndef BENCH_JSON_H
#define BENCH_JSON_H

#include "tools/bench/bench_report.h"

/* The JSON text (formatted, newline-terminated); the caller frees it. NULL
 * when out of memory. */
char *bench_json_text(const bench_report *r);

#endif /* BENCH_JSON_H */
