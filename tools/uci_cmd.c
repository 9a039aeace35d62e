/* uci_cmd.c: `cformer uci` (also `cformer` with no arguments, or with
 * option flags only): the UCI engine on stdin/stdout.
 *
 *     cformer [uci] [--weights FILE|-w FILE] [--backend NAME|-b NAME]
 *                   [--backend-opts OPTS|-o OPTS] [--threads N|-t N]
 *                   [--agent policy|value] [--policy-temperature T]
 *                   [--history-fill fen_only|no|always] [--show-wdl true|false]
 *
 * Flags are the UCI options of engine/cf_uci_options.c under their flag
 * names (--flag VALUE or --flag=VALUE). The main thread reads lines and
 * feeds them to the responder while the search runs on its own thread, so
 * stop and quit are honoured at any time. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/cf_engine_weights.h"
#include "engine/cf_uci.h"
#include "tools/cf_commands.h"

static void write_line(void *user, const char *line) {
  FILE *out = user;
  fputs(line, out);
  fputc('\n', out);
  fflush(out);
}

static void usage(FILE *out) {
  fprintf(out, "usage: cformer [uci] [options]\n\n"
               "Runs the UCI chess engine on standard input and output. Options (each is also\n"
               "a UCI option, settable with setoption):\n\n");
  for (int i = 0; i < CF_OPT_COUNT; i++) {
    const cf_uci_option_desc *o = cf_uci_option_at((cf_uci_option_id)i);
    char flag[64];
    if (o->short_flag) snprintf(flag, sizeof flag, "-%c, --%s", o->short_flag, o->flag);
    else snprintf(flag, sizeof flag, "    --%s", o->flag);
    fprintf(out, "  %-26s %s: %s (default %s)\n", flag, o->name, o->help,
            o->def[0] ? o->def : "empty");
  }
  fprintf(out, "  %-26s this text\n", "-h, --help");
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

/* Applies the flags; returns -1 to go on, else an exit status. */
static int apply_flags(cf_uci *u, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      usage(stdout);
      return 0;
    }
    char name[128];
    const char *value = NULL;
    if (strncmp(arg, "--", 2) == 0) {
      const char *eq = strchr(arg, '=');
      size_t n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
      snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), arg + 2);
      if (eq) value = eq + 1;
    } else if (arg[0] == '-' && arg[1] && !arg[2]) {
      snprintf(name, sizeof name, "%c", arg[1]);
    } else {
      fprintf(stderr, "cformer uci: unexpected argument '%s' (cformer uci --help)\n", arg);
      return 2;
    }
    cf_uci_option_id id;
    const cf_uci_option_desc *o = cf_uci_option_by_flag(name, &id);
    if (!o) {
      fprintf(stderr, "cformer uci: unknown option '%s' (cformer uci --help)\n", arg);
      return 2;
    }
    if (!value) {
      if (i + 1 >= argc) {
        fprintf(stderr, "cformer uci: %s needs a value\n", arg);
        return 2;
      }
      value = argv[++i];
    }
    cf_error err = {0};
    if (cf_uci_set_option(u, id, value, &err) != CF_OK) {
      fprintf(stderr, "cformer uci: %s\n", err.msg);
      return 2;
    }
  }
  return -1;
}

int cf_cmd_uci(int argc, char **argv) {
  char dir[PATH_MAX], buf[8][1024];
  const char *dirs[8];
  exe_dir(dir, sizeof dir);
  cf_engine_default_search_dirs(dir, buf, dirs, 8);
  cf_uci_config cfg = {.search_dirs = dirs};
  cf_uci *u;
  cf_error err = {0};
  if (cf_uci_create(&cfg, write_line, stdout, &u, &err) != CF_OK) {
    fprintf(stderr, "cformer uci: %s\n", err.msg);
    return 1;
  }
  int rc = apply_flags(u, argc, argv);
  if (rc >= 0) {
    cf_uci_free(u);
    return rc;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, stdin)) >= 0) /* with its length: a NUL is an error */
    if (!cf_uci_feed_n(u, line, (size_t)len)) break;
  /* End of input without quit: finish like quit. */
  free(line);
  cf_uci_free(u);
  return 0;
}
