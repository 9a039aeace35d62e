/* cf_startup_env.h: the environment the libraries read when they load.
 *
 * Some libraries read a variable once, when the process loads them, before
 * main, so setting it from main is too late; when one needs setting, the
 * program sets it and executes itself again, once, before it reads or
 * prints anything. Two such variables:
 *
 * - OMP_WAIT_POLICY=passive. The CPU backends (oneDNN, and the cpu
 *   backend's attention and row ops) run on libgomp when a backend's own
 *   threads=N asks for more than one thread. By default libgomp's idle
 *   threads spin for a while at the end of every parallel region, taking a
 *   core that a competing process (or the engine's other lane,
 *   net/cf_net_lanes.h) needs; on a busy machine two spinning threads can
 *   run slower than one. A user's own OMP_WAIT_POLICY (active, for a
 *   machine given to the engine alone) or GOMP_SPINCOUNT is kept.
 * - what a backend's startup_env asks for (cf_backend_desc.startup_env):
 *   OPENBLAS_CORETYPE where OpenBLAS did not know the CPU and fell back to
 *   its slowest kernels. A user's own value is kept. */
#ifndef CF_STARTUP_ENV_H
#define CF_STARTUP_ENV_H

/* Re-executes the program (/proc/self/exe, same arguments) with the
 * variables above set where they need to be; returns only when none
 * needed setting or the re-execution failed (then nothing changed but the
 * variables, which this process's libraries no longer read). */
void cf_startup_env_reexec(char **argv);

#endif /* CF_STARTUP_ENV_H */
