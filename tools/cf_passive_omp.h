/* cf_passive_omp.h: OpenMP threads that sleep while they wait.
 *
 * The CPU backends (oneDNN, and the cpu backend's attention and row ops)
 * run on libgomp when a backend's own threads=N asks for more than one
 * thread. By default libgomp's idle threads spin for a while at the end of
 * every parallel region, taking a core that a competing process (or the
 * engine's other lane, net/cf_net_lanes.h) needs; on a busy machine two
 * spinning threads can run slower than one. libgomp reads OMP_WAIT_POLICY
 * once, when it is loaded, before main, so setting it from main is too
 * late: when the variable is unset, the binary sets OMP_WAIT_POLICY=passive
 * and executes itself again, once. A user's own OMP_WAIT_POLICY (active,
 * for a machine given to the engine alone) or GOMP_SPINCOUNT is kept. */
#ifndef CF_PASSIVE_OMP_H
#define CF_PASSIVE_OMP_H

/* Re-executes the program (/proc/self/exe, same arguments) with
 * OMP_WAIT_POLICY=passive unless it or GOMP_SPINCOUNT is set; returns only
 * when one was set already or the re-execution failed (then nothing changed but the
 * variable, which this process's libgomp no longer reads). */
void cf_passive_omp_reexec(char **argv);

#endif /* CF_PASSIVE_OMP_H */
