/* cf_uci_log.h: the UCI conversation written to a file, as Lc0's LogFile
 * option (flag --logfile, -l) does: every line the engine reads and every
 * line it writes, one line per message, in the order they happened, so a
 * GUI session can be replayed or a bug report attached.
 *
 * Line format (local time, as Lc0's log; microseconds):
 *
 *     1126 07:30:18.123456 >> position startpos moves e2e4     (read)
 *     1126 07:30:18.125001 << bestmove e7e5                    (written)
 *     1126 07:30:17.000042 ## log started: cformer 0.1.0        (file opened)
 *
 * Text is logged clean (cf_uci_text.h): control characters, NUL bytes and
 * invalid UTF-8 are written as \xNN, and a read line's own newline (and a
 * CR before it) is dropped, so a message is always exactly one log line.
 * The file is opened for appending and flushed after every line.
 *
 * Thread-safe: lines may come from the reading thread and the search
 * thread at once; each is written whole. */
#ifndef CF_UCI_LOG_H
#define CF_UCI_LOG_H

#include <stddef.h>

#include "common/cf_status.h"

/* LogFile's special value: the log goes to standard error (as Lc0's). */
#define CF_UCI_LOG_STDERR "<stderr>"

typedef struct cf_uci_log cf_uci_log;

typedef enum cf_uci_log_dir {
  CF_UCI_LOG_IN,  /* ">>": a line the engine read */
  CF_UCI_LOG_OUT, /* "<<": a line the engine wrote */
} cf_uci_log_dir;

/* A log that is off until cf_uci_log_open names a file. */
cf_status cf_uci_log_create(cf_uci_log **out, cf_error *err);

/* Switches the log: "" turns it off, CF_UCI_LOG_STDERR sends it to
 * standard error, anything else is a file opened for appending (created
 * when missing). A file already open is closed first, so on failure the
 * log is off and err says why (CF_ERR_IO, naming the path). */
cf_status cf_uci_log_open(cf_uci_log *log, const char *path, cf_error *err);

/* Logs one message of len bytes (NUL bytes inside are shown as \x00).
 * Does nothing when the log is off or log is NULL. A write that fails
 * (disk full) is dropped: logging never stops the engine. */
void cf_uci_log_line(cf_uci_log *log, cf_uci_log_dir dir, const char *text, size_t len);

/* Closes the file; accepts NULL. */
void cf_uci_log_free(cf_uci_log *log);

#endif /* CF_UCI_LOG_H */
