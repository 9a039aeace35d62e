/* cf_backend_failure.c: the first-failure record backends keep for sync
 * (cf_backend.h). Its own file, so the CUDA module can link it without
 * the registry. */
#include <stdarg.h>
#include <stdio.h>

#include "backends/cf_backend.h"

void cf_backend_note_failure(cf_error *first, cf_status status, const char *op, const char *fmt,
                             ...) {
  if (first->status != CF_OK || status == CF_OK) return;
  char msg[CF_ERROR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cf_error_set(first, status, "%s: %s", op, msg);
}

cf_status cf_backend_take_failure(cf_error *first, cf_error *err) {
  const cf_status st = first->status;
  if (st == CF_OK) return CF_OK;
  if (err) *err = *first;
  cf_error_clear(first);
  return st;
}
