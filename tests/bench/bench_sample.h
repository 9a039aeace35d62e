/* bench_sample.h: a bench report filled by hand, for testing the writers
 * without running anything. Two backends (one skipped), both agents, three
 * batch sizes; the net's source holds XML specials on purpose. */
#ifndef BENCH_SAMPLE_H
#define BENCH_SAMPLE_H

#include <string.h>

#include "tools/bench/bench_report.h"

static inline void bench_sample_report(bench_report *r) {
  memset(r, 0, sizeof *r);
  snprintf(r->version, sizeof r->version, "0.1.0");
  snprintf(r->net.source, sizeof r->net.source, "nets/<odd> & \"name\".pb.gz");
  snprintf(r->net.arch, sizeof r->net.arch, "8x256, 8 heads, dff 256");
  r->net.layers = 8, r->net.d_model = 256, r->net.heads = 8, r->net.dff = 256;
  r->net.params = 6.1e6, r->net.paper_macs = 107e6, r->net.full_flops = 250e6;
  snprintf(r->suite, sizeof r->suite, "data/bench/positions.txt");
  r->suite_positions = 128;
  r->sgemm = (bench_sgemm){.measured = true, .n = 1024, .threads = 2, .gflops_1 = 90,
                           .gflops_all = 170};
  snprintf(r->sgemm.note, sizeof r->sgemm.note, "OpenBLAS cblas_sgemm");
  r->cpus = 2, r->load_average = 0.25;
  snprintf(r->signature, sizeof r->signature, "0123456789abcdef");
  r->n_backends = 2;
  bench_backend_run *b = &r->backends[0];
  snprintf(b->name, sizeof b->name, "ref");
  snprintf(b->signature, sizeof b->signature, "0123456789abcdef");
  b->n_agents = 2;
  b->agents[0] = (bench_agent_run){.agent = "policy", .positions = 128, .evals = 128,
                                   .evals_per_move = 1, .evals_min = 1, .evals_max = 1,
                                   .flops_per_move = 250e6, .paper_flops_per_move = 214e6,
                                   .move_seconds = {.n = 128, .median = 0.004, .p10 = 0.0035,
                                                    .p90 = 0.005, .min = 0.003, .max = 0.009,
                                                    .mean = 0.0042},
                                   .evals_per_second = 238, .signature = "00000000000000aa"};
  b->agents[1] = (bench_agent_run){.agent = "value", .positions = 128, .evals = 4352,
                                   .evals_per_move = 34, .evals_min = 2, .evals_max = 60,
                                   .flops_per_move = 8.5e9, .paper_flops_per_move = 7.3e9,
                                   .move_seconds = {.n = 128, .median = 0.05, .p10 = 0.01,
                                                    .p90 = 0.09, .min = 0.008, .max = 0.1,
                                                    .mean = 0.05},
                                   .evals_per_second = 680, .signature = "00000000000000bb"};
  b->n_batches = 3;
  for (int i = 0; i < 3; i++) {
    int batch = 1 << (2 * i);
    b->batches[i] = (bench_batch_run){.batch = batch,
                                      .eval_seconds = {.n = 10, .median = 0.004 * batch},
                                      .evals_per_second = 250, .gflops = 62.5};
  }
  snprintf(r->backends[1].name, sizeof r->backends[1].name, "cuda");
  r->backends[1].skipped = true;
  snprintf(r->backends[1].skip_reason, sizeof r->backends[1].skip_reason, "no GPU");
}

#endif /* BENCH_SAMPLE_H */
