/* uci_cmd.c: `cformer uci` (also `cformer` with no arguments, or with
 * option flags only): the UCI engine on stdin/stdout.
 *
 *     cformer [uci] [--weights FILE|-w FILE] [--backend NAME|-b NAME]
 *                   [--backend-opts OPTS|-o OPTS] [--threads N|-t N]
 *                   [--agent search|policy|value] [--show-wdl|--no-show-wdl] ...
 *
 * Flags are the UCI options of engine/uci/cf_uci_options.c under their flag
 * names, parsed by tools/cli/cf_cli.h (--flag VALUE or --flag=VALUE;
 * booleans bare, --no-flag, or with true/false). The main thread reads lines and
 * feeds them to the responder while the search and any network load run on
 * threads of their own, so stop and quit are honoured at any time. */
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/cf_engine_weights.h"
#include "engine/uci/cf_uci.h"
#include "engine/uci/cf_uci_ignored.h"
#include "tools/cf_commands.h"
#include "tools/cli/cf_cli.h"
#include "tools/cli/cf_cli_config.h"

static void write_line(void *user, const char *line) {
  FILE *out = user;
  fputs(line, out);
  fputc('\n', out);
  fflush(out);
}

/* The binary's folder, for WeightsFile=<autodiscover>. */
static void exe_dir(char *out, size_t size) {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  out[0] = 0;
  if (n <= 0) return;
  path[n] = 0;
  snprintf(out, size, "%s", dirname(path));
}

/* Flags and the help, from the option table. */
typedef struct uci_flag_ctx {
  cf_uci *u;
  cf_uci_option_id id;
} uci_flag_ctx;

static bool set_option(void *ctx, const char *value, char *why, size_t why_size) {
  const uci_flag_ctx *c = ctx;
  cf_error err = {0};
  if (cf_uci_set_option(c->u, c->id, value, &err) == CF_OK) return true;
  snprintf(why, why_size, "%s", err.msg);
  return false;
}

/* An Lc0 option this engine takes and ignores (cf_uci_ignored.h). */
typedef struct ignored_flag_ctx {
  cf_uci *u;
  const cf_uci_option_desc *o;
} ignored_flag_ctx;

static bool set_ignored(void *ctx, const char *value, char *why, size_t why_size) {
  const ignored_flag_ctx *c = ctx;
  cf_error err = {0};
  if (cf_uci_set_ignored_flag(c->u, c->o, value, &err) == CF_OK) return true;
  snprintf(why, why_size, "%s", err.msg);
  return false;
}

/* The value's name in the help. */
static const char *value_name(const cf_uci_option_desc *o) {
  switch (o->type) {
  case CF_OPT_TYPE_STRING:
    if (strcmp(o->flag, "weights") == 0) return "NET";
    if (strcmp(o->flag, "logfile") == 0 || strcmp(o->flag, "config") == 0) return "FILE";
    return strcmp(o->flag, "time-manager") == 0 ? "NAME" : "OPTS";
  case CF_OPT_TYPE_SPIN: return "N";
  case CF_OPT_TYPE_FLOAT: return "X";
  case CF_OPT_TYPE_COMBO: return "NAME";
  default: return NULL;
  }
}

/* The configuration file (Lc0's ConfigFile): the one --config names, else
 * cformer.config beside the binary when it is there; its flags come before
 * the command line's, which override them. Returns -1 to go on, else an
 * exit status (a named file that cannot be read). */
static int apply_config(cf_cli_spec *spec, const char *dir, int argc, char **argv) {
  const char *named = cf_cli_config_named(argc, argv);
  char path[PATH_MAX + 32];
  if (named && !*named) return CF_CLI_CONTINUE; /* --config= : none */
  if (named) snprintf(path, sizeof path, "%s", named);
  else if (dir[0]) snprintf(path, sizeof path, "%s/%s", dir, CF_CONFIG_DEFAULT_FILE);
  else return CF_CLI_CONTINUE;
  int skipped = 0;
  return cf_cli_config_apply(spec, path, named != NULL, &skipped);
}

/* Applies the configuration file's flags, then the command line's, in
 * order; returns -1 to go on, else an exit status. */
static int apply_flags(cf_uci *u, const char *dir, int argc, char **argv, bool *preload) {
  enum { N_FLAGS = CF_OPT_COUNT + 32 };
  cf_cli_flag flags[N_FLAGS];
  uci_flag_ctx ctx[CF_OPT_COUNT];
  ignored_flag_ctx ignored_ctx[N_FLAGS - CF_OPT_COUNT];
  char help[CF_OPT_COUNT][640];
  for (int i = 0; i < CF_OPT_COUNT; i++) {
    const cf_uci_option_desc *o = cf_uci_option_at((cf_uci_option_id)i);
    ctx[i] = (uci_flag_ctx){u, (cf_uci_option_id)i};
    snprintf(help[i], sizeof help[i], "%s: %s (default %s)", o->name, o->help,
             o->def[0] ? o->def : "empty");
    cf_cli_flag f = {.name = o->flag, .letter = o->short_flag, .alias = o->alias,
                     .arg = value_name(o), .help = help[i], .set = set_option, .ctx = &ctx[i]};
    switch (o->type) {
    case CF_OPT_TYPE_STRING: f.kind = CF_CLI_STRING; break;
    case CF_OPT_TYPE_SPIN:
      f.kind = CF_CLI_LONG;
      f.imin = (long long)o->min;
      f.imax = (long long)o->max;
      break;
    case CF_OPT_TYPE_FLOAT:
      f.kind = CF_CLI_DOUBLE;
      f.dmin = o->min;
      f.dmax = o->max;
      break;
    case CF_OPT_TYPE_CHECK: f.kind = CF_CLI_BOOL; break;
    case CF_OPT_TYPE_COMBO:
      /* with other names for its values (Backend's blas), the option's own
       * check takes them and lists the choices when refused */
      f.kind = o->aliases[0][0] ? CF_CLI_STRING : CF_CLI_CHOICE;
      f.choices = o->vars;
      break;
    }
    flags[i] = f;
  }
  /* Lc0's options that are taken and ignored: hidden from the help, their
   * value checked by the option itself. */
  int n_flags = CF_OPT_COUNT;
  for (int i = 0; i < cf_uci_ignored_count() && n_flags < N_FLAGS; i++) {
    const cf_uci_option_desc *o = cf_uci_ignored_at(i);
    ignored_ctx[i] = (ignored_flag_ctx){u, o};
    flags[n_flags++] = (cf_cli_flag){
        .name = o->flag, .help = o->help, .set = set_ignored, .ctx = &ignored_ctx[i],
        .kind = o->type == CF_OPT_TYPE_CHECK ? CF_CLI_BOOL : CF_CLI_STRING,
        .attrs = CF_CLI_HIDDEN};
  }
  /* Lc0's --preload: not an option, a start-up action. */
  if (n_flags < N_FLAGS)
    flags[n_flags++] = (cf_cli_flag){
        .name = "preload", .kind = CF_CLI_BOOL, .dest = preload,
        .help = "load (and warm) the network at start, before the first command, as Lc0's "
                "--preload; what the load says comes with the first go"};
  cf_cli_spec spec = {
      .prog = "cformer uci", .version = "cformer " CF_VERSION,
      .usage = "usage: cformer [uci] [options]\n\n"
               "Runs the UCI chess engine on standard input and output. Options (each is also\n"
               "a UCI option, settable with setoption; a boolean is --flag, --no-flag or\n"
               "--flag true|false):\n\n",
      .flags = flags, .n_flags = n_flags};
  int rc = apply_config(&spec, dir, argc, argv);
  if (rc != CF_CLI_CONTINUE) return rc;
  rc = cf_cli_parse(&spec, argc, argv);
  if (rc == CF_CLI_CONTINUE) cf_cli_free(&spec);
  return rc;
}

int cf_cmd_uci(int argc, char **argv) {
  char dir[PATH_MAX], buf[8][1024];
  const char *dirs[8];
  exe_dir(dir, sizeof dir);
  cf_engine_default_search_dirs(dir, buf, dirs, 8);
  /* Network loads in the background: quit, stop and isready are read
   * while a slow network loads. */
  /* What the engine says outside a search (a network's load, the tables)
   * comes with the next go: isready is answered with readyok alone, as
   * GUIs and python-chess expect. */
  cf_uci_config cfg = {.search_dirs = dirs, .background_load = true, .say_at_search = true};
  cf_uci *u;
  cf_error err = {0};
  if (cf_uci_create(&cfg, write_line, stdout, &u, &err) != CF_OK) {
    fprintf(stderr, "cformer uci: %s\n", err.msg);
    return 1;
  }
  bool preload = false;
  int rc = apply_flags(u, dir, argc, argv, &preload);
  if (rc >= 0) {
    cf_uci_free(u);
    return rc;
  }
  if (preload) cf_uci_preload(u);
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  bool quit = false;
  while (!quit && (len = getline(&line, &cap, stdin)) >= 0) /* with its length: a NUL is an error */
    quit = !cf_uci_feed_n(u, line, (size_t)len);
  free(line);
  /* End of input without quit: what was read is answered (a script's
   * `go` after a load), then it finishes like quit. */
  if (!quit) cf_uci_drain(u);
  const bool abandoned = cf_uci_loading(u);
  cf_uci_free(u);
  if (abandoned) {
    /* quit during a network load: the load's thread may be inside a
     * backend library, whose exit handlers must not run under it. */
    fflush(stdout);
    _exit(0);
  }
  return 0;
}
