#include "common/cf_status.h"

#include <stdio.h>
#include <string.h>

static const char *const status_names[CF_STATUS_COUNT] = {
  [CF_OK] = "ok",
  [CF_ERR_ARG] = "bad argument",
  [CF_ERR_IO] = "i/o error",
  [CF_ERR_FORMAT] = "malformed input",
  [CF_ERR_UNSUPPORTED] = "unsupported",
  [CF_ERR_NOMEM] = "out of memory",
  [CF_ERR_BACKEND] = "backend error",
  [CF_ERR_INTERNAL] = "internal error",
};

const char *cf_status_name(cf_status status) {
  if ((int)status < 0 || status >= CF_STATUS_COUNT) return "unknown status";
  return status_names[status];
}

cf_status cf_error_set(cf_error *err, cf_status status, const char *fmt, ...) {
  if (err) {
    err->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return status;
}

void cf_error_prefix(cf_error *err, const char *fmt, ...) {
  if (!err) return;
  char prefix[CF_ERROR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  /* Build "prefix: msg" by hand, truncating at the buffer size. */
  char joined[CF_ERROR_MSG_MAX];
  size_t n = 0;
  const char *parts[3] = {prefix, ": ", err->msg};
  for (int i = 0; i < 3; i++)
    for (const char *c = parts[i]; *c && n + 1 < sizeof joined; c++) joined[n++] = *c;
  joined[n] = '\0';
  memcpy(err->msg, joined, n + 1);
}

void cf_error_clear(cf_error *err) {
  if (!err) return;
  err->status = CF_OK;
  err->msg[0] = '\0';
}
