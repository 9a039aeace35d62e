/* bench_backends: evaluations per second of every backend (not a test; a
 * benchmark, see docs/BACKENDS.md).
 *
 *   bench_backends NET.pb.gz [--backends a,b] [--batches 1,16,64,256]
 *                  [--threads 1,2] [--seconds S] [--peak]
 *                  [--opts 'A;B'] [--rounds R]
 *
 * For each backend, thread count and batch size it evaluates full batches
 * of random input planes for about S wall seconds (default 2) after one
 * warm-up pass and prints evals/s and the achieved GFLOP/s of the encoder
 * (embedding + layers, where nearly all the work is; heads excluded), by
 * wall time and by process CPU time (x threads: the speed had the threads
 * had their cores to themselves, for machines shared with other work).
 * --peak first measures OpenBLAS sgemm (1024^3) on each thread count: the
 * machine's sgemm peak the GFLOP/s figures compare against.
 * --opts runs each (backend, threads, batch) once per backend option string
 * (';'-separated, "" = none; appended to threads=N), one after the other,
 * and --rounds repeats that R times: A/B comparisons taken side by side,
 * alternating, so a loaded machine's swings hit both alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cf_clock.h"
#include "backends/cf_backend.h"
#include "net/cf_net.h"
#include "weights/cf_weights.h"
#ifdef CF_HAVE_OPENBLAS
#include <cblas.h>
#endif

/* Floating-point operations of one evaluation's encoder (2 per MAC). */
static double encoder_flops(const cf_net_arch *a) {
  double t = 64.0, per_layer = 0.0;
  per_layer += 2 * t * a->d * 3.0 * a->dm;                 /* q, k, v */
  per_layer += 2 * t * a->dm * (double)a->d;               /* output projection */
  per_layer += 2 * t * 2.0 * a->d * a->dff;                /* FFN */
  int rpe = a->rpe_q + a->rpe_k + a->rpe_v;
  per_layer += 2 * t * 64.0 * a->dm * (2 + rpe);           /* q.k, A v, RPE terms */
  return 2 * t * a->emb_inputs * (double)a->d + a->layers * per_layer;
}

/* Parses "1,16,64" into v (at most max); returns the count. */
static int parse_list(const char *s, int *v, int max) {
  int n = 0;
  while (s && *s && n < max) {
    v[n++] = atoi(s);
    s = strchr(s, ',');
    if (s) s++;
  }
  return n;
}

#ifdef CF_HAVE_OPENBLAS
static double cpu_now(void);

/* Best of 5 1024^3 sgemms; *per_cpu gets the same per CPU second x threads. */
static double sgemm_gflops(int threads, double *per_cpu) {
  enum { N = 1024 };
  float *a = calloc((size_t)N * N, sizeof *a), *b = calloc((size_t)N * N, sizeof *b),
        *c = calloc((size_t)N * N, sizeof *c);
  for (size_t i = 0; i < (size_t)N * N; i++) a[i] = b[i] = (float)(i % 7) * 0.1f;
  openblas_set_num_threads(threads);
  double best = 0;
  *per_cpu = 0;
  for (int r = 0; r < 5; r++) {
    double t0 = cf_clock_now(), c0 = cpu_now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, N, N, 1.0f, a, N, b, N, 0.0f, c, N);
    double g = 2.0 * N * N * N / (cf_clock_now() - t0) / 1e9;
    double gc = 2.0 * N * N * N / (cpu_now() - c0) / 1e9 * threads;
    if (g > best) best = g;
    if (gc > *per_cpu) *per_cpu = gc;
  }
  free(a);
  free(b);
  free(c);
  return best;
}
#endif

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bench_one(const cf_weights *w, const char *backend, const char *extra, int threads,
                     int batch, double seconds, double flops) {
  char opts[256];
  snprintf(opts, sizeof opts, "threads=%d%s%s", threads, *extra ? "," : "", extra);
  char label[320]; /* how every line of this run starts */
  snprintf(label, sizeof label, "%-9s threads %d batch %4d%s%s", backend, threads, batch,
           *extra ? " " : "", extra);
  cf_net_options o = {.backend = backend, .backend_options = opts, .max_batch = batch};
  cf_net *net;
  cf_error err = {0};
  if (cf_net_create(w, &o, &net, &err) != CF_OK) {
    printf("%s: %s\n", label, err.msg);
    return 0;
  }
  cf_planes *planes = calloc((size_t)batch, sizeof *planes);
  cf_net_request *req = calloc((size_t)batch, sizeof *req);
  cf_net_output *out = calloc((size_t)batch, sizeof *out);
  unsigned long long x = 88172645463325252ull;
  for (int b = 0; b < batch; b++) {
    for (int p = 0; p < 13 * 8; p++) { /* piece planes: sparse random bitboards */
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      planes[b].mask[p] = x & (x >> 3) & (x >> 5);
      planes[b].value[p] = 1.0f;
    }
    req[b] = (cf_net_request){.planes = &planes[b]};
  }
  int ok = cf_net_eval(net, batch, req, out, &err) == CF_OK; /* warm-up: primitives, tables */
  long long evals = 0;
  double t0 = cf_clock_now(), c0 = cpu_now(), t = 0;
  while (ok && (t = cf_clock_now() - t0) < seconds) {
    ok = cf_net_eval(net, batch, req, out, &err) == CF_OK;
    evals += batch;
  }
  double cpu = cpu_now() - c0;
  /* evals per CPU second x threads: what the run would reach if its
   * threads had the cores to themselves (the machine is often shared). */
  if (ok)
    printf("%s: %8.1f evals/s  %6.1f GFLOP/s | per CPU s x threads: %8.1f evals/s  %6.1f "
           "GFLOP/s\n",
           label, evals / t, evals / t * flops / 1e9, evals / cpu * threads,
           evals / cpu * threads * flops / 1e9);
  else
    printf("%s: %s\n", label, err.msg);
  fflush(stdout);
  cf_net_free(net);
  free(planes);
  free(req);
  free(out);
  return ok;
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0) {
    printf("usage: bench_backends NET.pb.gz [--backends a,b] [--batches 1,16,64,256]\n"
           "                      [--threads 1,2] [--seconds S] [--peak]\n"
           "                      [--opts 'A;B'] [--rounds R]\n");
    return argc < 2 ? 2 : 0;
  }
  const char *backends = NULL;
  int batches[16] = {1, 16, 64, 256}, n_batches = 4, threads[8] = {1, 2}, n_threads = 2;
  double seconds = 2.0;
  int peak = 0, rounds = 1, n_opts = 1;
  char opts_buf[512] = "";
  char *opts[8] = {opts_buf};
  for (int i = 2; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(argv[i], "--peak") == 0) peak = 1;
    else if (strcmp(argv[i], "--backends") == 0 && v) backends = argv[++i];
    else if (strcmp(argv[i], "--batches") == 0 && v) n_batches = parse_list(argv[++i], batches, 16);
    else if (strcmp(argv[i], "--threads") == 0 && v) n_threads = parse_list(argv[++i], threads, 8);
    else if (strcmp(argv[i], "--seconds") == 0 && v) seconds = atof(argv[++i]);
    else if (strcmp(argv[i], "--rounds") == 0 && v) {
      rounds = atoi(argv[++i]);
      if (rounds < 1) {
        fprintf(stderr, "bench_backends: --rounds must be at least 1\n");
        return 2;
      }
    }
    else if (strcmp(argv[i], "--opts") == 0 && v) {
      snprintf(opts_buf, sizeof opts_buf, "%s", argv[++i]);
      n_opts = 1;
      for (char *c = opts_buf; *c && n_opts < 8; c++)
        if (*c == ';') *c = '\0', opts[n_opts++] = c + 1;
    } else {
      fprintf(stderr, "bench_backends: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  cf_weights *w;
  cf_error err = {0};
  if (cf_weights_load_file(argv[1], NULL, &w, &err) != CF_OK) {
    fprintf(stderr, "bench_backends: %s\n", err.msg);
    return 1;
  }
  const cf_net_arch *a = &w->arch;
  double flops = encoder_flops(a);
  printf("net %s: %d layers, d %d, %d heads, dff %d, RPE %s, %s; %.1f MFLOP/eval (encoder)\n",
         argv[1], a->layers, a->d, a->heads, a->dff,
         a->rpe_q || a->rpe_k || a->rpe_v ? "yes" : "no", a->rms_norm ? "RMSNorm" : "LayerNorm",
         flops / 1e6);
  if (peak) {
#ifdef CF_HAVE_OPENBLAS
    for (int t = 0; t < n_threads; t++) {
      double per_cpu, g = sgemm_gflops(threads[t], &per_cpu);
      printf("sgemm peak (OpenBLAS 1024^3), threads %d: %.1f GFLOP/s | per CPU s x threads: "
             "%.1f GFLOP/s\n", threads[t], g, per_cpu);
    }
#else
    printf("sgemm peak: needs the OpenBLAS backend compiled in\n");
#endif
  }
  for (int i = 0; i < cf_backend_count(); i++) {
    const cf_backend_desc *d = cf_backend_at(i);
    if (backends ? !strstr(backends, d->name) : (d->priority < 0 || (d->probe && !d->probe())))
      continue;
    for (int t = 0; t < n_threads; t++)
      for (int b = 0; b < n_batches; b++)
        for (int r = 0; r < rounds; r++)
          for (int o = 0; o < n_opts; o++)
            bench_one(w, d->name, opts[o], threads[t], batches[b], seconds, flops);
  }
  cf_weights_free(w);
  return 0;
}
