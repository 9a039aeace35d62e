/* analyse_args.h: the parsed command line of `cformer analyse`, which its
 * modes share (the plain run, --serve, --emit-units, the Dask hand-over),
 * and what they make from it: the network and the engine's options
 * (analyse_args.c). */
#ifndef ANALYSE_ARGS_H
#define ANALYSE_ARGS_H

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

#endif /* ANALYSE_ARGS_H */
