/* nc_export_onnx.c: `netconv export NET --onnx OUT.onnx`.
 *
 * The graph is built by the Python module in tools/netconv/onnx_export/
 * with Debian's python3-onnx (its helper builds the protobuf, its checker
 * and shape inference verify the result; docs/NETCONV.md says why this and
 * not libonnx). This file is the C half: cformer's own loader reads NET (so
 * every encoding, the 134 -> 7 and single-head normalisations and every size
 * check are the engine's), the decoded float32 tensors go to a private
 * temporary safetensors file under their field paths ("weights.encoder[0].
 * mha.q_w"), with the resolved architecture and the 1858-move policy map
 * as JSON metadata, and the exporter writes OUT.tmp.PID beside OUT, which
 * is renamed into place only when the exporter succeeded: OUT is either the
 * complete new file or untouched. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "policy_head/cf_policy_map.h"
#include "tools/netconv/nc_common.h"
#include "tools/netconv/nc_export_onnx.h"
#include "tools/netconv/nc_safetensors.h"

#ifndef CF_ONNX_EXPORTER_PATHS
#define CF_ONNX_EXPORTER_PATHS ""
#endif

/* Every present tensor of w, 1-D, under its field path. */
typedef struct collect {
  nc_st_out *t;
  int n, cap;
  bool oom;
} collect;

static bool collect_one(void *user, const char *path, cf_tensor *t) {
  collect *c = user;
  if (!cf_tensor_present(t)) return true;
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 256;
    nc_st_out *p = realloc(c->t, (size_t)cap * sizeof *p);
    if (!p) {
      c->oom = true;
      return false;
    }
    c->t = p;
    c->cap = cap;
  }
  nc_st_out *o = &c->t[c->n++];
  memset(o, 0, sizeof *o);
  snprintf(o->name, sizeof o->name, "%s", path);
  o->ndim = 1;
  o->shape[0] = t->n;
  o->data = t->data;
  return true;
}

/* The architecture as the exporter reads it (every field it needs that the
 * tensor sizes do not give), plus the policy map. NULL when out of memory. */
static char *arch_json(const cf_weights *w) {
  const cf_net_arch *a = &w->arch;
  cJSON *j = cJSON_CreateObject();
  if (!j) return NULL;
  cJSON_AddNumberToObject(j, "input_format", a->input_format);
  cJSON_AddNumberToObject(j, "input_embedding", a->input_embedding);
  cJSON_AddNumberToObject(j, "layers", a->layers);
  cJSON_AddNumberToObject(j, "d", a->d);
  cJSON_AddNumberToObject(j, "dm", a->dm);
  cJSON_AddNumberToObject(j, "heads", a->heads);
  cJSON_AddNumberToObject(j, "emb_inputs", a->emb_inputs);
  cJSON_AddNumberToObject(j, "emb_dense_s", a->emb_dense_s);
  cJSON_AddStringToObject(j, "default_activation", cf_activation_name(a->default_act));
  cJSON_AddStringToObject(j, "ffn_activation", cf_activation_name(a->ffn_act));
  cJSON_AddStringToObject(j, "smolgen_activation", cf_activation_name(a->smolgen_act));
  cJSON_AddBoolToObject(j, "moves_left", a->has_moves_left);
  cJSON *map = cJSON_AddArrayToObject(j, "policy_map");
  /* policy_map[i] = the attention slot (0..4287) of 1858 entry i. */
  int slot[1858];
  for (int i = 0; i < 1858; i++) slot[i] = -1;
  for (int s = 0; s < CF_POLICY_4288; s++) {
    int i = cf_policy_1858_of_attention(s);
    if (i >= 0 && i < 1858) slot[i] = s;
  }
  for (int i = 0; map && i < 1858; i++) cJSON_AddItemToArray(map, cJSON_CreateNumber(slot[i]));
  char *text = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  return text;
}

/* OUT's directory must exist and be writable before any work is done. */
static int check_out_dir(const char *out) {
  char *copy = strdup(out);
  if (!copy) return nc_fail("export", "out of memory");
  const char *dir = dirname(copy);
  struct stat st;
  int rc = 0;
  if (stat(dir, &st) != 0)
    rc = nc_fail("export", "cannot write %s: directory %s: %s", out, dir, strerror(errno));
  else if (!S_ISDIR(st.st_mode))
    rc = nc_fail("export", "cannot write %s: %s is not a directory", out, dir);
  else if (access(dir, W_OK) != 0)
    rc = nc_fail("export", "cannot write %s: directory %s is not writable", out, dir);
  free(copy);
  return rc;
}

/* The exporter script: $CFORMER_ONNX_EXPORTER; else, like the tools' data
 * files (tools/data/cf_data_path.h), <folder of netconv>/../share/cformer/
 * onnx_export (an installed tree, wherever it was moved); else the build's
 * candidates: the source tree, then the configured install folder. */
static const char *find_exporter(char *buf, size_t size) {
  const char *env = getenv("CFORMER_ONNX_EXPORTER");
  if (env && *env) return env;
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      int w = snprintf(buf, size, "%s/../share/cformer/onnx_export/cf_onnx_export.py", exe);
      if (w > 0 && (size_t)w < size && access(buf, R_OK) == 0) return buf;
    }
  }
  const char *p = CF_ONNX_EXPORTER_PATHS;
  while (*p) {
    const char *end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len < size) {
      memcpy(buf, p, len);
      buf[len] = '\0';
      if (access(buf, R_OK) == 0) return buf;
    }
    p += len + (end ? 1 : 0);
  }
  return NULL;
}

/* Runs python3 SCRIPT ARGS...; its exit status, or -1 if it did not run. */
static int run_exporter(const char *script, const char *weights, const char *tmp_out,
                        const char *precision, const char *name) {
  /* Debian's interpreter, whose python3-onnx and python3-numpy the exporter
   * imports, before whatever python3 PATH finds first. */
  const char *python = getenv("CFORMER_PYTHON");
  if (!python || !*python) python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    execlp(python, python, script, "--weights", weights, "--output", tmp_out, "--precision",
           precision, "--name", name, (char *)NULL);
    fprintf(stderr, "netconv export: cannot run %s: %s (install python3 and python3-onnx)\n",
            python, strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int nc_export_onnx(cf_weights *w, const char *net_name, const char *out, const char *precision) {
  if (check_out_dir(out)) return 1;
  char script_buf[4096];
  const char *script = find_exporter(script_buf, sizeof script_buf);
  if (!script)
    return nc_fail("export", "the ONNX exporter (onnx_export/cf_onnx_export.py) is not "
                             "installed; set CFORMER_ONNX_EXPORTER to its path");
  const char *tmpdir = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/netconv-onnx-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  if (!mkdtemp(dir)) return nc_fail("export", "cannot create a temporary directory: %s", strerror(errno));
  char weights[4200], tmp_out[4200];
  snprintf(weights, sizeof weights, "%s/weights.safetensors", dir);
  snprintf(tmp_out, sizeof tmp_out, "%s.tmp.%ld", out, (long)getpid());

  int rc = 1;
  collect c = {0};
  char *meta = NULL;
  cf_error err = {0};
  cf_weights_visit(w, collect_one, &c);
  meta = c.oom ? NULL : arch_json(w);
  if (!meta) {
    nc_fail("export", "out of memory");
    goto done;
  }
  if (nc_st_write(weights, c.t, c.n, meta, &err) != CF_OK) {
    nc_fail("export", "%s", err.msg);
    goto done;
  }
  int status = run_exporter(script, weights, tmp_out, precision, net_name);
  if (status != 0) {
    if (status < 0) nc_fail("export", "the ONNX exporter did not finish");
    goto done;
  }
  if (rename(tmp_out, out) != 0) {
    nc_fail("export", "%s: cannot write: %s", out, strerror(errno));
    goto done;
  }
  rc = 0;
done:
  remove(tmp_out);
  remove(weights);
  rmdir(dir);
  free(c.t);
  free(meta);
  return rc;
}
