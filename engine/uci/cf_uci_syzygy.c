/* cf_uci_syzygy.c: see cf_uci_syzygy.h. */
#include "engine/uci/cf_uci_syzygy.h"

#include <stdio.h>
#include <string.h>

#include "engine/syzygy/cf_syzygy.h"

void cf_uci_syzygy_sync(const char *path, char *loaded, size_t loaded_size,
                        cf_uci_syzygy_say_fn say, void *user) {
  if (strcmp(path, loaded) == 0) return;
  snprintf(loaded, loaded_size, "%s", path);
  cf_syzygy_report r;
  cf_syzygy_load(path, &r);
  char line[CF_ERROR_MSG_MAX + 64];
  int kept = r.error_count < CF_SYZYGY_MESSAGES_MAX ? r.error_count : CF_SYZYGY_MESSAGES_MAX;
  for (int i = 0; i < kept; i++) {
    snprintf(line, sizeof line, "error: SyzygyPath: %s", r.errors[i]);
    say(user, line);
  }
  if (r.error_count > kept) {
    snprintf(line, sizeof line, "error: SyzygyPath: %d more problems not shown",
             r.error_count - kept);
    say(user, line);
  }
  if (r.wdl_tables > 0) {
    snprintf(line, sizeof line,
             "Syzygy: %d WDL and %d DTZ tables found, up to %d pieces", r.wdl_tables,
             r.dtz_tables, r.max_pieces);
    say(user, line);
  } else if (path[0] && strcmp(path, "<empty>") != 0) {
    say(user, "Syzygy: no tables loaded; playing on without them");
  }
}
