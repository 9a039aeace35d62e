/* cf_status.h: the one status enum of cformer and the error record that
 * carries a human-readable message next to it.
 *
 * Library functions return a cf_status and, on failure, fill a caller-owned
 * cf_error (which may be NULL when the caller only wants the code). No
 * library function prints or exits: the message travels up to whoever can
 * show it (the UCI loop as "info string error: ...", a tool on stderr). */
#ifndef CF_STATUS_H
#define CF_STATUS_H

#include <stdarg.h>
#include <stddef.h>

typedef enum cf_status {
  CF_OK = 0,
  CF_ERR_ARG,          /* a caller passed something invalid (bad FEN, bad move text, bad option) */
  CF_ERR_IO,           /* a file could not be opened, read or written */
  CF_ERR_FORMAT,       /* a file or stream is malformed */
  CF_ERR_UNSUPPORTED,  /* well-formed, but something cformer does not run */
  CF_ERR_NOMEM,        /* an allocation failed or a size limit was exceeded */
  CF_ERR_BACKEND,      /* a compute backend failed or is unavailable */
  CF_ERR_INTERNAL,     /* an invariant broke: a bug in cformer */
  CF_STATUS_COUNT
} cf_status;

/* Short stable name of a status ("ok", "bad argument", ...). Never NULL. */
const char *cf_status_name(cf_status status);

#define CF_ERROR_MSG_MAX 512

typedef struct cf_error {
  cf_status status;
  char msg[CF_ERROR_MSG_MAX];
} cf_error;

/* Records status and a printf-style message in err (if err is not NULL) and
 * returns status, so callers can write `return cf_error_set(err, ...)`. */
cf_status cf_error_set(cf_error *err, cf_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prepends "prefix: " to an existing message (used to add context such as a
 * file name or field path as an error travels up). Returns nothing on purpose:
 * err may be NULL, so callers keep and return their own status. */
void cf_error_prefix(cf_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Clears err to CF_OK with an empty message. Accepts NULL. */
void cf_error_clear(cf_error *err);

/* Return-early helper: evaluates expr once and returns its status if not OK. */
#define CF_TRY(expr)                    \
  do {                                  \
    cf_status cf_try_status_ = (expr);  \
    if (cf_try_status_ != CF_OK)        \
      return cf_try_status_;            \
  } while (0)

#endif /* CF_STATUS_H */
