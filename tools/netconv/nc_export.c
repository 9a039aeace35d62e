/* nc_export.c: `netconv export NET -o OUT.safetensors`: a network's tensors
 * under our trainer's names (or the Chessformer trainer's), F32, with the
 * import configuration in the safetensors metadata, so that
 * `netconv import OUT.safetensors` rebuilds NET exactly. */
#include <stdlib.h>
#include <string.h>

#include "tools/netconv/nc_common.h"
#include "tools/netconv/nc_config.h"
#include "tools/netconv/nc_names.h"
#include "tools/netconv/nc_safetensors.h"

static const char usage[] =
    "usage: netconv export NET -o OUT.safetensors [--naming ours|chessformer]\n"
    "                      [--weights-max-mb MB]\n\n"
    "Writes every tensor of NET as float32 safetensors. Names and layouts are our\n"
    "trainer's (training/model.py state_dict names, nn.Linear [out][in]; see\n"
    "docs/TRAINER_NAMES.md) or, with --naming chessformer, the Chessformer trainer's\n"
    "([in][out] kernels, rule-50 column times 99 for input formats 1-3). The\n"
    "configuration `netconv import` needs (input format, heads, activations) goes into\n"
    "the file's __metadata__, so `netconv import OUT.safetensors -o NET2` needs no\n"
    "--config. Importing an export gives back NET's values exactly (float32).\n\n"
    NC_WEIGHTS_MAX_MB_HELP;

static void fill_config(const cf_weights *w, nc_naming naming, nc_config *c) {
  nc_config_init(c);
  c->input_format = w->arch.input_format;
  c->heads = w->arch.heads;
  c->layers = w->arch.layers;
  c->d = w->arch.d;
  c->embedding = w->arch.input_embedding == 2 ? 2 : 1;
  c->default_act = w->arch.default_act;
  c->ffn_act = w->arch.ffn_act;
  c->smolgen_act = w->arch.smolgen_act;
  c->naming = naming;
  if (w->license) snprintf(c->license, sizeof c->license, "%s", w->license);
}

int nc_cmd_export(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  nc_naming naming = NC_NAMING_OURS;
  cf_weights_load_options load = {.limit_name = "--weights-max-mb"};
  for (int i = 1; i < argc; i++) {
    int rc = nc_parse_weights_max_mb("export", argc, argv, &i, &load);
    if (rc >= 0) {
      if (rc) return rc;
      continue;
    }
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (++i >= argc) return nc_fail("export", "%s needs a file", a);
      out = argv[i];
    } else if (strcmp(a, "--naming") == 0) {
      if (++i >= argc) return nc_fail("export", "--naming needs a value");
      if (strcmp(argv[i], "ours") == 0) naming = NC_NAMING_OURS;
      else if (strcmp(argv[i], "chessformer") == 0) naming = NC_NAMING_CHESSFORMER;
      else return nc_fail("export", "--naming: '%s' is not ours or chessformer", argv[i]);
    } else if (a[0] == '-') {
      return nc_fail("export", "unknown option '%s' (netconv export --help)", a);
    } else if (in) {
      return nc_fail("export", "one network at a time ('%s' and '%s')", in, a);
    } else {
      in = a;
    }
  }
  if (!in || !out) return nc_fail("export", "need NET and -o OUT (netconv export --help)");
  cf_weights *w = NULL;
  cf_error err = {0};
  if (nc_load_net(in, &load, &w, &err) != CF_OK) return nc_fail("export", "%s", err.msg);
  int n = 0, m = 0, rc = 1;
  nc_slot *slots = nc_slots(w, &n);
  nc_st_out *t = slots ? calloc((size_t)n, sizeof *t) : NULL;
  float **owned = slots ? calloc((size_t)n, sizeof *owned) : NULL;
  char *config = NULL;
  if (!t || !owned) {
    nc_fail("export", "out of memory");
    goto done;
  }
  for (int i = 0; i < n; i++) {
    const nc_slot *s = &slots[i];
    if (!cf_tensor_present(s->t)) continue;
    nc_st_out *o = &t[m++];
    snprintf(o->name, sizeof o->name, "%s", s->name[naming]);
    o->data = s->t->data;
    if (!s->matrix || s->rows <= 0) {
      o->ndim = 1;
      o->shape[0] = s->t->n;
      continue;
    }
    const size_t rows = (size_t)s->rows, cols = s->t->n / rows;
    o->ndim = 2;
    o->shape[0] = rows;
    o->shape[1] = cols;
    if (naming == NC_NAMING_OURS) continue;
    /* Chessformer: [in][out], and the trainer's rule-50 scale on the embedding. */
    float *tr = malloc(s->t->n * sizeof *tr);
    if (!tr) {
      nc_fail("export", "out of memory");
      goto done;
    }
    owned[i] = tr;
    for (size_t r = 0; r < rows; r++)
      for (size_t c = 0; c < cols; c++) {
        float v = s->t->data[r * cols + c];
        if (s->t == &w->ip_emb_w && c == NC_RULE50_COLUMN && nc_needs_rule50_fold(w->arch.input_format))
          v *= NC_RULE50_SCALE;
        tr[c * rows + r] = v;
      }
    o->shape[0] = cols;
    o->shape[1] = rows;
    o->data = tr;
  }
  nc_config cfg;
  fill_config(w, naming, &cfg);
  config = nc_config_to_json(&cfg);
  if (!config || nc_st_write(out, t, m, config, &err) != CF_OK) {
    nc_fail("export", "%s", config ? err.msg : "out of memory");
    goto done;
  }
  printf("%s: %d tensors, %zu parameters, %s naming\n", out, m, w->param_count,
         nc_naming_name(naming));
  rc = 0;
done:
  for (int i = 0; owned && i < n; i++) free(owned[i]);
  free(owned);
  free(t);
  free(slots);
  free(config);
  cf_weights_free(w);
  return rc;
}
