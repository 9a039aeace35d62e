/* nc_convert.c: `netconv convert IN -o OUT [--encoding E] [--no-gzip]`.
 * Loading normalises older layouts (network 134 -> 7, single heads ->
 * multi-head); saving writes the multi-head layout. The written bytes are
 * decoded again and compared with the input tensor by tensor, so the
 * reported error is what a reader of OUT really gets. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli/cf_cli.h"
#include "tools/cli/cf_cli_net.h"
#include "tools/netconv/nc_common.h"

static const char usage[] =
    "usage: netconv convert IN -o OUT [--encoding linear16|float16|bfloat16|float32]\n"
    "                       [--no-gzip] [--quiet] [--weights-max-mb MB]\n\n"
    "Re-encodes a network. Older layouts are normalised on the way (network format\n"
    "134 -> 7, single policy/value heads -> multi-head layout). Prints the largest\n"
    "absolute error the new encoding introduced in each tensor. IN may be <built in>,\n"
    "the network embedded in cformer.\n\n";

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
  cf_weights_load_options load = CF_CLI_WEIGHTS_LOAD;
  cf_cli_flag flags[] = {
      {.name = "output", .letter = 'o', .kind = CF_CLI_STRING, .dest = &out, .arg = "OUT",
       .attrs = CF_CLI_REQUIRED, .help = "the network file to write"},
      {.name = "encoding", .kind = CF_CLI_CHOICE, .choices = nc_encoding_names, .arg = "E",
       .set = nc_set_encoding, .ctx = &enc,
       .help = "tensor encoding of OUT (default: each tensor keeps its own)"},
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
  printf("%s: %zu parameters, %s%s, %zu bytes, largest absolute error %.3g\n", out,
         back->param_count, enc == CF_ENC_UNKNOWN ? "encodings kept" : cf_encoding_name(enc),
         gzip ? ", gzip" : "", size, worst);
  rc = 0;
done:
  free(buf);
  cf_weights_free(w);
  cf_weights_free(back);
  return rc;
}
