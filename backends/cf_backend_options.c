/* cf_backend_options.c: "key=value,..." option strings, see the header. */
#include "backends/cf_backend_options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static cf_status set_one(const char *item, size_t len,
                         const cf_backend_int_option *known, int n_known, cf_error *err) {
  const char *eq = memchr(item, '=', len);
  if (!eq)
    return cf_error_set(err, CF_ERR_ARG, "option '%.*s' is not key=value", (int)len, item);
  size_t klen = (size_t)(eq - item);
  for (int i = 0; i < n_known; i++) {
    if (strlen(known[i].key) != klen || strncmp(known[i].key, item, klen) != 0) continue;
    char text[32];
    size_t vlen = len - klen - 1;
    if (vlen == 0 || vlen >= sizeof text)
      return cf_error_set(err, CF_ERR_ARG, "option '%s' needs an integer value", known[i].key);
    memcpy(text, eq + 1, vlen);
    text[vlen] = '\0';
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*end || errno || v < known[i].min || v > known[i].max)
      return cf_error_set(err, CF_ERR_ARG,
                          "option '%s=%s' is not an integer in [%d, %d]", known[i].key, text, known[i].min, known[i].max);
    *known[i].value = (int)v;
    return CF_OK;
  }
  char names[256] = "";
  for (int i = 0; i < n_known; i++) {
    if (i) strncat(names, ", ", sizeof names - strlen(names) - 1);
    strncat(names, known[i].key, sizeof names - strlen(names) - 1);
  }
  return cf_error_set(err, CF_ERR_ARG, "unknown option '%.*s' (known: %s)", (int)len, item, n_known ? names : "none");
}

cf_status cf_backend_options_parse(const char *options,
                                   const cf_backend_int_option *known, int n_known,
                                   cf_error *err) {
  if (!options) return CF_OK;
  const char *p = options;
  while (*p) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len > 0) CF_TRY(set_one(p, len, known, n_known, err));
    if (!comma) break;
    p = comma + 1;
  }
  return CF_OK;
}
