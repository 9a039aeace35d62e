/* cf_cli_config.c: Lc0's configuration file (cf_cli_config.h). */
#include "tools/cli/cf_cli_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cf_cli_config_named(int argc, char **argv) {
  const char *name = NULL;
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--config=", 9) == 0) name = argv[i] + 9;
    else if ((strcmp(argv[i], "--config") == 0 || strcmp(argv[i], "-c") == 0) && i + 1 < argc)
      name = argv[++i];
  }
  return name;
}

/* One line, trimmed, as the arguments of cf_cli_parse: returns argc (2 or
 * 3), or 0 for a line that is no flag (then *why says so). */
static int line_args(char *line, char *flag, size_t size, char **argv, const char **why) {
  if (line[0] == '-' && line[1] != '-') {
    *why = "only --long flags are allowed in a configuration file";
    return 0;
  }
  snprintf(flag, size, "%s%s", line[0] == '-' ? "" : "--", line);
  argv[1] = flag;
  /* "--flag value": the value after the first space, unless '=' came first */
  char *sp = flag;
  while (*sp && !isspace((unsigned char)*sp) && *sp != '=') sp++;
  if (!*sp || *sp == '=') return 2;
  *sp++ = 0;
  while (isspace((unsigned char)*sp)) sp++;
  argv[2] = sp;
  return 3;
}

int cf_cli_config_apply(cf_cli_spec *spec, const char *path, bool must_exist, int *skipped) {
  *skipped = 0;
  FILE *f = fopen(path, "r");
  if (!f) {
    if (!must_exist) return CF_CLI_CONTINUE;
    fprintf(stderr, "%s: cannot open configuration file '%s': %s\n", spec->prog, path,
            strerror(errno));
    return 1;
  }
  char *line = NULL, where[512];
  size_t cap = 0;
  int number = 0;
  while (getline(&line, &cap, f) >= 0) {
    number++;
    char *s = line, *e = line + strlen(line);
    while (isspace((unsigned char)*s)) s++;
    while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
    if (!*s || *s == '#') continue;
    snprintf(where, sizeof where, "%s line %d", path, number);
    size_t size = strlen(s) + 3;
    char *flag = malloc(size), *argv[4] = {(char *)spec->prog, NULL, NULL, NULL};
    const char *why = NULL;
    int argc = flag ? line_args(s, flag, size, argv, &why) : 0;
    int rc = 2;
    if (argc > 0) {
      spec->where = where;
      rc = cf_cli_parse(spec, argc, argv);
      spec->where = NULL;
      if (rc == CF_CLI_CONTINUE) cf_cli_free(spec);
    } else {
      fprintf(stderr, "%s: %s: %s\n", spec->prog, where, flag ? why : "out of memory");
    }
    if (rc != CF_CLI_CONTINUE) {
      fprintf(stderr, "%s: %s skipped\n", spec->prog, where);
      ++*skipped;
    }
    free(flag);
  }
  free(line);
  fclose(f);
  return CF_CLI_CONTINUE;
}
