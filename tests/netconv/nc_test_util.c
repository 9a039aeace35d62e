/* nc_test_util.c: see nc_test_util.h. */
#include "tests/netconv/nc_test_util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/cf_net.h"
#include "tests/net/cf_parity.h"
#include "tests/net/cf_parity_check.h"

int nc_test_run(int (*fn)(int, char **), const char *name, ...) {
  char *argv[64];
  int argc = 0;
  argv[argc++] = (char *)name;
  va_list ap;
  va_start(ap, name);
  for (const char *a; argc < 63 && (a = va_arg(ap, const char *));) argv[argc++] = (char *)a;
  va_end(ap);
  argv[argc] = NULL;
  fflush(stdout);
  return fn(argc, argv);
}

bool nc_test_tmpdir(char *dir, size_t size) {
  const char *base = getenv("TMPDIR");
  snprintf(dir, size, "%s/netconv-test-XXXXXX", base && *base ? base : "/tmp");
  return mkdtemp(dir) != NULL;
}

const char *nc_test_path(char *buf, size_t size, const char *dir, const char *name) {
  snprintf(buf, size, "%s/%s", dir, name);
  return buf;
}

bool nc_test_file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static unsigned char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  rewind(f);
  unsigned char *buf = malloc(len > 0 ? (size_t)len : 1);
  if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *n = (size_t)len;
  return buf;
}

bool nc_test_same_bytes(const char *a, const char *b) {
  size_t na, nb;
  unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
  bool same = x && y && na == nb && memcmp(x, y, na) == 0;
  free(x);
  free(y);
  return same;
}

double nc_test_parity_error(cf_test *t, const char *name, const cf_weights *w, int max_cases) {
  char msg[512];
  cf_parity_case *cases;
  int n;
  if (!CHECK(cf_parity_load(cf_parity_dir(), name, &cases, &n, msg, sizeof msg))) {
    fprintf(stderr, "%s\n", msg);
    return -1;
  }
  if (max_cases > 0 && n > max_cases) n = max_cases;
  cf_net_options opts = {.backend = "ref", .max_batch = n};
  cf_parity_all_heads(w, &opts);
  cf_net *net = NULL;
  cf_error err = {0};
  if (!CHECK(cf_net_create(w, &opts, &net, &err) == CF_OK)) {
    fprintf(stderr, "%s: %s\n", name, err.msg);
    free(cases);
    return -1;
  }
  cf_parity_planes_case *prep = calloc((size_t)n, sizeof *prep);
  cf_net_request *req = calloc((size_t)n, sizeof *req);
  cf_net_output *out = calloc((size_t)n, sizeof *out);
  for (int i = 0; i < n; i++)
    CHECK(cf_parity_planes_request(&cases[i], net, &prep[i], &req[i], &out[i]));
  double worst = -1;
  if (CHECK(cf_net_eval(net, n, req, out, &err) == CF_OK)) {
    /* The shared checker compares at the parity tolerance and records the
     * largest deviation; its verdict goes to a scratch record, ours is the
     * caller's bound on the returned deviation. */
    cf_test scratch = {"scratch", 0, 0, NULL};
    scratch.failures = 1000; /* keeps the checker from printing every miss */
    cf_parity_max_err = 0;
    for (int i = 0; i < n; i++)
      cf_parity_check_output(&scratch, name, &cases[i], net, &out[i], prep[i].move_case,
                             cases[i].n_legal);
    worst = cf_parity_max_err;
    CHECK(scratch.checks > 0);
  } else {
    fprintf(stderr, "%s: %s\n", name, err.msg);
  }
  cf_net_free(net);
  free(prep);
  free(req);
  free(out);
  free(cases);
  return worst;
}
