/* nc_common.c: shared netconv helpers (nc_common.h). */
#include "tools/netconv/nc_common.h"

#include "common/cf_clock.h"
#include "tools/cli/cf_cli.h"
#include "tools/cli/cf_cli_net.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int nc_fail(const char *cmd, const char *fmt, ...) {
  char prog[64];
  snprintf(prog, sizeof prog, "netconv %s", cmd);
  va_list ap;
  va_start(ap, fmt);
  int rc = cf_cli_vfail(prog, fmt, ap);
  va_end(ap);
  return rc;
}

bool nc_parse_encoding(const char *text, cf_encoding *out) {
  static const struct {
    const char *name;
    cf_encoding enc;
  } names[] = {{"linear16", CF_ENC_LINEAR16}, {"float16", CF_ENC_FLOAT16},
               {"bfloat16", CF_ENC_BFLOAT16}, {"float32", CF_ENC_FLOAT32}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcasecmp(text, names[i].name) == 0) {
      *out = names[i].enc;
      return true;
    }
  return false;
}

const char *const nc_encoding_names[] = {"linear16", "float16", "bfloat16", "float32", NULL};

bool nc_set_encoding(void *ctx, const char *value, char *why, size_t why_size) {
  if (nc_parse_encoding(value, ctx)) return true;
  snprintf(why, why_size, "expected linear16, float16, bfloat16 or float32");
  return false;
}

bool nc_parse_int(const char *text, long lo, long hi, long *out) {
  if (!text || !*text) return false;
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

void nc_progress_start(nc_progress *p, const char *label, uint64_t total) {
  p->label = label;
  p->total = total;
  p->last_pct = -1;
  p->on = total >= NC_PROGRESS_MIN_BYTES;
  nc_progress_update(p, 0);
}

void nc_progress_update(nc_progress *p, uint64_t done) {
  if (!p->on || p->total == 0) return;
  int pct = (int)(done * 100 / p->total);
  if (pct / 5 == p->last_pct / 5 && p->last_pct >= 0) return; /* every 5% */
  p->last_pct = pct;
  fprintf(stderr, "\r%s: %3d%%", p->label, pct);
  fflush(stderr);
}

void nc_progress_end(nc_progress *p) {
  if (!p->on) return;
  nc_progress_update(p, p->total);
  fputc('\n', stderr);
}

cf_status nc_write_file_atomic(const char *path, const void *data, size_t size, cf_error *err) {
  size_t n = strlen(path) + 32;
  char *tmp = malloc(n);
  if (!tmp) return cf_error_set(err, CF_ERR_NOMEM, "%s: out of memory", path);
  snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    cf_status st = cf_error_set(err, CF_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
    free(tmp);
    return st;
  }
  const uint8_t *p = data;
  nc_progress prog;
  nc_progress_start(&prog, "writing", size);
  bool ok = true;
  for (size_t done = 0; ok && done < size;) {
    size_t chunk = size - done < (8u << 20) ? size - done : (8u << 20);
    ok = fwrite(p + done, 1, chunk, f) == chunk;
    done += chunk;
    nc_progress_update(&prog, done);
  }
  nc_progress_end(&prog);
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    cf_status st = cf_error_set(err, CF_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    remove(tmp);
    free(tmp);
    return st;
  }
  free(tmp);
  return CF_OK;
}

const char *nc_input_format_name(int f) {
  switch (f) {
    case 1: return "CLASSICAL_112_PLANE";
    case 2: return "112_WITH_CASTLING_PLANE";
    case 3: return "112_WITH_CANONICALIZATION";
    case 4: return "112_WITH_CANONICALIZATION_HECTOPLIES";
    case 5: return "112_WITH_CANONICALIZATION_V2";
    case 132: return "112_WITH_CANONICALIZATION_HECTOPLIES_ARMAGEDDON";
    case 133: return "112_WITH_CANONICALIZATION_V2_ARMAGEDDON";
    default: return "unknown";
  }
}

cf_status nc_load_net(const char *path, const cf_weights_load_options *opts, cf_weights **out,
                      cf_error *err) {
  struct stat st; /* <built in> is no file: no progress line */
  bool big = stat(path, &st) == 0 && (uint64_t)st.st_size >= NC_PROGRESS_MIN_BYTES;
  double t0 = cf_clock_now();
  if (big) fprintf(stderr, "loading %s (%.0f MB)...", path, (double)st.st_size / 1e6);
  cf_status s = cf_cli_load_weights(path, opts, out, err);
  if (big) fprintf(stderr, s == CF_OK ? " done (%.1f s)\n" : " failed\n", cf_clock_now() - t0);
  return s;
}

cf_status nc_save_net(const cf_weights *w, const char *path, cf_encoding enc, bool gzip,
                      cf_error *err) {
  bool big = (uint64_t)w->param_count * 2 >= NC_PROGRESS_MIN_BYTES;
  double t0 = cf_clock_now();
  if (big) fprintf(stderr, "writing %s (%zu parameters)...", path, w->param_count);
  cf_status s = cf_weights_save_file(w, path, enc, gzip, err);
  if (big) fprintf(stderr, s == CF_OK ? " done (%.1f s)\n" : " failed\n", cf_clock_now() - t0);
  return s;
}

const char *nc_si(char *buf, size_t size, double v) {
  if (v >= 1e9) snprintf(buf, size, "%.4g G", v / 1e9);
  else if (v >= 1e6) snprintf(buf, size, "%.4g M", v / 1e6);
  else snprintf(buf, size, "%.4g", v);
  return buf;
}
