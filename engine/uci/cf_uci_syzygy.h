/* cf_uci_syzygy.h: the SyzygyPath option's tables for the UCI engine:
 * (re)loaded when the option's value differs from what was loaded last, at
 * isready and before a search (Lc0 reads the option at the same points),
 * with an `info string` naming how many tables and the largest piece count,
 * and `info string error: ...` for each directory or file left out. */
#ifndef CF_UCI_SYZYGY_H
#define CF_UCI_SYZYGY_H

#include <stddef.h>

typedef void (*cf_uci_syzygy_say_fn)(void *user, const char *line);

/* Loads `path` if it differs from `loaded` (the caller's record of the last
 * value loaded, updated here), saying what happened through `say`. The
 * caller keeps every search from running meanwhile. */
void cf_uci_syzygy_sync(const char *path, char *loaded, size_t loaded_size,
                        cf_uci_syzygy_say_fn say, void *user);

#endif /* CF_UCI_SYZYGY_H */
