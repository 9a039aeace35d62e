/* nc_convert.c: `netconv convert IN -o OUT [--encoding E] [--no-gzip]`.
 * Loading normalises older layouts (network 134 -> 7, single heads ->
 * multi-head); saving writes the multi-head layout. The written bytes are
 * decoded again and compared with the input tensor by tensor, so the
 * reported error is what a reader of OUT really gets. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/netconv/nc_common.h"

static const char usage[] =
    "usage: netconv convert IN -o OUT [--encoding linear16|float16|bfloat16|float32]\n"
    "                       [--no-gzip] [--quiet] [--weights-max-mb MB]\n\n"
    "Re-encodes a network. Older layouts are normalised on the way (network format\n"
    "134 -> 7, single policy/value heads -> multi-head layout). Prints the largest\n"
    "absolute error the new encoding introduced in each tensor.\n\n"
    "  --encoding E   tensor encoding of OUT (default: each tensor keeps its own)\n"
    "  --no-gzip      write the bare protobuf\n"
    "  --quiet        only the summary line, not one line per tensor\n"
    NC_WEIGHTS_MAX_MB_HELP;

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
  const char *in = NULL, *out = NULL;
  cf_encoding enc = CF_ENC_UNKNOWN;
  bool gzip = true, quiet = false;
  cf_weights_load_options load = {.limit_name = "--weights-max-mb"};
  for (int i = 1; i < argc; i++) {
    int rc = nc_parse_weights_max_mb("convert", argc, argv, &i, &load);
    if (rc >= 0) {
      if (rc) return rc;
      continue;
    }
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (++i >= argc) return nc_fail("convert", "%s needs a file", a);
      out = argv[i];
    } else if (strcmp(a, "--encoding") == 0) {
      if (++i >= argc) return nc_fail("convert", "--encoding needs a value");
      if (!nc_parse_encoding(argv[i], &enc))
        return nc_fail("convert", "--encoding: '%s' is not linear16, float16, bfloat16 or float32",
                       argv[i]);
    } else if (strcmp(a, "--no-gzip") == 0) {
      gzip = false;
    } else if (strcmp(a, "--quiet") == 0) {
      quiet = true;
    } else if (a[0] == '-') {
      return nc_fail("convert", "unknown option '%s' (netconv convert --help)", a);
    } else if (in) {
      return nc_fail("convert", "one input at a time ('%s' and '%s')", in, a);
    } else {
      in = a;
    }
  }
  if (!in || !out) return nc_fail("convert", "need IN and -o OUT (netconv convert --help)");
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
