/* analyse_dask.c: `cformer analyse --workers N | --scheduler ADDR` hands
 * the run to the Dask driver, python3 -m cformer.dask (python/cformer/
 * dask.py), passing this binary's path for the workers and the analysis
 * flags for their --serve processes. The interpreter is Debian's
 * /usr/bin/python3 (where python3-distributed lives), or $CFORMER_PYTHON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/analyse/analyse_cmd.h"
#include "tools/analyse/analyse_resume.h"

#define MAX_ARGS 64

typedef struct arg_list {
  char *v[MAX_ARGS + 1];
  int n;
  char store[MAX_ARGS][4200];
} arg_list;

static void add(arg_list *l, const char *fmt, const char *value) {
  if (l->n >= MAX_ARGS) return;
  snprintf(l->store[l->n], sizeof l->store[l->n], fmt, value);
  l->v[l->n] = l->store[l->n];
  l->n++;
}

static void add_long(arg_list *l, const char *fmt, long value) {
  char text[32];
  snprintf(text, sizeof text, "%ld", value);
  add(l, fmt, text);
}

int analyse_dask(const analyse_args *a, const char *argv0) {
  static arg_list l;
  const char *python = getenv("CFORMER_PYTHON");
  if (!python || !*python) python = "/usr/bin/python3";
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) snprintf(self, sizeof self, "%s", argv0);
  else self[n] = 0;
  static const char *const kinds[] = {"jsonl", "csv", "pgn"};
  add(&l, "%s", python);
  add(&l, "%s", "-m");
  add(&l, "%s", "cformer.dask");
  add(&l, "--binary=%s", self);
  add(&l, "--input=%s", a->input);
  add(&l, "--source-name=%s", a->source_name);
  add(&l, "--format=%s", analyse_format_names[a->format]);
  add(&l, "--output-format=%s", kinds[a->out_kind]);
  add_long(&l, "--shard-size=%s", a->shard_size);
  if (a->output) add(&l, "--output=%s", a->output);
  if (a->workers) add_long(&l, "--workers=%s", a->workers);
  if (a->scheduler) add(&l, "--scheduler=%s", a->scheduler);
  if (a->resume) add(&l, "%s", "--resume");
  if (a->quiet) add(&l, "%s", "--quiet");
  add(&l, "%s", "--");
  /* the workers' `cformer analyse --serve` flags */
  add(&l, "--weights=%s", a->weights);
  if (a->load.max_decompressed_bytes)
    add_long(&l, "--weights-max-mb=%s", (long)(a->load.max_decompressed_bytes >> 20));
  if (a->backend) add(&l, "--backend=%s", a->backend);
  if (a->backend_opts) add(&l, "--backend-opts=%s", a->backend_opts);
  if (a->threads > 1) add_long(&l, "--threads=%s", a->threads);
  add_long(&l, "--batch=%s", a->batch);
  add_long(&l, "--top-k=%s", a->top_k);
  add_long(&l, "--multipv=%s", a->multipv);
  if (a->agent) add(&l, "--agent=%s", a->agent);
  if (a->nodes) add_long(&l, "--nodes=%s", a->nodes);
  if (a->movetime) add_long(&l, "--movetime=%s", a->movetime);
  l.v[l.n] = NULL;
  fflush(NULL);
  execv(python, l.v);
  fprintf(stderr, "cformer analyse: cannot run %s for the Dask driver: %s\n", python,
          strerror(errno));
  return 1;
}
