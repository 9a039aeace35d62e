/* test_layer_chunks.c: the CPU backends run each encoder layer a chunk of
 * positions at a time (cf_backend_iface.layer_chunk_bytes); a batch larger
 * than a chunk must give every position the encoder output it gets alone.
 * Checked on CF-6M's shape (chunks of 8) with 21 positions (two full chunks
 * and a partial one), and with smolgen (its per-position bias buffer is
 * chunked too), on every compiled-in backend that chunks. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "encoder/cf_encoder_internal.h"
#include "tests/cf_test.h"
#include "tools/random_net/cf_weights_random.h"

enum { BATCH = 21 };

static void random_planes(cf_planes *p, int n) {
  uint64_t s = 0x9e3779b97f4a7c15u;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < CF_PLANE_COUNT; k++) {
      s ^= s << 13;
      s ^= s >> 7;
      s ^= s << 17;
      p[i].mask[k] = s & (s >> 3); /* about a quarter of the squares */
      p[i].value[k] = 1.0f;
    }
}

/* Largest |batched - alone| over every output of every position, relative to
 * the largest |alone|; -1 if the encoder could not run. */
static double batch_vs_alone(cf_test *t, const char *backend, const cf_random_spec *spec,
                             int *chunk) {
  cf_error err = {0};
  cf_weights *w = NULL;
  if (!CHECK(cf_weights_random(spec, &w, &err) == CF_OK)) return -1;
  cf_backend *be = NULL;
  cf_backend_config cfg = {.max_batch = BATCH};
  cf_encoder *enc = NULL;
  double worst = -1;
  const size_t per = (size_t)64 * w->arch.d;
  float *all = malloc(sizeof(float) * per * BATCH), *one = malloc(sizeof(float) * per);
  cf_planes *planes = malloc(sizeof *planes * BATCH);
  if (CHECK(all && one && planes) && CHECK(cf_backend_create(backend, &cfg, &be, &err) == CF_OK) &&
      CHECK(cf_encoder_create(w, be, BATCH, &enc, &err) == CF_OK)) {
    *chunk = cf_layer_chunk_positions(&w->arch, cf_backend_layer_chunk_bytes(be));
    random_planes(planes, BATCH);
    cf_op_download(be, all, cf_encoder_forward(enc, BATCH, planes), per * BATCH);
    double diff = 0, scale = 0;
    for (int i = 0; i < BATCH; i++) {
      cf_op_download(be, one, cf_encoder_forward(enc, 1, &planes[i]), per);
      for (size_t j = 0; j < per; j++) {
        diff = fmax(diff, fabs((double)all[i * per + j] - one[j]));
        scale = fmax(scale, fabs((double)one[j]));
      }
    }
    worst = scale > 0 ? diff / scale : -1;
  }
  if (err.msg[0]) fprintf(stderr, "%s: %s\n", backend, err.msg);
  cf_encoder_free(enc);
  cf_backend_free(be);
  cf_weights_free(w);
  free(all);
  free(one);
  free(planes);
  return worst;
}

static void test_chunk_size(cf_test *t) {
  cf_random_spec spec = cf_random_spec_cf6m();
  cf_net_arch a;
  cf_error err = {0};
  if (!CHECK(cf_random_spec_arch(&spec, &a, NULL, &err) == CF_OK)) return;
  /* 64 tokens x (2 d + 4 dm + dff) floats = 448 KiB per position: 9 in 4 MiB. */
  CHECK_INT_EQ(cf_layer_chunk_positions(&a, (size_t)4 << 20), 9);
  /* 8 MiB holds 18: whole 16s where 16 fit (the AMX tiles' groups). */
  CHECK_INT_EQ(cf_layer_chunk_positions(&a, (size_t)8 << 20), 16);
  CHECK_INT_EQ(cf_layer_chunk_positions(&a, (size_t)15 << 20), 32);
  CHECK_INT_EQ(cf_layer_chunk_positions(&a, 1000), 1);
  CHECK_INT_EQ(cf_layer_chunk_positions(&a, 0), INT_MAX);
}

/* The CPU backends ask for 4 MiB per thread; the reference backend runs
 * the whole batch at once. */
static size_t chunk_bytes(cf_test *t, const char *backend, const char *options) {
  cf_backend_config cfg = {.max_batch = 1, .options = options};
  cf_backend *be = NULL;
  cf_error err = {0};
  size_t n = (size_t)-1;
  if (CHECK(cf_backend_create(backend, &cfg, &be, &err) == CF_OK))
    n = cf_backend_layer_chunk_bytes(be);
  cf_backend_free(be);
  return n;
}

static void test_chunk_bytes(cf_test *t) {
  CHECK(chunk_bytes(t, "ref", NULL) == 0);
  const char *cpu[] = {"onednn", "openblas"};
  for (int b = 0; b < 2; b++) {
    if (!cf_backend_find(cpu[b])) continue;
    CHECK(chunk_bytes(t, cpu[b], "threads=1") == (size_t)4 << 20);
    CHECK(chunk_bytes(t, cpu[b], "threads=3") == (size_t)12 << 20);
  }
}

static void test_batch_matches_alone(cf_test *t) {
  const char *backends[] = {"onednn", "openblas"};
  int ran = 0;
  for (int b = 0; b < 2; b++) {
    const cf_backend_desc *d = cf_backend_find(backends[b]);
    if (!d || (d->probe && !d->probe())) continue;
    for (int sg = 0; sg < 2; sg++) {
      cf_random_spec spec = cf_random_spec_cf6m();
      spec.layers = 2;
      spec.smolgen = sg;
      spec.seed = 7;
      int chunk = 0;
      double rel = batch_vs_alone(t, backends[b], &spec, &chunk);
      printf("%s%s: chunks of %d positions, batch of %d vs alone: max relative difference %.2g\n",
             backends[b], sg ? " (smolgen)" : "", chunk, BATCH, rel);
      CHECK(chunk > 1 && chunk < BATCH / 2); /* two full chunks and a partial one */
      CHECK(rel >= 0 && rel < 1e-5);
      ran++;
    }
  }
  if (!ran) CF_SKIP("no chunking backend (onednn, openblas) compiled in; nothing to compare");
}

CF_TEST_MAIN(test_chunk_size, test_chunk_bytes, test_batch_matches_alone)
