/* test_warm_start.c: warm starts (cf_net_warm, docs/BACKENDS.md "Warm
 * starts"). On the oneDNN backend, whose primitives and reordered weights
 * are built per shape, a warmed net builds nothing more at any batch size
 * from 1 to its batch_size, in any order, at every precision this CPU
 * runs, with two lanes and with the attention as oneDNN products
 * (attention=onednn); a net left cold does build on its first pass
 * at a new size (so the count is a real one); and warmed or cold, the
 * results are the same bit for bit. No timing: the count of per-shape
 * builds (cf_net_shape_builds) stands for the first calls' cost. The
 * engine's network load (cf_engine_load_net: isready, the first go) warms
 * what it loads. A backend without per-shape builds (the reference) warms
 * as a no-op. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cf_backend.h"
#include "engine/cf_engine_weights.h"
#include "net/cf_net.h"
#include "tests/cf_test.h"
#include "tests/net/cf_parity.h"

enum { MAX_BATCH = 8 };

/* Batch sizes in an order that is neither rising nor falling. */
static const int sizes[] = {5, 1, 8, 3, 7, 2, 6, 4};

static bool runs(const char *backend, const char *opts) {
  cf_backend_config cfg = {.max_batch = 1, .options = opts};
  cf_backend *be = NULL;
  cf_error err = {0};
  if (cf_backend_create(backend, &cfg, &be, &err) != CF_OK) return false;
  cf_backend_free(be);
  return true;
}

/* Evaluates the first n cases (cycling) into q[]. */
static bool eval(cf_test *t, cf_net *net, const cf_parity_case *cases, int count, int n,
                 float *q) {
  cf_net_request req[MAX_BATCH];
  cf_net_output out[MAX_BATCH];
  memset(req, 0, sizeof req);
  memset(out, 0, sizeof out);
  for (int i = 0; i < n; i++) {
    const cf_parity_case *c = &cases[i % count];
    req[i] = (cf_net_request){.planes = &c->planes, .transform = c->transform};
  }
  cf_error err = {0};
  if (!CHECK(cf_net_eval(net, n, req, out, &err) == CF_OK)) {
    fprintf(stderr, "eval at %d: %s\n", n, err.msg);
    return false;
  }
  for (int i = 0; i < n; i++) q[i] = out[i].q;
  return true;
}

static cf_net *make(cf_test *t, const cf_weights *w, const char *backend, const char *opts) {
  cf_net_options o = {.backend = backend, .backend_options = opts, .max_batch = MAX_BATCH};
  cf_net *net = NULL;
  cf_error err = {0};
  if (!CHECK(cf_net_create(w, &o, &net, &err) == CF_OK)) {
    fprintf(stderr, "%s %s: %s\n", backend, opts, err.msg);
    return NULL;
  }
  return net;
}

/* One net and option list: warmed, no build at any size; cold, builds
 * appear; both give the same values. */
static void check(cf_test *t, const char *name, const cf_weights *w, const cf_parity_case *cases,
                  int count, const char *opts) {
  cf_net *warm = make(t, w, "onednn", opts), *cold = make(t, w, "onednn", opts);
  cf_error err = {0};
  if (warm && cold && CHECK(cf_net_warm(warm, &err) == CF_OK)) {
    const long at_load = cf_net_shape_builds(warm);
    CHECK(at_load > 0);
    bool cold_built = false;
    for (int i = 0; i < (int)(sizeof sizes / sizeof sizes[0]); i++) {
      float qw[MAX_BATCH], qc[MAX_BATCH];
      const long cold_before = cf_net_shape_builds(cold);
      if (!eval(t, warm, cases, count, sizes[i], qw) || !eval(t, cold, cases, count, sizes[i], qc))
        break;
      cold_built |= cf_net_shape_builds(cold) > cold_before;
      if (!CHECK_INT_EQ(cf_net_shape_builds(warm), at_load))
        fprintf(stderr, "%s %s: batch %d built after the warm-up\n", name, opts, sizes[i]);
      for (int b = 0; b < sizes[i]; b++)
        if (!CHECK(qw[b] == qc[b]))
          fprintf(stderr, "%s %s batch %d #%d: warm %.9g cold %.9g\n", name, opts, sizes[i], b,
                  qw[b], qc[b]);
    }
    CHECK(cold_built);
    printf("%s %s: %ld builds at load, none after\n", name, opts, at_load);
  } else if (warm && cold) {
    fprintf(stderr, "%s %s: warm: %s\n", name, opts, err.msg);
  }
  cf_net_free(warm);
  cf_net_free(cold);
}

static void test_onednn(cf_test *t) {
  const char *opts[] = {"precision=f32", "precision=bf16", "precision=int8",
                        "precision=bf16,lanes=2", "precision=f32,attention=onednn",
                        "precision=int8,attention=onednn"};
  for (int i = 0; i < cf_parity_net_count; i++) {
    cf_parity_case *cases = NULL;
    cf_weights *w = NULL;
    int count = 0;
    char msg[512];
    if (!CHECK(cf_parity_load_net(cf_parity_nets[i], &cases, &count, &w, msg, sizeof msg))) {
      fprintf(stderr, "%s\n", msg);
      continue;
    }
    for (int o = 0; o < (int)(sizeof opts / sizeof opts[0]); o++) {
      char first[32];
      snprintf(first, sizeof first, "%.*s", (int)strcspn(opts[o], ","), opts[o]);
      if (runs("onednn", first))
        check(t, cf_parity_nets[i], w, cases, count, opts[o]);
      else if (i == 0)
        printf("skip onednn %s: this CPU does not run it\n", first);
    }
    free(cases);
    cf_weights_free(w);
  }
}

/* The reference has nothing to build per shape: warming is a no-op. */
static void test_ref_noop(cf_test *t) {
  cf_parity_case *cases = NULL;
  cf_weights *w = NULL;
  int count = 0;
  char msg[512];
  if (!CHECK(cf_parity_load_net(cf_parity_nets[0], &cases, &count, &w, msg, sizeof msg))) return;
  cf_net *net = make(t, w, "ref", NULL);
  cf_error err = {0};
  if (net) {
    CHECK(cf_net_warm(net, &err) == CF_OK);
    CHECK_INT_EQ(cf_net_shape_builds(net), 0);
  }
  cf_net_free(net);
  free(cases);
  cf_weights_free(w);
}

/* The engine's load path warms: a net it loads builds nothing more. */
static void test_engine_load(cf_test *t) {
  cf_parity_case *cases = NULL;
  cf_weights *w = NULL;
  int count = 0;
  char msg[512], path[1024];
  if (!CHECK(cf_parity_load_net(cf_parity_nets[0], &cases, &count, &w, msg, sizeof msg))) return;
  cf_weights_free(w);
  snprintf(path, sizeof path, "%s/%s.pb.gz", cf_parity_dir(), cf_parity_nets[0]);
  const cf_engine_weights_spec spec = {
      .weights = path, .net = {.backend = "onednn", .max_batch = MAX_BATCH}};
  cf_net *net = NULL;
  cf_engine_weights_info info;
  cf_error err = {0};
  if (CHECK(cf_engine_load_net(&spec, &net, &info, &err) == CF_OK)) {
    const long at_load = cf_net_shape_builds(net);
    CHECK(at_load > 0);
    for (int i = 0; i < (int)(sizeof sizes / sizeof sizes[0]); i++) {
      float q[MAX_BATCH];
      if (!eval(t, net, cases, count, sizes[i], q)) break;
      CHECK_INT_EQ(cf_net_shape_builds(net), at_load);
    }
  } else {
    fprintf(stderr, "%s: %s\n", path, err.msg);
  }
  cf_net_free(net);
  free(cases);
}

CF_TEST_MAIN(test_onednn, test_ref_noop, test_engine_load)
