/* bench_svg.h: the chart of the paper's Fig. 1 axes for this machine: time
 * per move (y) against FLOPs per move (x), both logarithmic, one point per
 * backend and agent with its p10-p90 spread as an error bar. A standalone
 * SVG file any browser opens. */
#ifndef BENCH_SVG_H
#define BENCH_SVG_H

#include <stdio.h>

#include "tools/bench/bench_report.h"

void bench_svg_write(FILE *out, const bench_report *r);

#endif /* BENCH_SVG_H */
