/* bench_attention: the CPU attention op alone (backends/cpu), per subset of
 * RPE terms, at CF-6M's shape (8 heads, dh 32; --shape 4x16 is the built-in
 * network's) with 8 layers' worth of tables cycled so that batch 1 sees the
 * cache behaviour of a whole net. A benchmark, not a test (docs/BACKENDS.md):
 *   build/tests/backends/bench_attention [--batches 1,16] [--seconds S] [--layers N]
 *                                        [--only none|q|k|v|qkv] [--shape HxD]
 *                                        [--bf16 | --int8 | --amx]
 * Prints microseconds of CPU time (robust to a shared machine) per position
 * per layer for none, q, k, v, qkv, each with the fastest call in brackets
 * (a sibling hardware thread busy with another tenant's work slows CPU time
 * too; the fastest call is the least disturbed), with
 * the kernel set a backend would run (CFORMER_CPU_KERNELS picks one);
 * --bf16: the bf16 core a backend runs with precision=bf16; --int8: the
 * int8 core of precision=int8 (where the kernel set has one); --amx: the
 * AMX tiles of attention=amx (cf_cpu_amx.h), the bf16 core below their
 * smallest batch. */
#include "backends/cpu/cf_cpu_kernels.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/cpu/cf_cpu_amx.h"
#include "backends/cpu/cf_cpu_internal.h"

enum { LAYERS = 8 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); /* CPU time: robust to sharing the machine */
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static float frand(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return (float)((*s >> 8) & 0xffff) / 65536.0f - 0.5f;
}

static const char *const VARIANTS[] = {"none", "q", "k", "v", "qkv"};

static int usage(void) {
  fprintf(stderr, "usage: bench_attention [--batches 1,16] [--seconds S] [--layers 1-8]\n"
                  "                       [--only none|q|k|v|qkv] [--flush-mb N] [--shape HxD]\n"
                  "                       [--bf16 | --int8 | --amx]\n"
                  "  --shape HxD  heads x depth per head, D at most 128 (default 8x32, CF-6M;\n"
                  "               4x16 is the built-in network's)\n");
  return 2;
}

int main(int argc, char **argv) {
  const char *batches = "1,16,64";
  double seconds = 1.0;
  bool bf16 = false, int8 = false, amx = false;
  int layers = LAYERS, heads = 8, dh = 32;
  const char *only = NULL;
  size_t flush_mb = 0; /* stream this much memory between layers, as a net's weights would */
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--batches") == 0 && i + 1 < argc) batches = argv[++i];
    else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) seconds = atof(argv[++i]);
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
      int known = 0;
      for (int v = 0; v < 5; v++) known |= strcmp(only, VARIANTS[v]) == 0;
      if (!known) return usage();
    }
    else if (strcmp(argv[i], "--bf16") == 0) bf16 = true;
    else if (strcmp(argv[i], "--amx") == 0) bf16 = amx = true;
    else if (strcmp(argv[i], "--int8") == 0) int8 = true;
    else if (strcmp(argv[i], "--flush-mb") == 0 && i + 1 < argc) flush_mb = (size_t)atoi(argv[++i]);
    else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc) {
      char x;
      int end = 0;
      const char *shape = argv[++i];
      if (sscanf(shape, "%d%c%d%n", &heads, &x, &dh, &end) != 3 || x != 'x' || shape[end] ||
          heads < 1 || heads > 64 || dh < 1 || dh > CF_CPU_MAX_FAST_DEPTH)
        return usage();
    } else if (strcmp(argv[i], "--layers") == 0 && i + 1 < argc) {
      layers = atoi(argv[++i]);
      if (layers < 1 || layers > LAYERS) return usage();
    } else {
      return usage();
    }
  }
  /* One thread; the kernel set as a backend would pick it
   * (CFORMER_CPU_KERNELS=portable|avx2 to compare). */
  cf_cpu_ctx ctx;
  cf_backend_config cfg = {.max_batch = 256};
  cf_error err = {0};
  if (cf_cpu_ctx_init(&ctx, &cfg, &err) != CF_OK) {
    fprintf(stderr, "bench_attention: %s\n", err.msg);
    return 2;
  }
  /* Before the weights: their bf16 tables are built at upload. */
  ctx.attention_bf16 = bf16 ? cf_cpu_attention_bf16_select(ctx.kernels) : NULL;
  ctx.attention_int8 = int8 ? cf_cpu_attention_int8_select(ctx.kernels) : NULL;
  ctx.attention_amx = amx;
  if (amx && !cf_amx_usable()) {
    fprintf(stderr, "--amx: this CPU or OS runs no AMX tiles\n");
    return 1;
  }
  if (int8 && !ctx.attention_int8) {
    fprintf(stderr, "--int8: the %s kernel set has no int8 attention core\n",
            cf_cpu_kernels_name(&ctx));
    return 1;
  }
  const int dm = heads * dh;
  printf("shape: %d heads x depth %d\n", heads, dh);
  printf("kernels: %s%s%s%s\n", cf_cpu_kernels_name(&ctx),
         amx ? ", amx tiles (one position a task below batch 16, groups from it; past "
               "depth 64 bf16 attention "
         : bf16 ? ", bf16 attention "
         : int8 ? ", int8 attention " : "",
         bf16 ? ctx.attention_bf16->name : int8 ? ctx.attention_int8->name : "",
         amx ? ")" : "");
  unsigned seed = 1;
  float *table = malloc(sizeof(float) * 225 * dm);
  if (!table) {
    fprintf(stderr, "bench_attention: out of memory\n");
    return 1;
  }
  cf_bweight *rq[LAYERS], *rk[LAYERS], *rv[LAYERS];
  for (int l = 0; l < LAYERS; l++) {
    for (int i = 0; i < 225 * dm; i++) table[i] = frand(&seed);
    const cf_weight_shape q = {.role = CF_WEIGHT_RPE_Q, .rows = 225, .cols = dm, .heads = heads},
                          k = {.role = CF_WEIGHT_RPE_K, .rows = 225, .cols = dm, .heads = heads},
                          v = {.role = CF_WEIGHT_RPE_V, .rows = 225, .cols = dm, .heads = heads};
    rq[l] = cf_cpu_weight_create(&ctx, &q, table, NULL);
    rk[l] = cf_cpu_weight_create(&ctx, &k, table, NULL);
    rv[l] = cf_cpu_weight_create(&ctx, &v, table, NULL);
    if (!rq[l] || !rk[l] || !rv[l]) {
      fprintf(stderr, "bench_attention: out of memory\n");
      return 1;
    }
  }
  const size_t flush_n = flush_mb * 1024 * 1024 / sizeof(float) / LAYERS;
  float *flush = flush_n ? calloc(flush_n, sizeof(float)) : NULL;
  volatile float sink = 0.0f;
  double flush_time = 0.0;
  char list[256];
  snprintf(list, sizeof list, "%s", batches);
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    const int batch = atoi(tok);
    if (batch < 1 || batch > 256) {
      fprintf(stderr, "bench_attention: batch '%s' is not 1-256\n", tok);
      return 2;
    }
    float *qkv = cf_cpu_alloc((size_t)batch * 64 * 3 * dm);
    float *out = cf_cpu_alloc((size_t)batch * 64 * dm);
    if (!qkv || !out) {
      fprintf(stderr, "bench_attention: out of memory at batch %d\n", batch);
      return 1;
    }
    for (size_t i = 0; i < (size_t)batch * 64 * 3 * dm; i++) qkv[i] = frand(&seed);
    printf("batch %3d:", batch);
    for (int v = 0; v < 5; v++) {
      if (only && strcmp(only, VARIANTS[v]) != 0) continue;
      long calls = 0;
      flush_time = 0.0;
      double t0 = now(), t, best = 1e30;
      do {
        for (int l = 0; l < layers; l++, calls++) {
          const double c0 = now();
          cf_attention_args a = {.batch = batch, .heads = heads, .depth = dh, .qkv = qkv,
                                 .rpe_q = (v == 1 || v == 4) ? rq[l] : NULL,
                                 .rpe_k = (v == 2 || v == 4) ? rk[l] : NULL,
                                 .rpe_v = (v == 3 || v == 4) ? rv[l] : NULL,
                                 .scale = 1.0f / sqrtf((float)dh), .out = out};
          cf_cpu_attention(&ctx, &a);
          const double c1 = now();
          if (c1 - c0 < best) best = c1 - c0;
          if (flush) {
            const double f0 = now();
            float acc = 0.0f;
            for (size_t j = 0; j < flush_n; j += 16) acc += flush[j];
            sink += acc;
            flush_time += now() - f0;
          }
        }
        t = now();
      } while (t - t0 < seconds);
      printf("  %s %6.2f [%6.2f]", VARIANTS[v],
             (t - t0 - flush_time) * 1e6 / ((double)calls * batch),
             best * 1e6 / batch);
    }
    printf("  us/position/layer [fastest call]\n");
    cf_cpu_free(qkv);
    cf_cpu_free(out);
  }
  for (int l = 0; l < LAYERS; l++) {
    cf_cpu_weight_free(&ctx, rq[l]);
    cf_cpu_weight_free(&ctx, rk[l]);
    cf_cpu_weight_free(&ctx, rv[l]);
  }
  cf_cpu_ctx_release(&ctx);
  free(table);
  free(flush);
  (void)sink;
  return 0;
}
