/* cf_uci_ignored.h: Lc0's options that tune its multi-threaded search and
 * mean nothing to this engine's (one search thread gathers, Threads sets
 * the batches in flight). They are taken, by UCI name or Lc0's flag, so
 * that an Lc0 GUI setting or configuration file works unchanged: the value
 * is checked against Lc0's type and range, then an `info string` says the
 * option is ignored. They are not listed in the `uci` reply (a GUI would
 * show knobs that do nothing). */
#ifndef CF_UCI_IGNORED_H
#define CF_UCI_IGNORED_H

#include "common/cf_status.h"
#include "engine/uci/cf_uci_options.h"

struct cf_uci;

/* How many there are, and each (0 <= i < count), in the layout of the
 * engine's options (name, flag, type, default, range, help). */
int cf_uci_ignored_count(void);
const cf_uci_option_desc *cf_uci_ignored_at(int i);
/* By UCI name, ignoring case; NULL if none. */
const cf_uci_option_desc *cf_uci_ignored_by_name(const char *name);

/* Checks value against o's type and range (CF_ERR_ARG naming the option
 * and the range, nothing said otherwise), then says `info string <Name> is
 * ignored: ...` (held until the first command when set from a flag). */
cf_status cf_uci_set_ignored(struct cf_uci *u, const cf_uci_option_desc *o, const char *value,
                             cf_error *err);
/* The same from outside a command (a flag, the configuration file): takes
 * the command lock, as cf_uci_set_option does. */
cf_status cf_uci_set_ignored_flag(struct cf_uci *u, const cf_uci_option_desc *o, const char *value,
                                  cf_error *err);

#endif /* CF_UCI_IGNORED_H */
