/* cf_cli_config.h: Lc0's configuration file: the flags of a command, one a
 * line (--threads=2, or threads=2: the leading -- may be left out; a value
 * may also follow the flag after a space), blank lines and lines starting
 * with # ignored. Each line is parsed on its own with the command's flag
 * table, so a bad line is reported with the file and line and skipped. */
#ifndef CF_CLI_CONFIG_H
#define CF_CLI_CONFIG_H

#include <stdbool.h>

#include "tools/cli/cf_cli.h"

/* The file named by --config=FILE, --config FILE or -c FILE in argv (the
 * last one given); NULL when none is named. */
const char *cf_cli_config_named(int argc, char **argv);

/* Applies the file's flags through spec (cf_cli_parse per line). A file
 * that cannot be opened is an error (returns 1, message on stderr) when
 * must_exist, else nothing happens. Returns CF_CLI_CONTINUE otherwise;
 * *skipped gets the number of lines refused (each reported on stderr). */
int cf_cli_config_apply(cf_cli_spec *spec, const char *path, bool must_exist, int *skipped);

#endif /* CF_CLI_CONFIG_H */
