/* analyse_modes.h: the modes of `cformer analyse` beside the plain run:
 * --serve (a Dask worker's resident process) and --emit-units (the Dask
 * driver's reader), in analyse_serve.c, and the hand-over to the driver
 * (analyse_dask.c). Each returns the exit status. */
#ifndef ANALYSE_MODES_H
#define ANALYSE_MODES_H

#include "tools/analyse/analyse_args.h"

int analyse_serve(const analyse_args *a);
int analyse_emit_units(const analyse_args *a);
int analyse_dask(const analyse_args *a, const char *argv0);

#endif /* ANALYSE_MODES_H */
