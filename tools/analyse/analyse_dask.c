/* analyse_dask.c: `cformer analyse --workers N | --scheduler ADDR` hands
 * the run to the Dask driver (python/cformer/dask.py), passing this
 * binary's path for the workers and the analysis flags for their --serve
 * processes. The interpreter is Debian's /usr/bin/python3 (where
 * python3-distributed lives), or $CFORMER_PYTHON.
 *
 * The driver and its workers import the cformer package that belongs to
 * this binary, with no setting from the user: a binary in its build tree
 * uses the source's python/ and the build's libcformer; an installed one
 * the package installed beside it (PREFIX/CF_INSTALL_PY_SITE, found from
 * the binary's own path, so a moved prefix works), which finds its library
 * itself. The folder goes first on the child's PYTHONPATH (the workers
 * inherit it); a CFORMER_LIBRARY the user set is kept. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/analyse/analyse_modes.h"
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

/* The driver, started so that a missing module is one line, not a
 * traceback; argv[1:] are its flags. */
static const char bootstrap[] =
    "import sys\n"
    "try:\n"
    "    import cformer.dask\n"
    "except ImportError as e:\n"
    "    sys.exit('cformer analyse: the Dask run cannot import its Python package: %s' % e)\n"
    "sys.exit(cformer.dask.main(sys.argv[1:]))\n";

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* *out = dir + "/" + rest, false when it does not fit. */
static bool join(char *out, size_t size, const char *dir, const char *rest) {
  return (size_t)snprintf(out, size, "%s/%s", dir, rest) < size;
}

/* path's parent folder, in place (dirname may return other storage). */
static void up(char path[PATH_MAX]) {
  char copy[PATH_MAX];
  snprintf(copy, sizeof copy, "%s", path);
  snprintf(path, PATH_MAX, "%s", dirname(copy));
}

/* The folder holding this binary's cformer package into pkg ("" when none
 * is found), and in a build tree its library into lib (else ""). */
static void find_package(const char *self, char pkg[PATH_MAX], char lib[PATH_MAX]) {
  char dir[PATH_MAX], build_tools[PATH_MAX], probe[PATH_MAX + 32];
  pkg[0] = lib[0] = 0;
  snprintf(dir, PATH_MAX, "%s", self);
  up(dir); /* the binary's folder */
  if (realpath(CF_BUILD_TOOLS_DIR, build_tools) && strcmp(dir, build_tools) == 0) {
    if (join(probe, sizeof probe, CF_BUILD_PYTHON_DIR, "cformer/__init__.py") && is_file(probe)) {
      snprintf(pkg, PATH_MAX, "%s", CF_BUILD_PYTHON_DIR);
      if (is_file(CF_BUILD_LIBRARY)) snprintf(lib, PATH_MAX, "%s", CF_BUILD_LIBRARY);
    }
    return;
  }
  /* installed: up from the binary's folder by bindir's depth to the prefix */
  const char *bindir = CF_INSTALL_BINDIR;
  if (!CF_INSTALL_PY_SITE[0] || bindir[0] == '/') return;
  for (const char *c = bindir; *c; c++)
    if (c == bindir || (c[-1] == '/' && *c != '/')) up(dir);
  char site[PATH_MAX];
  if (join(site, sizeof site, dir, CF_INSTALL_PY_SITE) &&
      join(probe, sizeof probe, site, "cformer/__init__.py") && is_file(probe))
    snprintf(pkg, PATH_MAX, "%s", site);
}

/* PYTHONPATH (and in a build tree CFORMER_LIBRARY) for the driver. */
static void point_python_at_package(const char *self) {
  char pkg[PATH_MAX], lib[PATH_MAX];
  find_package(self, pkg, lib);
  if (pkg[0]) {
    const char *old = getenv("PYTHONPATH");
    size_t n = strlen(pkg) + (old ? strlen(old) : 0) + 2;
    char *path = malloc(n);
    if (path) {
      snprintf(path, n, "%s%s%s", pkg, old && *old ? ":" : "", old ? old : "");
      setenv("PYTHONPATH", path, 1);
      free(path);
    }
  }
  if (lib[0]) setenv("CFORMER_LIBRARY", lib, 0);
}

int analyse_dask(const analyse_args *a, const char *argv0) {
  static arg_list l;
  const char *python = getenv("CFORMER_PYTHON");
  if (!python || !*python) python = "/usr/bin/python3";
  char self[PATH_MAX];
  if (!realpath("/proc/self/exe", self)) snprintf(self, sizeof self, "%s", argv0);
  point_python_at_package(self);
  static const char *const kinds[] = {"jsonl", "csv", "pgn"};
  add(&l, "%s", python);
  add(&l, "%s", "-c");
  add(&l, "%s", bootstrap);
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
