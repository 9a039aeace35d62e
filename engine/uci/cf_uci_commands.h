/* cf_uci_commands.h: the UCI commands by name (quit is the core's). */
#ifndef CF_UCI_COMMANDS_H
#define CF_UCI_COMMANDS_H

#include "engine/uci/cf_uci_state.h"

const cf_uci_command *cf_uci_command_find(const char *name);
/* Forgets the tables SyzygyPath loaded last (reset: the next isready
 * loads them again). */
void cf_uci_commands_reset(cf_uci *u);

#endif /* CF_UCI_COMMANDS_H */
