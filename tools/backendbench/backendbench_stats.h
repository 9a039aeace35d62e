/* backendbench_stats.h: the figures `cformer backendbench` prints for one
 * batch size, in Lc0's `backendbench` CSV layout (docs/BENCH.md), and the
 * --clippy minibatch-size advice. */
#ifndef BACKENDBENCH_STATS_H
#define BACKENDBENCH_STATS_H

#include <stdio.h>

/* Lc0's CSV header line (no newline). */
#define BACKENDBENCH_HEADER \
  "size, mean nps, mean ms,   sdev,     cv, max nps,  median, min nps, first max, first mean"

typedef struct backendbench_row {
  int size;
  double mean_nps, mean_ms, sdev_ms, cv, max_nps, median_nps, min_nps;
  double first_ms; /* the first call of the size, untimed in the rest */
} backendbench_row;

/* The row of one size from the seconds between consecutive call ends
 * (n >= 1; sorted in place) and the first call's seconds. */
void backendbench_row_of(int size, double *seconds, int n, double first_seconds,
                         backendbench_row *out);

/* The row in Lc0's column widths and precisions, with a newline. */
void backendbench_row_print(const backendbench_row *r, FILE *out);

/* --clippy: the best sizes so far for three time controls. A larger size
 * is preferred once its nodes/s gain over the best outweighs a threshold
 * that shrinks with the nodes a move of that time control searches. */
typedef struct backendbench_clippy {
  int best[3];       /* 3 min, 15 s, 1 s per move */
  double best_nps[3];
} backendbench_clippy;

void backendbench_clippy_init(backendbench_clippy *c);
void backendbench_clippy_add(backendbench_clippy *c, const backendbench_row *r);
void backendbench_clippy_print(const backendbench_clippy *c, FILE *out);

#endif /* BACKENDBENCH_STATS_H */
