/* cf_sim_backend.c: the simulated accelerator's backend (see the header):
 * its options and the time a pass takes. It holds no weights and runs no
 * op; the required memory slots work on host memory so that a caller that
 * reaches them anyway reads zeros instead of crashing. */
#include "backends/sim/cf_sim_backend.h"

#include <stdlib.h>

#include "common/cf_kv.h"

typedef struct sim_ctx {
  int latency_us;
  int per_position_ns;
} sim_ctx;

static cf_status sim_create(const cf_backend_config *cfg, void **out, cf_error *err) {
  /* threads=N is every backend's key: one simulated device has no threads */
  int threads = 1, latency_us = 0, per_position_ns = 0;
  CF_TRY(cf_kv_get_int(cfg->kv, "latency_us", 0, CF_SIM_MAX_LATENCY_US, &latency_us, err));
  CF_TRY(cf_kv_get_int(cfg->kv, "per_position_ns", 0, CF_SIM_MAX_PER_POSITION_NS,
                       &per_position_ns, err));
  CF_TRY(cf_kv_get_int(cfg->kv, "threads", 1, 1024, &threads, err));
  sim_ctx *c = calloc(1, sizeof *c);
  if (!c) return cf_error_set(err, CF_ERR_NOMEM, "out of memory");
  c->latency_us = latency_us;
  c->per_position_ns = per_position_ns;
  *out = c;
  return CF_OK;
}

static void sim_destroy(void *ctx) { free(ctx); }

static double sim_pass_seconds(void *ctx, int n) {
  const sim_ctx *c = ctx;
  return (double)c->latency_us * 1e-6 + (double)n * (double)c->per_position_ns * 1e-9;
}

static float *sim_alloc(void *ctx, size_t n, cf_error *err) {
  (void)ctx;
  float *p = calloc(n ? n : 1, sizeof *p);
  if (!p) cf_error_set(err, CF_ERR_NOMEM, "sim: out of memory for %zu floats", n);
  return p;
}

static void sim_free(void *ctx, float *p) {
  (void)ctx;
  free(p);
}

static cf_status sim_sync(void *ctx, cf_error *err) {
  (void)ctx;
  (void)err;
  return CF_OK;
}

static const cf_backend_iface sim_iface = {
    .create = sim_create,
    .destroy = sim_destroy,
    .alloc = sim_alloc,
    .free = sim_free,
    .sync = sim_sync,
    .pass_seconds = sim_pass_seconds,
};

const cf_backend_desc cf_backend_sim_desc = {
    .name = "sim",
    .summary = "simulated accelerator for testing the search (latency_us, per_position_ns)",
    .priority = -10,
    .features = (1u << CF_FEAT_COUNT) - 1,
    .activations = ~0u,
    .iface = &sim_iface,
    /* a GPU's batch: the search keeps the simulated device as busy */
    .default_minibatch = 256,
    .device = true,
};
