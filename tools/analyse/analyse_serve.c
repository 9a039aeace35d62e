/* analyse_serve.c: the two ends of `cformer analyse` that the Dask driver
 * (python/cformer/dask.py) talks to.
 *
 * --emit-units: the driver's reader. Reads INPUT as the plain command
 * would, reports its bad games on stderr, and writes every good unit to
 * stdout in the units format (analyse_units.h), which the driver cuts
 * into shards of --shard-size units. The last line,
 *   {"end": true, "bad_units": N}
 * says how many units were unreadable, for the driver's closing summary
 * (the plain command's "N unreadable game(s) skipped").
 *
 * --serve: a worker's resident process. Loads the network once, says
 * "ready" (or "error: ..." and exits 1), then for each request line
 *   {"input": UNITS_FILE, "output": FILE, "source": NAME}
 * analyses the shard into FILE exactly as the plain command would have
 * (same batching: one shard is one flush group), and answers one line
 *   {"ok": true, "positions": N} or {"error": "..."}. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analyse/analyse_modes.h"
#include "tools/analyse/analyse_run.h"

int analyse_emit_units(const analyse_args *a) {
  analyse_units units;
  cf_error err = {0};
  if (analyse_units_open(&units, a->input, (analyse_format)a->format, &err) != CF_OK) {
    fprintf(stderr, "cformer analyse: %s\n", err.msg);
    return 1;
  }
  analyse_unit u = {0};
  int rc;
  long bad = 0;
  cf_status st = CF_OK;
  while (st == CF_OK && (rc = analyse_units_next(&units, &u, &err)) > 0) {
    if (u.bad) {
      bad++;
      fprintf(stderr, "cformer analyse: %s: %s %ld: %s (skipped)\n", a->source_name,
              a->format == ANALYSE_PGN ? "game" : "record", u.game, u.why);
      continue;
    }
    if (u.cut[0])
      fprintf(stderr, "cformer analyse: %s: game %ld: %s (analysed up to it)\n", a->source_name,
              u.game, u.cut);
    st = analyse_unit_write_json(&u, stdout, &err);
  }
  if (st == CF_OK && rc < 0) st = err.status;
  if (st == CF_OK && printf("{\"end\":true,\"bad_units\":%ld}\n", bad) < 0)
    st = cf_error_set(&err, CF_ERR_IO, "cannot write the units");
  if (st == CF_OK && fflush(stdout) != 0) st = cf_error_set(&err, CF_ERR_IO, "cannot write the units");
  if (st != CF_OK) fprintf(stderr, "cformer analyse: %s\n", err.msg);
  analyse_unit_free(&u);
  analyse_units_close(&units);
  return st == CF_OK ? 0 : 1;
}

static void answer_error(const char *msg) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "error", msg);
  char *text = cJSON_PrintUnformatted(o);
  printf("%s\n", text ? text : "{\"error\":\"out of memory\"}");
  fflush(stdout);
  free(text);
  cJSON_Delete(o);
}

static void serve_one(const analyse_args *a, cf_net *net, const char *request) {
  cJSON *o = cJSON_Parse(request);
  const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "input");
  const cJSON *outp = cJSON_GetObjectItemCaseSensitive(o, "output");
  const cJSON *src = cJSON_GetObjectItemCaseSensitive(o, "source");
  if (!cJSON_IsString(in) || !cJSON_IsString(outp) || !cJSON_IsString(src)) {
    answer_error("bad request: expected {\"input\", \"output\", \"source\"}");
    cJSON_Delete(o);
    return;
  }
  FILE *out = fopen(outp->valuestring, "w");
  if (!out) {
    char msg[1200];
    snprintf(msg, sizeof msg, "cannot write '%s'", outp->valuestring);
    answer_error(msg);
    cJSON_Delete(o);
    return;
  }
  analyse_run_config c = {.input = in->valuestring, .format = ANALYSE_UNITS,
                          .source_name = src->valuestring, .out_kind = a->out_kind, .out = out,
                          .agent_name = a->agent, .shard_size = 0, .warn = stderr,
                          .progress = false, .prog = "cformer analyse --serve"};
  analyse_engine_options eo = analyse_engine_options_of(a);
  analyse_run_stats stats;
  cf_error err = {0};
  cf_status st = analyse_run(&c, net, &eo, &stats, &err);
  if (fclose(out) != 0 && st == CF_OK) st = cf_error_set(&err, CF_ERR_IO, "cannot write the shard");
  if (st != CF_OK) answer_error(err.msg);
  else {
    printf("{\"ok\":true,\"positions\":%ld,\"units\":%ld}\n", stats.positions, stats.units);
    fflush(stdout);
  }
  cJSON_Delete(o);
}

int analyse_serve(const analyse_args *a) {
  cf_net *net = NULL;
  cf_error err = {0};
  if (analyse_open_net(a, &net, &err) != CF_OK) {
    printf("error: %s\n", err.msg);
    fflush(stdout);
    return 1;
  }
  printf("ready\n");
  fflush(stdout);
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, stdin) > 0) {
    line[strcspn(line, "\n")] = 0;
    if (line[0]) serve_one(a, net, line);
  }
  free(line);
  cf_net_free(net);
  return 0;
}
