/* nc_export.c: `netconv export NET -o OUT.safetensors`: a network's tensors
 * under our trainer's names (or the Chessformer trainer's), F32, with the
 * import configuration in the safetensors metadata, so that
 * `netconv import OUT.safetensors` rebuilds NET exactly. With --onnx OUT.onnx
 * it writes the network as an ONNX model instead (nc_export_onnx.c). */
#include <stdlib.h>
#include <string.h>

#include "tools/cli/cf_cli.h"
#include "tools/cli/cf_cli_net.h"
#include "tools/netconv/nc_common.h"
#include "tools/netconv/nc_config.h"
#include "tools/netconv/nc_export_onnx.h"
#include "tools/netconv/nc_names.h"
#include "tools/netconv/nc_safetensors.h"

static const char usage[] =
    "usage: netconv export NET -o OUT.safetensors [--naming ours|chessformer]\n"
    "                      [--weights-max-mb MB]\n"
    "       netconv export NET --onnx OUT.onnx [--precision float32|float16|bfloat16]\n"
    "                      [--weights-max-mb MB]\n\n"
    "Writes every tensor of NET as float32 safetensors. Names and layouts are our\n"
    "trainer's (training/model.py state_dict names, nn.Linear [out][in]; see\n"
    "docs/TRAINER_NAMES.md) or, with --naming chessformer, the Chessformer trainer's\n"
    "([in][out] kernels, rule-50 column times 99 for input formats 1-3). The\n"
    "configuration `netconv import` needs (input format, heads, activations) goes into\n"
    "the file's __metadata__, so `netconv import OUT.safetensors -o NET2` needs no\n"
    "--config. Importing an export gives back NET's values exactly (float32). NET may\n"
    "be <built in>, the network embedded in cformer.\n\n"
    "--onnx writes NET as an ONNX model (opset 17, dynamic batch, Lc0's leela2onnx\n"
    "tensor names: /input/planes [N,112,8,8], /output/policy [N,1858], /output/wdl\n"
    "[N,3], /output/mlh [N,1]; docs/NETCONV.md). It needs python3 and python3-onnx.\n"
    "--precision stores the weights as float16 or bfloat16 (computing in float32).\n\n";

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
  static const char *const namings[] = {"ours", "chessformer", NULL};
  static const char *const precisions[] = {"float32", "float16", "bfloat16", NULL};
  const char *out = NULL, *onnx = NULL;
  int naming_index = -1, precision_index = -1;
  cf_weights_load_options load = CF_CLI_WEIGHTS_LOAD;
  cf_cli_flag flags[] = {
      {.name = "output", .letter = 'o', .kind = CF_CLI_STRING, .dest = &out,
       .arg = "OUT.safetensors", .help = "the safetensors file to write"},
      {.name = "onnx", .kind = CF_CLI_STRING, .dest = &onnx, .arg = "OUT.onnx",
       .help = "write an ONNX model instead (not with -o)"},
      {.name = "precision", .kind = CF_CLI_CHOICE, .dest = &precision_index, .choices = precisions,
       .arg = "P", .help = "with --onnx: float32 (default), float16 or bfloat16 weights"},
      {.name = "naming", .kind = CF_CLI_CHOICE, .dest = &naming_index, .choices = namings,
       .arg = "N", .help = "ours (default) or chessformer: whose tensor names and layouts"},
      CF_CLI_WEIGHTS_MAX_MB_FLAG(&load),
  };
  cf_cli_spec spec = {.prog = "netconv export", .version = "netconv " CF_VERSION, .usage = usage,
                      .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0]),
                      .positional_name = "NET", .max_positional = 1};
  int st = cf_cli_parse(&spec, argc, argv);
  if (st != CF_CLI_CONTINUE) return st;
  const char *in = spec.positional.count ? spec.positional.items[0] : NULL;
  cf_cli_free(&spec);
  if (!in) return cf_cli_usage_error(&spec, "no network given: netconv export NET -o OUT");
  if (!out == !onnx)
    return cf_cli_usage_error(&spec, out ? "give -o OUT.safetensors or --onnx OUT.onnx, not both"
                                         : "no output given: -o OUT.safetensors or --onnx OUT.onnx");
  if (onnx && naming_index >= 0)
    return cf_cli_usage_error(&spec, "--naming is for safetensors (-o), not --onnx");
  if (!onnx && precision_index >= 0)
    return cf_cli_usage_error(&spec, "--precision is for --onnx; safetensors are float32");
  const nc_naming naming = naming_index <= 0 ? NC_NAMING_OURS : NC_NAMING_CHESSFORMER;
  cf_weights *w = NULL;
  cf_error err = {0};
  if (nc_load_net(in, &load, &w, &err) != CF_OK) return nc_fail("export", "%s", err.msg);
  if (onnx) {
    int orc = nc_export_onnx(w, in, onnx, precisions[precision_index < 0 ? 0 : precision_index]);
    cf_weights_free(w);
    return orc;
  }
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
