/* cf_clock.c: CLOCK_MONOTONIC as a double. */
#include "common/cf_clock.h"

#include <time.h>

double cf_clock_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
