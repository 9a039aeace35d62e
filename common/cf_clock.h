/* cf_clock.h: the one monotonic clock, in seconds. Every deadline in
 * cformer (the search's, the agents', the UCI engine's) is a value of this
 * clock, so they compare with each other; it lives here so that any layer
 * can read the time without reaching up to the one that owns a deadline. */
#ifndef CF_CLOCK_H
#define CF_CLOCK_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC): only
 * differences mean anything. */
double cf_clock_now(void);

/* CPU time the calling thread has used, in seconds
 * (CLOCK_THREAD_CPUTIME_ID): only differences on one thread mean anything.
 * Time the thread spends blocked (waiting for other threads or a device)
 * does not count. */
double cf_clock_thread_cpu(void);

#endif /* CF_CLOCK_H */
