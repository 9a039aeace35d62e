/* bench_peak_cache.h: the machine's matmul peaks (bench_sgemm.h,
 * bench_matmul_peak.h) measured once and kept per machine and build, so a
 * short `cformer bench` does not spend seconds measuring them again.
 *
 * One text file per build and network width (the projection shapes depend
 * on d_model) under $XDG_CACHE_HOME/cformer/ (else $HOME/.cache/cformer/). It
 * records a key naming the machine (host, CPU model, CPUs online, the
 * ONEDNN_MAX_CPU_ISA and OMP_NUM_THREADS that change what is measured) and
 * the build (version, the binary's path, size and time): a file whose key
 * differs is stale, one that does not parse is corrupt; both are measured
 * again and rewritten (through a temporary file and a rename). */
#ifndef BENCH_PEAK_CACHE_H
#define BENCH_PEAK_CACHE_H

#include <stddef.h>
#include <time.h>

#include "common/cf_status.h"
#include "tools/bench/bench_matmul_peak.h"
#include "tools/bench/bench_sgemm.h"

typedef enum bench_peak_cache_status {
  BENCH_PEAKS_CACHED,  /* read: the values are this machine's and build's */
  BENCH_PEAKS_MISSING, /* no file (or no folder to keep one in) */
  BENCH_PEAKS_STALE,   /* another machine's or build's: why says which */
  BENCH_PEAKS_CORRUPT  /* unreadable: why says where */
} bench_peak_cache_status;

typedef struct bench_peaks {
  bench_sgemm sgemm;
  bench_matmul_peak peaks[BENCH_PEAK_PRECISIONS];
  time_t measured_at;
} bench_peaks;

/* This machine's and build's key (one line). */
void bench_peak_cache_key(char *out, size_t size);

/* The cache file for networks of width d_model; false when there is no
 * folder for it (neither XDG_CACHE_HOME nor HOME). */
bool bench_peak_cache_path(int d_model, char *out, size_t size);

/* Reads path into *p when its key is key. */
bench_peak_cache_status bench_peak_cache_read(const char *path, const char *key, bench_peaks *p,
                                              char *why, size_t why_size);

/* Writes *p under key to path (its folder made as needed). */
cf_status bench_peak_cache_write(const char *path, const char *key, const bench_peaks *p,
                                 cf_error *err);

#endif /* BENCH_PEAK_CACHE_H */
