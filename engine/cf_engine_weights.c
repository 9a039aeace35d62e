/* cf_engine_weights.c: WeightsFile -> cf_net (path, built in, autodiscover). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/cf_engine_weights.h"

void cf_engine_default_search_dirs(const char *exe_dir, char buf[][1024], const char **dirs,
                                   int max) {
  int n = 0;
#define ADD(...)                                   \
  do {                                             \
    if (n < max - 1) {                             \
      snprintf(buf[n], 1024, __VA_ARGS__);         \
      dirs[n] = buf[n];                            \
      n++;                                         \
    }                                              \
  } while (0)
  if (exe_dir && *exe_dir) {
    ADD("%s", exe_dir);
    ADD("%s/networks", exe_dir);
  }
  const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
  if (xdg && *xdg) ADD("%s/cformer", xdg);
  else if (home && *home) ADD("%s/.local/share/cformer", home);
  ADD("/usr/local/share/cformer");
  ADD("/usr/share/cformer");
#undef ADD
  dirs[n] = NULL;
}

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Loads and creates; fills info. */
static cf_status create(cf_weights *w, const char *source, const cf_engine_weights_spec *spec,
                        cf_net **out, cf_engine_weights_info *info, cf_error *err) {
  cf_net_options o = spec->net;
  if (o.backend && strcmp(o.backend, "auto") == 0) o.backend = NULL;
  cf_status st = cf_net_create(w, &o, out, err);
  /* The load, not the first search, builds the backend's per-shape
   * kernels (docs/BACKENDS.md "Warm starts"). */
  if (st == CF_OK && (st = cf_net_warm(*out, err)) != CF_OK) {
    cf_net_free(*out);
    *out = NULL;
  }
  if (st == CF_OK) {
    memset(info, 0, sizeof *info);
    snprintf(info->source, sizeof info->source, "%s", source);
    snprintf(info->license, sizeof info->license, "%s", w->license ? w->license : "");
    info->untrained = w->license && strstr(w->license, CF_UNTRAINED_MARKER) != NULL;
    info->layers = w->arch.layers;
    info->d = w->arch.d;
    info->heads = w->arch.heads;
    info->params = w->param_count;
    info->n_notes = w->n_notes;
    memcpy(info->notes, w->notes, sizeof info->notes);
  } else {
    cf_error_prefix(err, "%s", source);
  }
  cf_weights_free(w);
  return st;
}

static cf_status load_built_in(const cf_engine_weights_spec *spec, cf_net **out,
                               cf_engine_weights_info *info, cf_error *err) {
  cf_weights *w;
  CF_TRY(cf_weights_load_memory(cf_default_net_data, cf_default_net_size, CF_WEIGHTS_BUILT_IN,
                                NULL, &w, err));
  return create(w, CF_WEIGHTS_BUILT_IN, spec, out, info, err);
}

static cf_status load_path(const char *path, const cf_engine_weights_spec *spec, cf_net **out,
                           cf_engine_weights_info *info, cf_error *err) {
  cf_weights *w;
  CF_TRY(cf_weights_load_file(path, &spec->load, &w, err));
  return create(w, path, spec, out, info, err);
}

typedef struct candidate {
  char path[1024];
  time_t mtime;
} candidate;

static int newest_first(const void *a, const void *b) {
  const candidate *x = a, *y = b;
  if (x->mtime != y->mtime) return x->mtime < y->mtime ? 1 : -1;
  return strcmp(x->path, y->path);
}

/* Collects the network files of one folder (at most 64 per folder). */
static int scan(const char *dir, candidate *c, int max) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while (n < max && (e = readdir(d)) != NULL) {
    if (!has_suffix(e->d_name, ".pb.gz") && !has_suffix(e->d_name, ".pb")) continue;
    struct stat st;
    snprintf(c[n].path, sizeof c[n].path, "%s/%s", dir, e->d_name);
    if (stat(c[n].path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    c[n].mtime = st.st_mtime;
    n++;
  }
  closedir(d);
  qsort(c, (size_t)n, sizeof *c, newest_first);
  return n;
}

/* Records the files autodiscover passed over in the loaded net's info. */
static void note_skipped(cf_engine_weights_info *info, const cf_engine_skipped *skipped, int n) {
  info->n_skipped_total = n;
  info->n_skipped = n < CF_ENGINE_SKIPPED_MAX ? n : CF_ENGINE_SKIPPED_MAX;
  memcpy(info->skipped, skipped, (size_t)info->n_skipped * sizeof *skipped);
}

static cf_status autodiscover(const cf_engine_weights_spec *spec, cf_net **out,
                              cf_engine_weights_info *info, cf_error *err) {
  enum { MAX = 64 };
  candidate *c = malloc(MAX * sizeof *c);
  if (!c) return cf_error_set(err, CF_ERR_NOMEM, "autodiscover: out of memory");
  /* Kept aside: load_path fills *info for the file it is given. */
  cf_engine_skipped skipped[CF_ENGINE_SKIPPED_MAX];
  int n_skipped = 0;
  for (int i = 0; spec->search_dirs && spec->search_dirs[i]; i++) {
    int n = scan(spec->search_dirs[i], c, MAX);
    for (int k = 0; k < n; k++) {
      cf_error why = {0};
      cf_status st = load_path(c[k].path, spec, out, info, &why);
      if (st == CF_OK) {
        free(c);
        note_skipped(info, skipped, n_skipped);
        return CF_OK;
      }
      if (n_skipped < CF_ENGINE_SKIPPED_MAX) {
        snprintf(skipped[n_skipped].path, sizeof skipped[n_skipped].path, "%s", c[k].path);
        snprintf(skipped[n_skipped].why, sizeof skipped[n_skipped].why, "%s", why.msg);
      }
      n_skipped++;
    }
  }
  free(c);
  CF_TRY(load_built_in(spec, out, info, err));
  note_skipped(info, skipped, n_skipped);
  return CF_OK;
}

cf_status cf_engine_load_net(const cf_engine_weights_spec *spec, cf_net **out,
                             cf_engine_weights_info *info, cf_error *err) {
  *out = NULL;
  const char *w = spec->weights ? spec->weights : CF_WEIGHTS_AUTODISCOVER;
  if (strcmp(w, CF_WEIGHTS_BUILT_IN) == 0) return load_built_in(spec, out, info, err);
  if (strcmp(w, CF_WEIGHTS_AUTODISCOVER) == 0 || !*w) return autodiscover(spec, out, info, err);
  return load_path(w, spec, out, info, err);
}
