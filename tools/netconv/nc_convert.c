/* nc_convert.c: `netconv convert IN -o OUT [--encoding E] [--no-gzip]
 * [--network-format 7|134]`.
 * Loading normalises older layouts (network 134 -> 7, single heads ->
 * multi-head); saving writes the multi-head layout, as network format 7 or,
 * for the Chessformer trainer's tools, 134. The written bytes are decoded
 * again and compared with the input tensor by tensor, so the reported error
 * is what a reader of OUT really gets. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli/cf_cli.h"
#include "tools/cli/cf_cli_net.h"
#include "tools/netconv/nc_common.h"

static const char usage[] =
    "usage: netconv convert IN -o OUT [--encoding linear16|float16|bfloat16|float32]\n"
    "                       [--network-format 7|134] [--no-gzip] [--quiet]\n"
    "                       [--weights-max-mb MB]\n\n"
    "Re-encodes a network. Older layouts are normalised on the way (network format\n"
    "134 -> 7, single policy/value heads -> multi-head layout). Prints the largest\n"
    "absolute error the new encoding introduced in each tensor. IN may be <built in>,\n"
    "the network embedded in cformer. --network-format 134 writes the number the\n"
    "Chessformer trainer (lczero-training) reads for this layout, with LINEAR16\n"
    "tensors, the only encoding its tools know (docs/LCZERO_TRAINING.md).\n\n";

/* --network-format: the values and what each means. */
static const char *const network_format_names[] = {"7", "134", NULL};
static const int network_format_values[] = {7, 134};

typedef struct tensor_list {
  cf_tensor **t;
  char (*path)[CF_WEIGHTS_PATH_MAX];
  int n, cap;
} tensor_list;

static bool collect(void *user, const char *path, cf_tensor *t) {
  tensor_list *l = user;
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 256;
    cf_tensor **nt = realloc(l->t, (size_t)cap * sizeof *nt);
    if (!nt) return false;
    l->t = nt;
    char(*np)[CF_WEIGHTS_PATH_MAX] = realloc(l->path, (size_t)cap * sizeof *np);
    if (!np) return false;
    l->path = np;
    l->cap = cap;
  }
  l->t[l->n] = t;
  snprintf(l->path[l->n], CF_WEIGHTS_PATH_MAX, "%s", path);
  l->n++;
  return true;
}

/* Prints per-tensor errors; returns the largest, or -1 if the nets differ in shape. */
static double compare(cf_weights *a, cf_weights *b, bool quiet) {
  tensor_list la = {0}, lb = {0};
  cf_weights_visit(a, collect, &la);
  cf_weights_visit(b, collect, &lb);
  double worst = la.n == lb.n ? 0 : -1;
  for (int i = 0; worst >= 0 && i < la.n; i++) {
    if (la.t[i]->n != lb.t[i]->n) {
      worst = -1;
      break;
    }
    if (!la.t[i]->n) continue;
    double m = 0;
    for (size_t j = 0; j < la.t[i]->n; j++) {
      double e = fabs((double)la.t[i]->data[j] - (double)lb.t[i]->data[j]);
      if (e > m) m = e;
    }
    if (!quiet) printf("  %-56s %-9s %.3g\n", la.path[i], cf_encoding_name(lb.t[i]->encoding), m);
    if (m > worst) worst = m;
  }
  free(la.t);
  free(la.path);
  free(lb.t);
  free(lb.path);
  return worst;
}

int nc_cmd_convert(int argc, char **argv) {
  const char *out = NULL;
  cf_encoding enc = CF_ENC_UNKNOWN;
  bool no_gzip = false, quiet = false;
  int network_choice = -1; /* index into network_format_values; -1: 7 */
  cf_weights_load_options load = CF_CLI_WEIGHTS_LOAD;
  cf_cli_flag flags[] = {
      {.name = "output", .letter = 'o', .kind = CF_CLI_STRING, .dest = &out, .arg = "OUT",
       .attrs = CF_CLI_REQUIRED, .help = "the network file to write"},
      {.name = "encoding", .kind = CF_CLI_CHOICE, .choices = nc_encoding_names, .arg = "E",
       .set = nc_set_encoding, .ctx = &enc,
       .help = "tensor encoding of OUT (default: each tensor keeps its own)"},
      {.name = "network-format", .kind = CF_CLI_CHOICE, .choices = network_format_names,
       .dest = &network_choice, .arg = "N",
       .help = "7 (Lc0, the default) or 134 (the Chessformer trainer's tools; LINEAR16)"},
      {.name = "no-gzip", .kind = CF_CLI_BOOL, .dest = &no_gzip, .help = "write the bare protobuf"},
      {.name = "quiet", .kind = CF_CLI_BOOL, .dest = &quiet,
       .help = "only the summary line, not one line per tensor"},
      CF_CLI_WEIGHTS_MAX_MB_FLAG(&load),
  };
  cf_cli_spec spec = {.prog = "netconv convert", .version = "netconv " CF_VERSION, .usage = usage,
                      .flags = flags, .n_flags = (int)(sizeof flags / sizeof flags[0]),
                      .positional_name = "IN", .max_positional = 1};
  int st = cf_cli_parse(&spec, argc, argv);
  if (st != CF_CLI_CONTINUE) return st;
  const char *in = spec.positional.count ? spec.positional.items[0] : NULL;
  cf_cli_free(&spec);
  if (!in) return cf_cli_usage_error(&spec, "no input network given: netconv convert IN -o OUT");
  const int network = network_choice >= 0 ? network_format_values[network_choice] : 7;
  /* The Chessformer trainer's Layer has no encoding field: it reads every
   * tensor as LINEAR16, so a file for it must hold nothing else. */
  if (network == 134) {
    if (enc != CF_ENC_UNKNOWN && enc != CF_ENC_LINEAR16)
      return cf_cli_usage_error(&spec,
                                "--network-format 134 writes LINEAR16 only (the Chessformer "
                                "trainer's tools read no other encoding), not --encoding %s",
                                cf_encoding_name(enc));
    enc = CF_ENC_LINEAR16;
  }
  const bool gzip = !no_gzip;
  cf_weights *w = NULL, *back = NULL;
  cf_error err = {0};
  void *buf = NULL;
  size_t size = 0;
  int rc = 1;
  if (nc_load_net(in, &load, &w, &err) != CF_OK) {
    nc_fail("convert", "%s", err.msg);
    goto done;
  }
  /* What IN holds that OUT will not: said once here, as the loader noted it. */
  for (int i = 0; i < w->n_notes; i++) fprintf(stderr, "netconv convert: warning: %s\n", w->notes[i]);
  w->save_network_format = network;
  if ((uint64_t)w->param_count * 2 >= NC_PROGRESS_MIN_BYTES)
    fprintf(stderr, "encoding %zu parameters as %s and checking them...\n", w->param_count,
            enc == CF_ENC_UNKNOWN ? "before" : cf_encoding_name(enc));
  if (cf_weights_save_memory(w, enc, gzip, &buf, &size, &err) != CF_OK ||
      cf_weights_load_memory(buf, size, out, &load, &back, &err) != CF_OK) {
    nc_fail("convert", "%s", err.msg);
    goto done;
  }
  if (!quiet) printf("largest absolute error per tensor (%s -> %s):\n", in, out);
  double worst = compare(w, back, quiet);
  if (worst < 0) {
    nc_fail("convert", "internal error: the re-encoded net has a different shape");
    goto done;
  }
  if (nc_write_file_atomic(out, buf, size, &err) != CF_OK) {
    nc_fail("convert", "%s", err.msg);
    goto done;
  }
  printf("%s: %zu parameters, network format %d, %s%s, %zu bytes, largest absolute error %.3g\n",
         out, back->param_count, back->raw_network_format,
         enc == CF_ENC_UNKNOWN ? "encodings kept" : cf_encoding_name(enc), gzip ? ", gzip" : "",
         size, worst);
  rc = 0;
done:
  free(buf);
  cf_weights_free(w);
  cf_weights_free(back);
  return rc;
}
