/* bench_table.c: see bench_table.h. Sections: the net and its cost, the
 * sgemm and the reduced precisions' peaks, per move per agent, the search
 * agent's own figures, throughput per batch, signatures. */
#include "tools/bench/bench_table.h"

#include <math.h>
#include <string.h>

#include "tools/bench/bench_units.h"
#include "tools/bench/bench_yardstick.h"

/* Evaluations per second with the digits that matter at any scale: 1874,
 * 25.7, 0.341. */
static void rate(double v, char *out, size_t n) {
  snprintf(out, n, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : v >= 1 ? "%.2f" : "%.3f", v);
}

static void write_cost(FILE *out, const bench_report *r) {
  const bench_net *n = &r->net;
  char params[16], macs[16], full[16];
  bench_si(n->params, params, sizeof params);
  bench_si(n->paper_macs, macs, sizeof macs);
  bench_si(n->full_flops, full, sizeof full);
  fprintf(out, "net        %s (%s)\n", n->source, n->arch);
  fprintf(out, "params     %s\n", params);
  /* The paper's Table II "FLOPs" are weight-matrix MACs (CF-6M 214M,
   * CF-240M 12.8B): shown as such, next to the full count at 2 FLOPs/MAC. */
  fprintf(out, "cost/eval  paper rule %s (weight MACs, as Table II); full count %s FLOPs\n", macs,
          full);
  if (n->n_parts == 0) return;
  fprintf(out, "MACs/eval ");
  for (int i = 0; i < n->n_parts; i++) {
    char v[16];
    bench_si(n->parts[i].macs, v, sizeof v);
    fprintf(out, "%s%s %s", i ? (i % 5 ? ", " : ",\n           ") : " ", n->parts[i].name, v);
  }
  fprintf(out, "\n");
}

static void write_sgemm(FILE *out, const bench_sgemm *s) {
  if (!s->measured) {
    fprintf(out, "sgemm peak %s\n", s->note);
    return;
  }
  fprintf(out, "sgemm peak %.1f GFLOP/s on 1 thread, %.1f GFLOP/s on %d threads (%s)\n",
          s->gflops_1, s->gflops_all, s->threads, s->note);
}

/* "bf16 peak  ..." and its rate by shape; int8 counts integer operations
 * (2 per multiply-add), hence GOP/s. */
static void write_peak(FILE *out, cf_precision precision, const bench_matmul_peak *p) {
  const char *name = cf_precision_name(precision);
  const char *unit = precision == CF_PRECISION_INT8 ? "GOP/s" : "GFLOP/s";
  if (!p->measured) {
    fprintf(out, "%-4s peak  %s\n", name, p->note[0] ? p->note : "not measured");
    return;
  }
  fprintf(out, "%-4s peak  %.1f %s on 1 thread, %.1f %s on %d threads (%s)\n", name, p->gflops_1,
          unit, p->gflops_all, unit, p->threads, p->note);
  fprintf(out, "           by shape (M x K x N: 1 thread / %d threads):", p->threads);
  for (int i = 0; i < p->n_shapes; i++) {
    const bench_peak_shape *sh = &p->shapes[i];
    fprintf(out, "%s %dx%dx%d ", i ? "," : "", sh->m, sh->k, sh->n);
    if (sh->gflops_1 > 0)
      fprintf(out, "%.1f / %.1f", sh->gflops_1, sh->gflops_all);
    else
      fprintf(out, "-");
  }
  fprintf(out, " %s\n", unit);
}

static void write_agents(FILE *out, const bench_report *r) {
  fprintf(out, "\nper move (%d positions of %s)\n", r->suite_positions, r->suite);
  fprintf(out, "%-10s %-7s %10s %11s %11s %27s %10s\n", "backend", "agent", "evals/move",
          "FLOPs/move", "paper/move", "time/move median [p10-p90]", "evals/s");
  for (int b = 0; b < r->n_backends; b++) {
    const bench_backend_run *be = &r->backends[b];
    if (be->skipped) continue;
    for (int a = 0; a < be->n_agents; a++) {
      const bench_agent_run *ag = &be->agents[a];
      char flops[16], paper[16], med[16], lo[16], hi[16], span[64], eps[24];
      rate(ag->evals_per_second, eps, sizeof eps);
      bench_si(ag->flops_per_move, flops, sizeof flops);
      bench_si(ag->paper_flops_per_move, paper, sizeof paper);
      bench_duration(ag->move_seconds.median, med, sizeof med);
      bench_duration(ag->move_seconds.p10, lo, sizeof lo);
      bench_duration(ag->move_seconds.p90, hi, sizeof hi);
      snprintf(span, sizeof span, "%s [%s-%s]", med, lo, hi);
      fprintf(out, "%-10s %-7s %10.2f %11s %11s %27s %10s\n", be->name, ag->agent,
              ag->evals_per_move, flops, paper, span, eps);
    }
  }
}

/* An efficiency as "0.87", or "-" when there was nothing to compare with. */
static void ratio(double v, char *out, size_t n) {
  if (isfinite(v) && v > 0)
    snprintf(out, n, "%.2f", v);
  else
    snprintf(out, n, "-");
}

static void write_search(FILE *out, const bench_report *r) {
  const bench_search_run *first = NULL;
  for (int b = 0; b < r->n_backends && !first; b++)
    for (int a = 0; !r->backends[b].skipped && a < r->backends[b].n_agents && !first; a++)
      if (r->backends[b].agents[a].has_search) first = &r->backends[b].agents[a].search;
  if (!first) return;
  fprintf(out,
          "\nsearch agent (%d visits per move, smart pruning off, a fresh tree per position;\n"
          "efficiency = its evals/s / plain cf_net_eval evals/s at the batch nearest its mean\n"
          "batch, and at its minibatch size; cpu/visit = the searching thread's CPU time\n"
          "outside the network's calls, per visit)\n",
          first->visits_target);
  fprintf(out, "%-10s %9s %10s %10s %9s %10s %11s %15s %10s %13s %10s\n", "backend",
          "minibatch", "visits/s", "evals/s", "cache hit", "mean batch", "bytes/visit",
          "plain evals/s", "efficiency", "eff@minibatch", "cpu/visit");
  for (int b = 0; b < r->n_backends; b++) {
    const bench_backend_run *be = &r->backends[b];
    if (be->skipped) continue;
    for (int a = 0; a < be->n_agents; a++) {
      const bench_agent_run *ag = &be->agents[a];
      if (!ag->has_search) continue;
      const bench_search_run *s = &ag->search;
      char vps[24], eps[24], plain[24], plain_at[40], bytes[16], eff[16], eff_mb[16];
      rate(s->visits_per_second, vps, sizeof vps);
      rate(ag->evals_per_second, eps, sizeof eps);
      rate(s->reference_evals_per_second, plain, sizeof plain);
      snprintf(plain_at, sizeof plain_at, "%s @%d", plain, s->reference_batch);
      bench_si(s->tree_bytes_per_visit, bytes, sizeof bytes);
      ratio(s->efficiency, eff, sizeof eff);
      ratio(s->efficiency_at_minibatch, eff_mb, sizeof eff_mb);
      fprintf(out, "%-10s %9d %10s %10s %8.1f%% %10.1f %11s %15s %10s %13s %7.1f us\n",
              be->name, s->minibatch, vps, eps, 100.0 * s->cache_hit_rate, s->mean_batch, bytes,
              plain_at, eff, eff_mb, 1e6 * s->search_cpu_per_visit);
      if (s->visits_min != s->visits_target || s->visits_max != s->visits_target)
        fprintf(out, "%-10s %d of %d moves ended early (root proven); visits per move %d-%d\n",
                "", s->solved, ag->positions, s->visits_min, s->visits_max);
    }
  }
}

static void write_batches(FILE *out, const bench_report *r) {
  /* the share is of the run's precision's peak (bench_yardstick.h) */
  const bench_yardstick y = bench_yardstick_for(r);
  const double peak = y.gflops;
  const int w = strlen(y.label) > 10 ? (int)strlen(y.label) : 10;
  fprintf(out, "\nthroughput per batch (one cf_net_eval call, median)\n");
  fprintf(out, "%-10s %6s %12s %12s %10s %*s\n", "backend", "batch", "time/call", "evals/s",
          "GFLOP/s", w, peak > 0 ? y.label : "");
  for (int b = 0; b < r->n_backends; b++) {
    const bench_backend_run *be = &r->backends[b];
    if (be->skipped) continue;
    for (int i = 0; i < be->n_batches; i++) {
      const bench_batch_run *br = &be->batches[i];
      char t[16], eps[24];
      bench_duration(br->eval_seconds.median, t, sizeof t);
      rate(br->evals_per_second, eps, sizeof eps);
      fprintf(out, "%-10s %6d %12s %12s %10.2f", be->name, br->batch, t, eps, br->gflops);
      if (peak > 0) fprintf(out, " %*.1f%%", w - 1, 100.0 * br->gflops / peak);
      fprintf(out, "\n");
    }
  }
}

/* Which code path each backend ran (the CPU kernel set): the same net is
 * faster or slower by it, so a number without it is half a number. */
static void write_variants(FILE *out, const bench_report *r) {
  int n = 0;
  for (int b = 0; b < r->n_backends; b++) {
    const bench_backend_run *be = &r->backends[b];
    if (be->skipped || !be->variant[0]) continue;
    fprintf(out, "%s%s %s", n++ ? ", " : "kernels    ", be->name, be->variant);
  }
  if (n) fprintf(out, " (CPU kernel set; CFORMER_CPU_KERNELS forces one)\n");
}

void bench_table_write(FILE *out, const bench_report *r) {
  fprintf(out, "cformer %s bench\n", r->version);
  write_cost(out, r);
  if (r->cost_only) return;
  write_sgemm(out, &r->sgemm);
  for (int i = 0; i < BENCH_PEAK_PRECISIONS; i++) write_peak(out, bench_peak_precision_at(i), &r->peaks[i]);
  if (r->load_average >= 0)
    fprintf(out, "machine    %d CPUs online, load average %.2f at start%s\n", r->cpus,
            r->load_average,
            r->load_average > 0.5 * r->cpus ? " (shared: times include waiting for a CPU)" : "");
  if (r->backend_options[0])
    fprintf(out, "backends   options %s (every backend run)\n", r->backend_options);
  write_variants(out, r);
  write_agents(out, r);
  write_search(out, r);
  write_batches(out, r);
  fprintf(out, "\n");
  for (int b = 0; b < r->n_backends; b++) {
    const bench_backend_run *be = &r->backends[b];
    if (be->skipped)
      fprintf(out, "skipped    %s: %s\n", be->name, be->skip_reason);
    else
      fprintf(out, "signature  %-10s %s\n", be->name, be->signature);
  }
  fprintf(out, "bench signature: %s\n", r->signature);
}
