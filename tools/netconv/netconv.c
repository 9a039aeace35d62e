/* netconv: network file tools. `netconv <command> [args]`; each command
 * lives in its own file (nc_<command>.c) and is listed once below; each
 * parses its flags with tools/cli/cf_cli.h. Exit status: 0 done, 1 a file or
 * the network failed, 2 a bad command line (nothing written). */
#include <stdio.h>

#include "tools/cli/cf_cli_commands.h"
#include "tools/netconv/nc_common.h"

static const cf_cli_command commands[] = {
  {"describe", nc_cmd_describe, "architecture, parameters, encodings, cost of a network file"},
  {"convert", nc_cmd_convert, "re-encode a network (linear16/float16/bfloat16/float32)"},
  {"import", nc_cmd_import, "build a network from trainer safetensors + a config"},
  {"export", nc_cmd_export, "write a network as safetensors (trainer names) or as ONNX"},
  {"random", nc_cmd_random, "a deterministic random network of a given shape"},
};

static const cf_cli_program program =
    CF_CLI_PROGRAM("netconv", "network file tools for cformer.", commands);

int main(int argc, char **argv) {
  if (argc < 2) {
    cf_cli_program_usage(&program, stderr);
    return 2;
  }
  return cf_cli_program_run(&program, argc, argv);
}
