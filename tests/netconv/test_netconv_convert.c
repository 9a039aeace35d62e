/* test_netconv_convert: `netconv convert` and the FLOAT32 round trip
 * .pb.gz -> safetensors -> .pb.gz; outputs of converted parity nets stay
 * within each encoding's bound of the truth (docs/NETCONV.md). The sweep
 * over every parity net and encoding is the `slow` suite's
 * (test_encoding_sweep); `fast` runs one representative net. */
#include <stdlib.h>
#include <string.h>

#include "tests/net/cf_parity.h"
#include "tests/netconv/nc_test_util.h"
#include "tools/netconv/nc_common.h"

/* Largest |output - truth| allowed per encoding, over the measured maxima in
 * docs/NETCONV.md (the truth itself is met to 1e-4 by the original nets). */
static const struct {
  const char *name;
  double bound;
} encodings[] = {{"float32", 1e-4}, {"linear16", 2e-4}, {"float16", 4e-3}, {"bfloat16", 4e-2}};

static char dir[256];

/* Parity cases per net in the fast tests (the slow sweep uses all). */
enum { FAST_CASES = 8 };

static const char *tmp(const char *name) {
  static char buf[8][512];
  static int turn;
  return nc_test_path(buf[turn++ & 7], sizeof buf[0], dir, name);
}

static const char *parity(const char *net) {
  static char buf[4][1024];
  static int turn;
  snprintf(buf[turn & 3], sizeof buf[0], "%s/%s.pb.gz", cf_parity_dir(), net);
  return buf[turn++ & 3];
}

static cf_weights *load(cf_test *t, const char *path) {
  cf_weights *w = NULL;
  cf_error err = {0};
  if (!CHECK(cf_weights_load_file(path, NULL, &w, &err) == CF_OK)) fprintf(stderr, "%s\n", err.msg);
  return w;
}

/* Every tensor of a and b bit-identical. */
static bool same_tensors(cf_weights *a, cf_weights *b);
typedef struct tl {
  cf_tensor *t[4096];
  int n;
} tl;
static bool grab(void *u, const char *p, cf_tensor *t) {
  (void)p;
  tl *l = u;
  if (l->n < 4096) l->t[l->n++] = t;
  return true;
}
static bool same_tensors(cf_weights *a, cf_weights *b) {
  static tl la, lb;
  la.n = lb.n = 0;
  cf_weights_visit(a, grab, &la);
  cf_weights_visit(b, grab, &lb);
  if (la.n != lb.n) return false;
  for (int i = 0; i < la.n; i++)
    if (la.t[i]->n != lb.t[i]->n ||
        (la.t[i]->n && memcmp(la.t[i]->data, lb.t[i]->data, la.t[i]->n * sizeof(float)) != 0))
      return false;
  return true;
}

static void roundtrip(cf_test *t, const char *net) {
  const char *f32 = tmp("rt.f32.pb.gz"), *st = tmp("rt.safetensors"), *back = tmp("rt.back.pb.gz");
  CHECK_INT_EQ(nc_test_run(nc_cmd_convert, "convert", parity(net), "-o", f32, "--encoding", "float32",
                           "--quiet", NULL), 0);
  CHECK_INT_EQ(nc_test_run(nc_cmd_export, "export", f32, "-o", st, NULL), 0);
  CHECK_INT_EQ(nc_test_run(nc_cmd_import, "import", st, "-o", back, NULL), 0);
  if (!CHECK(nc_test_same_bytes(f32, back))) fprintf(stderr, "%s: round trip differs\n", net);
}

/* .pb.gz -> safetensors -> .pb.gz is bit-identical in FLOAT32. */
static void test_roundtrip_bit_identical(cf_test *t) {
  roundtrip(t, "cf-rpe-rms");        /* RPE, RMSNorm, gating, extra heads, network 134 */
  roundtrip(t, "lc0-smolgen-relu2"); /* dense embedding, smolgen, biases, LayerNorm */
}

/* Converting to FLOAT32 keeps every value, so the outputs are exactly the
 * original's; the other encodings stay within their bounds. */
static void check_net_encodings(cf_test *t, const char *net, int cases, bool report) {
  cf_weights *orig = load(t, parity(net));
  if (!orig) return;
  double base = nc_test_parity_error(t, net, orig, cases);
  CHECK(base >= 0 && base <= 1e-4);
  for (size_t e = 0; e < sizeof encodings / sizeof encodings[0]; e++) {
    const char *out = tmp("enc.pb.gz");
    if (!CHECK_INT_EQ(nc_test_run(nc_cmd_convert, "convert", parity(net), "-o", out, "--encoding",
                                  encodings[e].name, "--quiet", NULL), 0))
      continue;
    cf_weights *w = load(t, out);
    if (!w) continue;
    double d = nc_test_parity_error(t, net, w, cases);
    if (report) printf("  %-24s %-9s max |out - truth| %.3g (original %.3g)\n", net,
                       encodings[e].name, d, base);
    CHECK(d >= 0 && d <= encodings[e].bound);
    if (strcmp(encodings[e].name, "float32") == 0) {
      CHECK(same_tensors(orig, w));
      CHECK(d == base);
    }
    cf_weights_free(w);
  }
  cf_weights_free(orig);
}

static void test_encodings_representative(cf_test *t) { check_net_encodings(t, "cf-rpe-rms", FAST_CASES, true); }

static void test_encoding_sweep(cf_test *t) {
  for (int i = 0; i < cf_parity_net_count; i++) check_net_encodings(t, cf_parity_nets[i], 0, true);
}

/* Network 134 becomes 7 and the values stay. */
static void test_normalises_layout(cf_test *t) {
  cf_weights *orig = load(t, parity("cf-rpe-rms"));
  const char *out = tmp("norm.pb.gz");
  CHECK_INT_EQ(nc_test_run(nc_cmd_convert, "convert", parity("cf-rpe-rms"), "-o", out, "--quiet",
                           NULL), 0);
  cf_weights *w = load(t, out);
  if (orig && w) {
    CHECK_INT_EQ(orig->raw_network_format, 134);
    CHECK_INT_EQ(w->raw_network_format, 7);
    CHECK(same_tensors(orig, w)); /* LINEAR16 kept: the same 16-bit codes */
  }
  cf_weights_free(orig);
  cf_weights_free(w);
}

static void test_convert_errors(cf_test *t) {
  const char *out = tmp("err.pb.gz");
  CHECK(nc_test_run(nc_cmd_convert, "convert", tmp("missing.pb.gz"), "-o", out, NULL) != 0);
  CHECK(nc_test_run(nc_cmd_convert, "convert", parity("cf-rpe-rms"), "-o", out, "--encoding",
                    "float8", NULL) != 0);
  CHECK(nc_test_run(nc_cmd_convert, "convert", parity("cf-rpe-rms"), "-o", out, "--bogus", NULL) != 0);
  CHECK(nc_test_run(nc_cmd_convert, "convert", parity("cf-rpe-rms"), NULL) != 0);
  CHECK(!nc_test_file_exists(out));
  /* A folder that does not exist: nothing is left behind. */
  char bad[600];
  snprintf(bad, sizeof bad, "%s/no/such/dir/x.pb.gz", dir);
  CHECK(nc_test_run(nc_cmd_convert, "convert", parity("cf-rpe-rms"), "-o", bad, "--quiet", NULL) != 0);
  CHECK(!nc_test_file_exists(bad));
  /* Not a network: a clear error and no output. */
  FILE *f = fopen(tmp("junk.pb.gz"), "wb");
  if (f) {
    fputs("not a network", f);
    fclose(f);
  }
  CHECK(nc_test_run(nc_cmd_convert, "convert", tmp("junk.pb.gz"), "-o", out, NULL) != 0);
  CHECK(!nc_test_file_exists(out));
}

int main(int argc, char **argv) {
  if (!nc_test_tmpdir(dir, sizeof dir)) {
    perror("mkdtemp");
    return 1;
  }
  static const cf_test_fn fns[] = {test_roundtrip_bit_identical, test_encodings_representative,
                                   test_normalises_layout, test_convert_errors, test_encoding_sweep};
  static const char *names[] = {"test_roundtrip_bit_identical", "test_encodings_representative",
                                "test_normalises_layout", "test_convert_errors",
                                "test_encoding_sweep"};
  /* The sweep runs only when named (the slow suite passes its name). */
  int n = argc > 1 ? 5 : 4;
  int rc = cf_test_run(names, fns, n, argc, argv);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return rc;
}
