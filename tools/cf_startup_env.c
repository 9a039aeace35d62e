/* cf_startup_env.c: see cf_startup_env.h. */
#include "tools/cf_startup_env.h"

#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "backends/cf_backend.h"

void cf_startup_env_reexec(char **argv) {
  bool changed = false;
  /* The user's choice (or the first run's): GOMP_SPINCOUNT, libgomp's own
   * knob, overrides the policy's spin count. */
  if (!getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT"))
    changed |= setenv("OMP_WAIT_POLICY", "passive", 1) == 0;
  /* The backend asks only while its variable is unset, so the second run
   * asks nothing and the program runs at most twice. */
  const char *name = NULL, *value = NULL;
  if (cf_backend_startup_env(&name, &value)) changed |= setenv(name, value, 1) == 0;
  if (!changed) return;
  execv("/proc/self/exe", argv);
  /* No /proc (or no exec): go on as loaded. */
}
