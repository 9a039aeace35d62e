/* bench_sample.h: a bench report filled by hand, for testing the writers
 * without running anything. Two backends (one skipped), the three agents
 * (policy, value, search), three batch sizes; the net's source holds XML
 * specials on purpose. The search's minibatch (32) is not among the batch
 * sizes, so its efficiency at the minibatch is unknown (NaN). */
#ifndef BENCH_SAMPLE_H
#define BENCH_SAMPLE_H

#include <math.h>
#include <stdio.h>
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
  /* bf16 measured on the square and the projections (the square's rate is
   * the peak), int8 not run by this CPU */
  r->peaks[0] = (bench_matmul_peak){
      .precision = CF_PRECISION_BF16, .measured = true, .threads = 2, .gflops_1 = 250,
      .gflops_all = 480, .n_shapes = 3,
      .shapes = {{.m = 1024, .k = 1024, .n = 1024, .gflops_1 = 250, .gflops_all = 480,
                  .method = "matmul bf16*bf16->f32"},
                 {.m = 16384, .k = 256, .n = 768, .gflops_1 = 200, .gflops_all = 390,
                  .method = "matmul bf16*bf16->f32"},
                 {.m = 16384, .k = 256, .n = 256, .gflops_1 = 125, .gflops_all = 240,
                  .method = "matmul bf16*bf16->f32"}}};
  snprintf(r->peaks[0].note, sizeof r->peaks[0].note, "oneDNN matmul bf16*bf16->f32");
  r->peaks[1] = (bench_matmul_peak){.precision = CF_PRECISION_INT8};
  snprintf(r->peaks[1].note, sizeof r->peaks[1].note, "not measured: precision=int8 needs VNNI");
  r->cpus = 2, r->load_average = 0.25;
  snprintf(r->signature, sizeof r->signature, "0123456789abcdef");
  r->n_backends = 2;
  bench_backend_run *b = &r->backends[0];
  snprintf(b->name, sizeof b->name, "ref");
  snprintf(b->signature, sizeof b->signature, "0123456789abcdef");
  b->n_agents = 3;
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
  b->agents[2] = (bench_agent_run){.agent = "search", .positions = 128, .evals = 24000,
                                   .evals_per_move = 187.5, .evals_min = 150, .evals_max = 199,
                                   .flops_per_move = 46.9e9, .paper_flops_per_move = 40.1e9,
                                   .move_seconds = {.n = 128, .median = 0.9, .p10 = 0.8,
                                                    .p90 = 1.1, .min = 0.7, .max = 1.3,
                                                    .mean = 0.94},
                                   .evals_per_second = 200, .signature = "00000000000000cc",
                                   .has_search = true};
  b->agents[2].search = (bench_search_run){
      .visits_target = 200, .minibatch = 32, .visits = 25600, .visits_min = 200,
      .visits_max = 200, .solved = 0, .cache_hits = 1000, .batches = 1000, .collisions = 300,
      .visits_per_second = 213.3, .cache_hit_rate = 0.04, .mean_batch = 24,
      .tree_bytes_per_visit = 1200, .nodes_per_visit = 0.95, .search_cpu_seconds = 0.32,
      .net_call_cpu_seconds = 90, .search_cpu_per_visit = 12.5e-6, .reference_batch = 16,
      .reference_evals_per_second = 250, .efficiency = 0.8, .minibatch_evals_per_second = 0,
      .efficiency_at_minibatch = NAN};
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
