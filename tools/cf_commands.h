/* cf_commands.h: the subcommands of the `cformer` binary.
 *
 * Each subcommand is a function taking the arguments after its name
 * (argv[0] is the subcommand name) and returning a process exit status.
 * They live in tools/ (one file per command) and are listed once in the
 * table in cformer.c. */
#ifndef CF_COMMANDS_H
#define CF_COMMANDS_H

int cf_cmd_perft(int argc, char **argv);
int cf_cmd_eval(int argc, char **argv);
int cf_cmd_uci(int argc, char **argv);
int cf_cmd_bench(int argc, char **argv); /* tools/bench/bench_cmd.c */
int cf_cmd_benchmark(int argc, char **argv); /* tools/benchmark/benchmark_cmd.c */
int cf_cmd_backendbench(int argc, char **argv); /* tools/backendbench/backendbench_cmd.c */
int cf_cmd_puzzles(int argc, char **argv);
int cf_cmd_pack_data(int argc, char **argv);
int cf_cmd_analyse(int argc, char **argv); /* tools/analyse/analyse_cmd.c */
int cf_cmd_selfplay(int argc, char **argv); /* tools/selfplay/selfplay_cmd.c */
int cf_cmd_chunks(int argc, char **argv); /* tools/chunks/chunks_cmd.c */

#endif /* CF_COMMANDS_H */
