/* bench_units.h: numbers as people read them in the table and the chart:
 * 12.8G, 214M, 3.40 ms. */
#ifndef BENCH_UNITS_H
#define BENCH_UNITS_H

#include <stddef.h>

/* v with an SI suffix (k, M, G, T, P) and 3 significant digits: "214M",
 * "12.8G", "950". Writes at most n bytes. */
void bench_si(double v, char *out, size_t n);

/* Seconds as "850 ns", "12.3 us", "4.56 ms", "1.23 s". */
void bench_duration(double seconds, char *out, size_t n);

#endif /* BENCH_UNITS_H */
