/* analyse_run.h: one `cformer analyse` pass over an input: units in,
 * records out, through the engine, with warnings for bad units, progress,
 * and skipping what an earlier run already wrote (--resume). Used by the
 * command itself and by its Dask worker mode (--serve), so both produce
 * the same records. */
#ifndef ANALYSE_RUN_H
#define ANALYSE_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "common/cf_status.h"
#include "net/cf_net.h"
#include "tools/analyse/analyse_engine.h"
#include "tools/analyse/analyse_resume.h"
#include "tools/analyse/analyse_units.h"

typedef struct analyse_run_config {
  const char *input;       /* path or "-" */
  analyse_format format;
  const char *source_name; /* the file name records carry */
  analyse_output_kind out_kind;
  FILE *out;
  const char *agent_name;  /* for the records; NULL net-only */
  long skip;               /* records (JSONL, CSV) or games (PGN) already written */
  long shard_size;         /* good units per shard: no network batch crosses a shard */
  FILE *warn;              /* bad units are reported here, one line each */
  bool progress;           /* rate and ETA lines on warn */
  const char *prog;        /* leads every message ("cformer analyse") */
} analyse_run_config;

typedef struct analyse_run_stats {
  long units, bad_units, positions, evals;
  double seconds;
} analyse_run_stats;

cf_status analyse_run(const analyse_run_config *c, cf_net *net, const analyse_engine_options *eo,
                      analyse_run_stats *stats, cf_error *err);

#endif /* ANALYSE_RUN_H */
