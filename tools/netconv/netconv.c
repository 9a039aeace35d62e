/* netconv: network file tools. `netconv <command> [args]`; each command
 * lives in its own file (nc_<command>.c) and is listed once below; each
 * parses its flags with tools/cli/cf_cli.h. Exit status: 0 done, 1 a file or
 * the network failed, 2 a bad command line (nothing written). */
#include <stdio.h>
#include <string.h>

#include "tools/netconv/nc_common.h"

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} command;

static const command commands[] = {
  {"describe", nc_cmd_describe, "architecture, parameters, encodings, cost of a network file"},
  {"convert", nc_cmd_convert, "re-encode a network (linear16/float16/bfloat16/float32)"},
  {"import", nc_cmd_import, "build a network from trainer safetensors + a config"},
  {"export", nc_cmd_export, "write a network as safetensors (trainer names) or as ONNX"},
  {"random", nc_cmd_random, "a deterministic random network of a given shape"},
};

static void usage(FILE *out) {
  fprintf(out, "netconv %s: network file tools for cformer.\n\n"
               "usage: netconv <command> [options]   (netconv <command> --help for details)\n\n"
               "commands:\n", CF_VERSION);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("netconv %s\n", CF_VERSION);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
  /* The same one line as every flag error (tools/cli/cf_cli.h). */
  fprintf(stderr, "netconv: unknown %s '%s' (netconv --help)\n",
          argv[1][0] == '-' ? "flag" : "command", argv[1]);
  return 2;
}
