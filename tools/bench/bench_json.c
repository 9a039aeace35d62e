/* bench_json.c: see bench_json.h. Every key written here is listed in
 * docs/BENCH.md; tests/bench/test_bench_json.c checks both. Non-finite
 * numbers become null (JSON has no NaN). */
#include "tools/bench/bench_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/bench/bench_yardstick.h"

static void num(cJSON *o, const char *key, double v) {
  if (isfinite(v))
    cJSON_AddNumberToObject(o, key, v);
  else
    cJSON_AddNullToObject(o, key);
}

static cJSON *stats(const bench_stats *s) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "n", s->n);
  num(o, "median", s->median);
  num(o, "p10", s->p10);
  num(o, "p90", s->p90);
  num(o, "min", s->min);
  num(o, "max", s->max);
  num(o, "mean", s->mean);
  return o;
}

static cJSON *net(const bench_net *n) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "source", n->source);
  cJSON_AddStringToObject(o, "arch", n->arch);
  cJSON_AddNumberToObject(o, "layers", n->layers);
  cJSON_AddNumberToObject(o, "d_model", n->d_model);
  cJSON_AddNumberToObject(o, "heads", n->heads);
  cJSON_AddNumberToObject(o, "dff", n->dff);
  num(o, "params", n->params);
  num(o, "paper_macs", n->paper_macs);
  num(o, "full_flops", n->full_flops);
  cJSON *parts = cJSON_AddObjectToObject(o, "macs_by_part");
  for (int i = 0; i < n->n_parts; i++) num(parts, n->parts[i].name, n->parts[i].macs);
  return o;
}

static cJSON *sgemm(const bench_sgemm *s) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddBoolToObject(o, "measured", s->measured);
  cJSON_AddNumberToObject(o, "n", s->n);
  if (s->measured) {
    cJSON_AddNumberToObject(o, "threads", s->threads);
    num(o, "gflops_1_thread", s->gflops_1);
    num(o, "gflops_all_threads", s->gflops_all);
  }
  cJSON_AddStringToObject(o, "note", s->note);
  return o;
}

/* A reduced precision's peak; the same keys as sgemm's, plus the shapes. */
static cJSON *matmul_peak(const bench_matmul_peak *p) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddBoolToObject(o, "measured", p->measured);
  if (p->measured) {
    cJSON_AddNumberToObject(o, "threads", p->threads);
    num(o, "gflops_1_thread", p->gflops_1);
    num(o, "gflops_all_threads", p->gflops_all);
    cJSON *shapes = cJSON_AddArrayToObject(o, "shapes");
    for (int i = 0; i < p->n_shapes; i++) {
      const bench_peak_shape *sh = &p->shapes[i];
      cJSON *one = cJSON_CreateObject();
      cJSON_AddNumberToObject(one, "m", sh->m);
      cJSON_AddNumberToObject(one, "k", sh->k);
      cJSON_AddNumberToObject(one, "n", sh->n);
      /* no method ran the shape: null rather than a rate of 0 */
      num(one, "gflops_1_thread", sh->gflops_1 > 0 ? sh->gflops_1 : NAN);
      num(one, "gflops_all_threads", sh->gflops_all > 0 ? sh->gflops_all : NAN);
      if (sh->method[0]) cJSON_AddStringToObject(one, "method", sh->method);
      else cJSON_AddNullToObject(one, "method");
      cJSON_AddItemToArray(shapes, one);
    }
  }
  cJSON_AddStringToObject(o, "note", p->note[0] ? p->note : "not measured");
  return o;
}

static cJSON *search(const bench_search_run *s) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "visits_target", s->visits_target);
  cJSON_AddNumberToObject(o, "minibatch", s->minibatch);
  cJSON_AddBoolToObject(o, "smart_pruning", false);
  cJSON_AddNumberToObject(o, "visits", (double)s->visits);
  cJSON_AddNumberToObject(o, "visits_min", s->visits_min);
  cJSON_AddNumberToObject(o, "visits_max", s->visits_max);
  cJSON_AddNumberToObject(o, "solved", s->solved);
  num(o, "visits_per_second", s->visits_per_second);
  cJSON_AddNumberToObject(o, "cache_hits", (double)s->cache_hits);
  num(o, "cache_hit_rate", s->cache_hit_rate);
  cJSON_AddNumberToObject(o, "batches", (double)s->batches);
  num(o, "mean_batch", s->mean_batch);
  cJSON_AddNumberToObject(o, "collisions", (double)s->collisions);
  num(o, "tree_bytes_per_visit", s->tree_bytes_per_visit);
  num(o, "nodes_per_visit", s->nodes_per_visit);
  num(o, "search_cpu_seconds", s->search_cpu_seconds);
  num(o, "net_call_cpu_seconds", s->net_call_cpu_seconds);
  num(o, "search_cpu_per_visit", s->search_cpu_per_visit);
  cJSON_AddNumberToObject(o, "reference_batch", s->reference_batch);
  num(o, "reference_evals_per_second", s->reference_evals_per_second);
  num(o, "efficiency", s->efficiency);
  num(o, "minibatch_evals_per_second", s->minibatch_evals_per_second);
  num(o, "efficiency_at_minibatch", s->efficiency_at_minibatch);
  return o;
}

static cJSON *agent(const bench_agent_run *a) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "agent", a->agent);
  cJSON_AddNumberToObject(o, "positions", a->positions);
  cJSON_AddNumberToObject(o, "evals", (double)a->evals);
  num(o, "evals_per_move", a->evals_per_move);
  cJSON_AddNumberToObject(o, "evals_min", a->evals_min);
  cJSON_AddNumberToObject(o, "evals_max", a->evals_max);
  num(o, "flops_per_move", a->flops_per_move);
  num(o, "paper_flops_per_move", a->paper_flops_per_move);
  cJSON_AddItemToObject(o, "seconds_per_move", stats(&a->move_seconds));
  num(o, "warmup_seconds", a->warmup_seconds);
  num(o, "evals_per_second", a->evals_per_second);
  cJSON_AddStringToObject(o, "signature", a->signature);
  if (a->has_search) cJSON_AddItemToObject(o, "search", search(&a->search));
  return o;
}

static cJSON *batch(const bench_batch_run *b) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "batch", b->batch);
  cJSON_AddItemToObject(o, "seconds_per_call", stats(&b->eval_seconds));
  num(o, "evals_per_second", b->evals_per_second);
  num(o, "gflops", b->gflops);
  return o;
}

static cJSON *backend(const bench_backend_run *b) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", b->name);
  cJSON_AddBoolToObject(o, "skipped", b->skipped);
  if (b->skipped) {
    cJSON_AddStringToObject(o, "skip_reason", b->skip_reason);
    return o;
  }
  if (b->variant[0]) cJSON_AddStringToObject(o, "variant", b->variant);
  else cJSON_AddNullToObject(o, "variant");
  cJSON_AddStringToObject(o, "signature", b->signature);
  cJSON *agents = cJSON_AddArrayToObject(o, "agents");
  for (int i = 0; i < b->n_agents; i++) cJSON_AddItemToArray(agents, agent(&b->agents[i]));
  cJSON *batches = cJSON_AddArrayToObject(o, "batches");
  for (int i = 0; i < b->n_batches; i++) cJSON_AddItemToArray(batches, batch(&b->batches[i]));
  return o;
}

char *bench_json_text(const bench_report *r) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  cJSON_AddStringToObject(o, "schema", "cformer-bench");
  cJSON_AddNumberToObject(o, "schema_version", BENCH_SCHEMA_VERSION);
  cJSON_AddStringToObject(o, "cformer_version", r->version);
  cJSON_AddBoolToObject(o, "cost_only", r->cost_only);
  num(o, "paper_macs", r->net.paper_macs);
  num(o, "full_flops", r->net.full_flops);
  cJSON_AddItemToObject(o, "net", net(&r->net));
  if (!r->cost_only) {
    cJSON *suite = cJSON_AddObjectToObject(o, "suite");
    cJSON_AddStringToObject(suite, "file", r->suite);
    cJSON_AddNumberToObject(suite, "positions", r->suite_positions);
    cJSON_AddItemToObject(o, "sgemm", sgemm(&r->sgemm));
    cJSON *peaks = cJSON_AddObjectToObject(o, "matmul_peaks");
    for (int i = 0; i < BENCH_PEAK_PRECISIONS; i++)
      cJSON_AddItemToObject(peaks, cf_precision_name(bench_peak_precision_at(i)),
                            matmul_peak(&r->peaks[i]));
    /* what the runs' GFLOP/s are to be compared with */
    const bench_yardstick y = bench_yardstick_for(r);
    cJSON *ys = cJSON_AddObjectToObject(o, "yardstick");
    cJSON_AddStringToObject(ys, "precision", cf_precision_name(y.precision));
    num(ys, "gflops_1_thread", y.gflops > 0 ? y.gflops : NAN);
    cJSON *machine = cJSON_AddObjectToObject(o, "machine");
    cJSON_AddNumberToObject(machine, "cpus", r->cpus);
    num(machine, "load_average", r->load_average >= 0 ? r->load_average : NAN);
    if (r->backend_options[0])
      cJSON_AddStringToObject(o, "backend_options", r->backend_options);
    else
      cJSON_AddNullToObject(o, "backend_options");
    cJSON_AddStringToObject(o, "signature", r->signature);
    cJSON *backends = cJSON_AddArrayToObject(o, "backends");
    for (int i = 0; i < r->n_backends; i++)
      cJSON_AddItemToArray(backends, backend(&r->backends[i]));
  }
  char *text = cJSON_Print(o);
  cJSON_Delete(o);
  if (!text) return NULL;
  size_t len = strlen(text);
  char *line = realloc(text, len + 2);
  if (!line) {
    free(text);
    return NULL;
  }
  line[len] = '\n';
  line[len + 1] = '\0';
  return line;
}
