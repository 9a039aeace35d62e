/* cf_passive_omp.c: see cf_passive_omp.h. */
#include "tools/cf_passive_omp.h"

#include <stdlib.h>
#include <unistd.h>

void cf_passive_omp_reexec(char **argv) {
  /* The user's choice (or the first run's): GOMP_SPINCOUNT, libgomp's own
   * knob, overrides the policy's spin count. */
  if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  execv("/proc/self/exe", argv);
  /* No /proc (or no exec): go on with libgomp's default. */
}
