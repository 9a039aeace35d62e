/* nc_common.h: what every netconv subcommand shares: option parsing
 * helpers, error printing, progress on large files, atomic file writes. */
#ifndef NC_COMMON_H
#define NC_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "weights/cf_weights.h"

/* Subcommands: int nc_cmd_X(int argc, char **argv) with argv[0] = "X". */
int nc_cmd_describe(int argc, char **argv);
int nc_cmd_convert(int argc, char **argv);
int nc_cmd_import(int argc, char **argv);
int nc_cmd_export(int argc, char **argv);
int nc_cmd_random(int argc, char **argv);

/* Prints "netconv CMD: message" on stderr; returns 1 (the failure exit code). */
int nc_fail(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* "linear16", "float16", "bfloat16", "float32" (any case). */
bool nc_parse_encoding(const char *text, cf_encoding *out);

/* --encoding for the table of a subcommand (tools/cli/cf_cli.h): the
 * choices, and a cf_cli_set_fn whose ctx is a cf_encoding *. */
extern const char *const nc_encoding_names[];
bool nc_set_encoding(void *ctx, const char *value, char *why, size_t why_size);

/* A whole decimal int in [lo, hi]. */
bool nc_parse_int(const char *text, long lo, long hi, long *out);

/* Progress on stderr for work over NC_PROGRESS_MIN_BYTES: "label: 42%". */
#define NC_PROGRESS_MIN_BYTES (32u << 20)
typedef struct nc_progress {
  const char *label;
  uint64_t total;
  int last_pct;
  bool on;
} nc_progress;
void nc_progress_start(nc_progress *p, const char *label, uint64_t total);
void nc_progress_update(nc_progress *p, uint64_t done);
void nc_progress_end(nc_progress *p);

/* Loads a network (a file, or <built in>: the network embedded in cformer)
 * with cf_cli_load_weights, within opts' payload limit (--weights-max-mb;
 * NULL: automatic), saying so on stderr first when the file is large (the
 * loader itself reports no progress). */
cf_status nc_load_net(const char *path, const cf_weights_load_options *opts, cf_weights **out,
                      cf_error *err);

/* Saves a network (cf_weights_save_file), saying so first when it is large. */
cf_status nc_save_net(const cf_weights *w, const char *path, cf_encoding enc, bool gzip,
                      cf_error *err);

/* Writes size bytes to a temporary file beside path and renames it into
 * place: path is either the complete new file or untouched. */
cf_status nc_write_file_atomic(const char *path, const void *data, size_t size, cf_error *err);

/* A count as "215.7 M" or "12.88 G" into buf. */
const char *nc_si(char *buf, size_t size, double v);

/* The net's human-readable input format name ("classical 112 planes", ...). */
const char *nc_input_format_name(int input_format);

#endif /* NC_COMMON_H */
