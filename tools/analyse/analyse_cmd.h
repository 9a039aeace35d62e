/* analyse_cmd.h: what the parts of `cformer analyse` share: the parsed
 * command line, opening the network, and the modes beside the plain run:
 * --serve (a Dask worker's resident process), --emit-units (the Dask
 * driver's reader) and the hand-over to the driver (analyse_dask.c). */
#ifndef ANALYSE_CMD_H
#define ANALYSE_CMD_H

#include <stdbool.h>

#include "tools/analyse/analyse_engine.h"
#include "tools/analyse/analyse_units.h"
#include "weights/cf_weights.h"

typedef struct analyse_args {
  const char *input, *output, *weights, *backend, *backend_opts, *agent, *scheduler;
  const char *source_name;
  int format, out_kind; /* analyse_format, analyse_output_kind */
  int threads, batch, top_k, multipv, workers;
  long nodes, movetime, shard_size;
  bool resume, quiet, serve, emit_units;
  cf_weights_load_options load;
} analyse_args;

cf_status analyse_open_net(const analyse_args *a, cf_net **net, cf_error *err);
analyse_engine_options analyse_engine_options_of(const analyse_args *a);

/* The modes; each returns the exit status. */
int analyse_serve(const analyse_args *a);
int analyse_emit_units(const analyse_args *a);
int analyse_dask(const analyse_args *a, const char *argv0);

#endif /* ANALYSE_CMD_H */
