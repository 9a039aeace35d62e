/* bench_peak_cache.c: see bench_peak_cache.h. */
#define _DEFAULT_SOURCE 1 /* gethostname */
#include "tools/bench/bench_peak_cache.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CF_VERSION
#define CF_VERSION "unknown"
#endif

#define MAGIC "cformer-bench-peaks 1"

static void cpu_model(char *out, size_t size) {
  snprintf(out, size, "?");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) != 0) continue;
    const char *v = strchr(line, ':');
    if (v) snprintf(out, size, "%.*s", (int)strcspn(v + 2, "\n"), v + 2);
    break;
  }
  fclose(f);
}

void bench_peak_cache_key(char *out, size_t size) {
  char host[256] = "?", cpu[256], exe[1024] = "?";
  if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "?");
  host[sizeof host - 1] = 0;
  cpu_model(cpu, sizeof cpu);
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 1] = 0;
  struct stat st = {0};
  stat("/proc/self/exe", &st);
  const char *isa = getenv("ONEDNN_MAX_CPU_ISA"), *omp = getenv("OMP_NUM_THREADS");
  snprintf(out, size, "host=%s; cpu=%s; cpus=%ld; isa=%s; omp=%s; build=%s %s %lld %lld", host,
           cpu, sysconf(_SC_NPROCESSORS_ONLN), isa ? isa : "-", omp ? omp : "-", CF_VERSION, exe,
           (long long)st.st_size, (long long)st.st_mtime);
}

/* FNV-1a of s: the build's part of the file name, so builds keep their own. */
static uint64_t hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

bool bench_peak_cache_path(int d_model, char *out, size_t size) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  char dir[4096];
  if (xdg && *xdg) snprintf(dir, sizeof dir, "%s/cformer", xdg);
  else if (home && *home) snprintf(dir, sizeof dir, "%s/.cache/cformer", home);
  else return false;
  char exe[1024] = "?";
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 1] = 0;
  return (size_t)snprintf(out, size, "%s/bench-peaks-%016llx-d%d.txt", dir,
                          (unsigned long long)hash(exe), d_model) < size;
}

/* ---- the file: "name values..." lines, notes to the end of theirs ---- */

static void write_peaks(FILE *f, const char *key, const bench_peaks *p) {
  const bench_sgemm *s = &p->sgemm;
  fprintf(f, "%s\nkey %s\nmeasured_at %lld\n", MAGIC, key, (long long)p->measured_at);
  fprintf(f, "sgemm %d %d %d %.17g %.17g\nsgemm_note %s\n", s->measured, s->n, s->threads,
          s->gflops_1, s->gflops_all, s->note);
  for (int i = 0; i < BENCH_PEAK_PRECISIONS; i++) {
    const bench_matmul_peak *k = &p->peaks[i];
    fprintf(f, "peak %d %d %d %.17g %.17g %d\npeak_note %s\n", (int)k->precision, k->measured,
            k->threads, k->gflops_1, k->gflops_all, k->n_shapes, k->note);
    for (int j = 0; j < k->n_shapes; j++) {
      const bench_peak_shape *h = &k->shapes[j];
      fprintf(f, "shape %d %d %d %.17g %.17g %s\n", h->m, h->k, h->n, h->gflops_1, h->gflops_all,
              h->method);
    }
  }
  fputs("end\n", f);
}

/* The next line without its newline into line; false at the end. */
static bool next_line(FILE *f, char *line, size_t size) {
  if (!fgets(line, (int)size, f)) return false;
  line[strcspn(line, "\n")] = 0;
  return true;
}

/* The text after "name " on the next line, or NULL. */
static const char *field(FILE *f, char *line, size_t size, const char *name) {
  if (!next_line(f, line, size)) return NULL;
  size_t n = strlen(name);
  return strncmp(line, name, n) == 0 && line[n] == ' ' ? line + n + 1 : NULL;
}

/* A note, cut to fit as it was when written. */
static void copy_note(char *dst, size_t size, const char *src) {
  size_t n = strnlen(src, size - 1);
  memcpy(dst, src, n);
  dst[n] = 0;
}

/* The values after the key; false at the first line that is not right. */
static bool read_values(FILE *f, bench_peaks *p, int *bad_line) {
  char line[1024];
  const char *v;
  int at = 3, measured;
  long long when;
  bench_sgemm *s = &p->sgemm;
  *bad_line = at;
  if (!(v = field(f, line, sizeof line, "measured_at")) || sscanf(v, "%lld", &when) != 1)
    return false;
  p->measured_at = (time_t)when;
  *bad_line = ++at;
  if (!(v = field(f, line, sizeof line, "sgemm")) ||
      sscanf(v, "%d %d %d %lf %lf", &measured, &s->n, &s->threads, &s->gflops_1,
             &s->gflops_all) != 5)
    return false;
  s->measured = measured != 0;
  *bad_line = ++at;
  if (!(v = field(f, line, sizeof line, "sgemm_note"))) return false;
  copy_note(s->note, sizeof s->note, v);
  for (int i = 0; i < BENCH_PEAK_PRECISIONS; i++) {
    bench_matmul_peak *k = &p->peaks[i];
    int precision;
    *bad_line = ++at;
    if (!(v = field(f, line, sizeof line, "peak")) ||
        sscanf(v, "%d %d %d %lf %lf %d", &precision, &measured, &k->threads, &k->gflops_1,
               &k->gflops_all, &k->n_shapes) != 6 ||
        precision != (int)bench_peak_precision_at(i) || k->n_shapes < 0 ||
        k->n_shapes > BENCH_PEAK_SHAPES)
      return false;
    k->precision = (cf_precision)precision;
    k->measured = measured != 0;
    *bad_line = ++at;
    if (!(v = field(f, line, sizeof line, "peak_note"))) return false;
    copy_note(k->note, sizeof k->note, v);
    for (int j = 0; j < k->n_shapes; j++) {
      bench_peak_shape *h = &k->shapes[j];
      int used = 0;
      *bad_line = ++at;
      if (!(v = field(f, line, sizeof line, "shape")) ||
          sscanf(v, "%d %d %d %lf %lf %n", &h->m, &h->k, &h->n, &h->gflops_1, &h->gflops_all,
                 &used) != 5)
        return false;
      copy_note(h->method, sizeof h->method, v + used);
    }
  }
  *bad_line = ++at;
  return next_line(f, line, sizeof line) && strcmp(line, "end") == 0 &&
         !next_line(f, line, sizeof line);
}

bench_peak_cache_status bench_peak_cache_read(const char *path, const char *key, bench_peaks *p,
                                              char *why, size_t why_size) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(why, why_size, "%s: %s", path, strerror(errno));
    return BENCH_PEAKS_MISSING;
  }
  char line[1024];
  const char *v;
  bench_peak_cache_status st = BENCH_PEAKS_CACHED;
  int bad_line = 1;
  memset(p, 0, sizeof *p);
  if (!next_line(f, line, sizeof line) || strcmp(line, MAGIC) != 0) {
    st = BENCH_PEAKS_CORRUPT;
  } else if (!(v = field(f, line, sizeof line, "key"))) {
    bad_line = 2;
    st = BENCH_PEAKS_CORRUPT;
  } else if (strcmp(v, key) != 0) {
    snprintf(why, why_size, "%s holds the peaks of another machine or build (%.300s)", path, v);
    st = BENCH_PEAKS_STALE;
  } else if (!read_values(f, p, &bad_line)) {
    st = BENCH_PEAKS_CORRUPT;
  }
  if (st == BENCH_PEAKS_CORRUPT) snprintf(why, why_size, "%s: line %d is not right", path, bad_line);
  fclose(f);
  return st;
}

static void make_dirs(const char *path) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  for (char *c = dir + 1; *c; c++) {
    if (*c != '/') continue;
    *c = 0;
    mkdir(dir, 0755); /* EEXIST and the rest: the open below says what failed */
    *c = '/';
  }
}

cf_status bench_peak_cache_write(const char *path, const char *key, const bench_peaks *p,
                                 cf_error *err) {
  char tmp[4200];
  if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= sizeof tmp)
    return cf_error_set(err, CF_ERR_IO, "cannot write '%s': the path is too long", path);
  make_dirs(path);
  FILE *f = fopen(tmp, "w");
  if (!f) return cf_error_set(err, CF_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
  write_peaks(f, key, p);
  const bool ok = !ferror(f);
  if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
    cf_error_set(err, CF_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    remove(tmp);
    return err->status;
  }
  return CF_OK;
}
