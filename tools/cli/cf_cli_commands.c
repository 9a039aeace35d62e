/* cf_cli_commands.c: a program of subcommands, see the header. */
#include "tools/cli/cf_cli_commands.h"

#include <string.h>

#include "tools/cli/cf_cli.h"

void cf_cli_program_usage(const cf_cli_program *p, FILE *out) {
  fprintf(out,
          "%s %s: %s\n\n"
          "usage: %s <command> [options]   (%s <command> --help for details)\n\n"
          "commands:\n",
          p->name, p->version, p->about, p->name, p->name);
  for (size_t i = 0; i < p->n_commands; i++)
    fprintf(out, "  %-10s %s\n", p->commands[i].name, p->commands[i].summary);
}

int cf_cli_program_run(const cf_cli_program *p, int argc, char **argv) {
  const char *first = argv[1];
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0 || strcmp(first, "help") == 0) {
    cf_cli_program_usage(p, stdout);
    return CF_CLI_EXIT_OK;
  }
  if (strcmp(first, "--version") == 0) {
    printf("%s %s\n", p->name, p->version);
    return CF_CLI_EXIT_OK;
  }
  for (size_t i = 0; i < p->n_commands; i++)
    if (strcmp(first, p->commands[i].name) == 0) return p->commands[i].run(argc - 1, argv + 1);
  /* The same one line as every flag error (cf_cli.h). */
  fprintf(stderr, "%s: unknown %s '%s' (%s --help)\n", p->name,
          first[0] == '-' ? "flag" : "command", first, p->name);
  return CF_CLI_EXIT_USAGE;
}
