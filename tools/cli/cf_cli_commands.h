/* cf_cli_commands.h: a program made of subcommands (cformer, netconv):
 * the table of its commands, its --help and --version, and the dispatch to
 * the command named first, written once for both. */
#ifndef CF_CLI_COMMANDS_H
#define CF_CLI_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

typedef struct cf_cli_command {
  const char *name;
  int (*run)(int argc, char **argv); /* argv[0] is the command's name */
  const char *summary;               /* one line for the program's --help */
} cf_cli_command;

typedef struct cf_cli_program {
  const char *name;    /* "cformer" */
  const char *version; /* printed by --version and in the help's first line */
  const char *about;   /* the help's first line after "NAME VERSION: " */
  const cf_cli_command *commands;
  size_t n_commands;
} cf_cli_program;

/* A program with the commands of the array table, at the version the
 * build defines (CF_VERSION). */
#define CF_CLI_PROGRAM(prog, about_text, table)                                    \
  {.name = (prog), .version = CF_VERSION, .about = (about_text), .commands = (table), \
   .n_commands = sizeof(table) / sizeof((table)[0])}

/* The program's help: what it is, the usage line, its commands. */
void cf_cli_program_usage(const cf_cli_program *p, FILE *out);

/* Runs argv[1] (argc >= 2): --help, -h or help prints the help on stdout
 * (exit 0), --version the version; a command in the table runs with
 * argc - 1, argv + 1 and its status is returned; anything else is the one
 * line of every usage error, "NAME: unknown command 'x' (NAME --help)"
 * ("unknown flag" for one that starts with '-'), and exit 2. */
int cf_cli_program_run(const cf_cli_program *p, int argc, char **argv);

#endif /* CF_CLI_COMMANDS_H */
