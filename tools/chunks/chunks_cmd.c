/* chunks_cmd.c: `cformer chunks describe FILE...`: what a set of training
 * chunks holds (records, version, input formats, positions by the game's
 * result). Every file is read through; the first that is not a whole V6
 * chunk stops the command with its name and what is wrong (exit 1), so a
 * pipeline can use it as a check before training. */
#include <stdio.h>
#include <string.h>

#include "tools/cf_commands.h"
#include "tools/chunks/cf_chunk_file.h"
#include "tools/cli/cf_cli.h"

#define PROG "cformer chunks"
#define USAGE                                                                            \
  "usage: cformer chunks describe FILE...\n\n"                                            \
  "Reads Lc0 V6 training chunks (gzip files of 8,356-byte records, as written by\n"       \
  "`cformer selfplay --training` and by Lc0) and prints, per file and in all: the\n"      \
  "records, their version and input format, and the positions by the game's result\n"     \
  "for White (W/D/L). A truncated or foreign file stops it with the file's name.\n\n"

#define MAX_FORMATS 8

typedef struct tally {
  long records, w, d, l, odd; /* odd: result_q not a whole result */
  unsigned formats[MAX_FORMATS];
  int n_formats;
} tally;

static void add_format(tally *t, unsigned f) {
  for (int i = 0; i < t->n_formats; i++)
    if (t->formats[i] == f) return;
  if (t->n_formats < MAX_FORMATS) t->formats[t->n_formats++] = f;
}

static cf_status count(void *ctx, long index, const cf_v6 *r, cf_error *err) {
  (void)index;
  (void)err;
  tally *t = ctx;
  t->records++;
  switch (cf_v6_white_result(r)) {
    case 1: t->w++; break;
    case 0: t->d++; break;
    case -1: t->l++; break;
    default: t->odd++; break;
  }
  add_format(t, r->input_format);
  return CF_OK;
}

static void print(const char *name, const tally *t) {
  printf("%s: %ld records, version %d, input format", name, t->records, CF_V6_VERSION);
  for (int i = 0; i < t->n_formats; i++) printf("%s%u", i ? "," : " ", t->formats[i]);
  printf(", W/D/L %ld/%ld/%ld", t->w, t->d, t->l);
  if (t->odd) printf(", %ld without a game result", t->odd);
  printf("\n");
}

int cf_cmd_chunks(int argc, char **argv) {
  cf_cli_spec spec = {.prog = PROG, .version = "cformer " CF_VERSION, .usage = USAGE,
                      .positional_name = "describe FILE..."};
  int rc = cf_cli_parse(&spec, argc, argv);
  if (rc != CF_CLI_CONTINUE) return rc;
  if (spec.positional.count < 1 || strcmp(spec.positional.items[0], "describe") != 0) {
    cf_cli_free(&spec);
    return cf_cli_usage_error(&spec, "expected: describe FILE...");
  }
  if (spec.positional.count < 2) {
    cf_cli_free(&spec);
    return cf_cli_usage_error(&spec, "describe: no FILE given");
  }
  tally all = {0};
  rc = CF_CLI_EXIT_OK;
  for (int i = 1; i < spec.positional.count && rc == CF_CLI_EXIT_OK; i++) {
    tally t = {0};
    cf_error err = {0};
    if (cf_chunk_read(spec.positional.items[i], count, &t, NULL, &err) != CF_OK) {
      rc = cf_cli_fail(PROG, "%s", err.msg);
      break;
    }
    print(spec.positional.items[i], &t);
    all.records += t.records, all.w += t.w, all.d += t.d, all.l += t.l, all.odd += t.odd;
    for (int k = 0; k < t.n_formats; k++) add_format(&all, t.formats[k]);
  }
  if (rc == CF_CLI_EXIT_OK && spec.positional.count > 2) print("total", &all);
  cf_cli_free(&spec);
  return rc;
}
