/* bench_weights_load: load time and peak RSS of cf_weights_load_file
 * (test-only tool).
 *
 *   bench_weights_load FILE
 *
 * Prints the wall time of one load, the process's peak RSS (getrusage
 * ru_maxrss, which includes the ~1-2 MB the process holds before loading),
 * the decoded float32 size and their ratio; the weights issue requires the
 * ratio to stay below 2.5. Run it once per file: the peak is per process. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "weights/cf_weights.h"

static double max_rss_mb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024.0; /* Linux: kilobytes */
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: bench_weights_load FILE\n");
    return 2;
  }
  struct stat sb;
  if (stat(argv[1], &sb) != 0) {
    perror(argv[1]);
    return 1;
  }
  const double rss_before = max_rss_mb();
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  cf_weights *w = NULL;
  cf_error err;
  cf_status st = cf_weights_load_file(argv[1], NULL, &w, &err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (st != CF_OK) {
    fprintf(stderr, "bench_weights_load: %s\n", err.msg);
    return 1;
  }
  const double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  const double rss = max_rss_mb();
  const double decoded = (double)w->param_count * 4.0 / (1024.0 * 1024.0);
  unsigned enc = 0;
  for (unsigned e = 1; e <= 4; e++)
    if (w->encodings_used & (1u << e)) enc = e;
  printf("%s: %.1f MiB on disk, %s, %d layers d %d heads %d dff %d, %zu params\n", argv[1],
         (double)sb.st_size / (1024.0 * 1024.0), cf_encoding_name((cf_encoding)enc), w->arch.layers,
         w->arch.d, w->arch.heads, w->arch.dff, w->param_count);
  printf("  load %.3f s; peak RSS %.1f MiB (%.1f MiB before loading); decoded float32 %.1f MiB; "
         "peak/decoded %.2f\n",
         secs, rss, rss_before, decoded, rss / decoded);
  cf_weights_free(w);
  return 0;
}
