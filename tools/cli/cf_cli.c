/* cf_cli.c: the tools' command-line parser (cf_cli.h). */
#include "tools/cli/cf_cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HELP_COLUMN_MAX 24 /* widest flag column before the text moves right */

int cf_cli_usage_error(const cf_cli_spec *spec, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", spec->prog);
  if (spec->where) fprintf(stderr, "%s: ", spec->where);
  vfprintf(stderr, fmt, ap);
  if (spec->where) fprintf(stderr, "\n");
  else fprintf(stderr, " (%s --help)\n", spec->prog);
  va_end(ap);
  return CF_CLI_EXIT_USAGE;
}

int cf_cli_vfail(const char *prog, const char *fmt, va_list ap) {
  fprintf(stderr, "%s: ", prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  return CF_CLI_EXIT_FAILURE;
}

int cf_cli_fail(const char *prog, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = cf_cli_vfail(prog, fmt, ap);
  va_end(ap);
  return rc;
}

cf_cli_flag *cf_cli_find(const cf_cli_spec *spec, const char *name) {
  for (int i = 0; name && i < spec->n_flags; i++)
    if (strcmp(spec->flags[i].name, name) == 0 ||
        (spec->flags[i].alias && strcmp(spec->flags[i].alias, name) == 0))
      return &spec->flags[i];
  return NULL;
}

int cf_cli_given(const cf_cli_spec *spec, const char *name) {
  const cf_cli_flag *f = cf_cli_find(spec, name);
  return f ? f->count : 0;
}

static bool takes_value(const cf_cli_flag *f) { return f->kind != CF_CLI_BOOL; }

/* The value's name in the help and in "needs a value" messages. */
static const char *arg_name(const cf_cli_flag *f) {
  if (f->arg) return f->arg;
  switch (f->kind) {
  case CF_CLI_INT:
  case CF_CLI_LONG:
  case CF_CLI_U64: return "N";
  case CF_CLI_DOUBLE: return "X";
  case CF_CLI_CHOICE: return "NAME";
  case CF_CLI_WORDS: return "WORDS";
  default: return "VALUE";
  }
}

static void int_range(const cf_cli_flag *f, long long *lo, long long *hi) {
  *lo = f->imin;
  *hi = f->imax;
  if (*lo == 0 && *hi == 0) {
    *lo = f->kind == CF_CLI_INT ? INT_MIN : LONG_MIN;
    *hi = f->kind == CF_CLI_INT ? INT_MAX : LONG_MAX;
  }
}

/* "expected ..." for a value of f's kind. */
static void expected(const cf_cli_flag *f, char *out, size_t size) {
  long long lo, hi;
  switch (f->kind) {
  case CF_CLI_BOOL: snprintf(out, size, "expected true or false"); return;
  case CF_CLI_INT:
  case CF_CLI_LONG:
    int_range(f, &lo, &hi);
    if (hi == INT_MAX || hi == LONG_MAX)
      snprintf(out, size, "expected a whole number, at least %lld", lo);
    else
      snprintf(out, size, "expected a whole number from %lld to %lld", lo, hi);
    return;
  case CF_CLI_U64:
    snprintf(out, size, "expected a whole number, at least %lld", f->imin > 0 ? f->imin : 0);
    return;
  case CF_CLI_DOUBLE:
    if (f->dmin == 0 && f->dmax == 0) snprintf(out, size, "expected a number");
    else snprintf(out, size, "expected a number from %g to %g", f->dmin, f->dmax);
    return;
  case CF_CLI_CHOICE: {
    size_t at = (size_t)snprintf(out, size, "expected ");
    int n = 0;
    while (f->choices && f->choices[n]) n++;
    for (int i = 0; i < n && at < size; i++)
      at += (size_t)snprintf(out + at, size - at, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ",
                             f->choices[i]);
    return;
  }
  default: snprintf(out, size, "expected a value"); return;
  }
}

static bool parse_bool_text(const char *v, bool *out) {
  static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off", "0"};
  for (int i = 0; i < 4; i++) {
    if (strcasecmp(v, yes[i]) == 0) return *out = true, true;
    if (strcasecmp(v, no[i]) == 0) return *out = false, true;
  }
  return false;
}

static bool list_add(cf_cli_list *l, const char *s) {
  if (l->count == l->cap) {
    int cap = l->cap ? 2 * l->cap : 8;
    const char **items = realloc(l->items, (size_t)cap * sizeof *items);
    if (!items) return false;
    l->items = items;
    l->cap = cap;
  }
  l->items[l->count++] = s;
  return true;
}

/* Checks text against f's kind and stores it; *canon is the text handed to
 * f->set. Returns false with why filled. */
static bool store(cf_cli_flag *f, const char *text, const char **canon, char *why, size_t n) {
  *canon = text;
  char *end;
  if (f->kind != CF_CLI_STRING && f->kind != CF_CLI_STRINGS && !*text) {
    expected(f, why, n);
    return false;
  }
  switch (f->kind) {
  case CF_CLI_BOOL: {
    bool v;
    if (!parse_bool_text(text, &v)) return expected(f, why, n), false;
    *canon = v ? "true" : "false";
    if (f->dest) *(bool *)f->dest = v;
    return true;
  }
  case CF_CLI_INT:
  case CF_CLI_LONG: {
    long long lo, hi;
    int_range(f, &lo, &hi);
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (isspace((unsigned char)*text) || *end || errno || v < lo || v > hi)
      return expected(f, why, n), false;
    if (f->dest) {
      if (f->kind == CF_CLI_INT) *(int *)f->dest = (int)v;
      else *(long *)f->dest = (long)v;
    }
    return true;
  }
  case CF_CLI_U64: {
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (!isdigit((unsigned char)*text) || *end || errno ||
        v < (unsigned long long)(f->imin > 0 ? f->imin : 0))
      return expected(f, why, n), false;
    if (f->dest) *(uint64_t *)f->dest = (uint64_t)v;
    return true;
  }
  case CF_CLI_DOUBLE: {
    double v = strtod(text, &end);
    bool ranged = f->dmin != 0 || f->dmax != 0;
    if (isspace((unsigned char)*text) || *end || !isfinite(v) ||
        (ranged && (v < f->dmin || v > f->dmax)))
      return expected(f, why, n), false;
    if (f->dest) *(double *)f->dest = v;
    return true;
  }
  case CF_CLI_CHOICE:
    for (int i = 0; f->choices && f->choices[i]; i++)
      if (strcasecmp(f->choices[i], text) == 0) {
        *canon = f->choices[i];
        if (f->dest) *(int *)f->dest = i;
        return true;
      }
    expected(f, why, n);
    return false;
  case CF_CLI_STRING:
    if (f->dest) *(const char **)f->dest = text;
    return true;
  case CF_CLI_STRINGS:
    if (f->dest && !list_add(f->dest, text)) return snprintf(why, n, "out of memory"), false;
    return true;
  case CF_CLI_WORDS:
    if (strlen(text) >= f->size)
      return snprintf(why, n, "too long (at most %zu characters)", f->size ? f->size - 1 : 0), false;
    if (f->dest) memmove(f->dest, text, strlen(text) + 1);
    return true;
  }
  return snprintf(why, n, "internal error: unknown kind"), false;
}

/* An argument that reads as a flag: "-x..." or "--x...", not "-" alone. */
static bool is_flag_like(const char *a) { return a[0] == '-' && a[1] != '\0'; }

/* argv[*i] is the start of a WORDS value given without '=': it and the
 * following arguments up to the next flag, joined by single spaces. */
static bool join_words(int argc, char **argv, int *i, char *buf, size_t size) {
  size_t n = 0;
  for (int first = 1; *i < argc && (first || !is_flag_like(argv[*i])); (*i)++, first = 0) {
    size_t len = strlen(argv[*i]);
    if (n + len + 2 > size) return false;
    if (!first) buf[n++] = ' ';
    memcpy(buf + n, argv[*i], len);
    n += len;
  }
  (*i)--; /* the caller's loop moves past the last word */
  buf[n] = '\0';
  return true;
}

static void help_line(FILE *out, int column, const char *left, const char *text) {
  int len = (int)strlen(left);
  fprintf(out, "  %s", left);
  if (!text || !*text) {
    fputc('\n', out);
    return;
  }
  fprintf(out, "%*s", len < column ? column - len : 0, "");
  fputs("  ", out);
  for (const char *p = text; *p; p++) {
    fputc(*p, out);
    if (*p == '\n' && p[1]) fprintf(out, "  %*s  ", column, "");
  }
  if (text[strlen(text) - 1] != '\n') fputc('\n', out);
}

static void flag_left(const cf_cli_flag *f, char *out, size_t size) {
  size_t at = 0;
  if (f->letter) at = (size_t)snprintf(out, size, "-%c, ", f->letter);
  at += (size_t)snprintf(out + at, size - at, "--%s", f->name);
  if (takes_value(f) && at < size) snprintf(out + at, size - at, " %s", arg_name(f));
}

void cf_cli_print_help(const cf_cli_spec *spec, FILE *out) {
  if (spec->usage) fputs(spec->usage, out);
  char left[128];
  int column = (int)strlen("-h, --help");
  for (int i = 0; i < spec->n_flags; i++) {
    if (spec->flags[i].attrs & CF_CLI_HIDDEN) continue;
    flag_left(&spec->flags[i], left, sizeof left);
    int len = (int)strlen(left);
    if (len > column && len <= HELP_COLUMN_MAX) column = len;
  }
  for (int i = 0; i < spec->n_flags; i++) {
    const cf_cli_flag *f = &spec->flags[i];
    if (f->attrs & CF_CLI_HIDDEN) continue;
    flag_left(f, left, sizeof left);
    if (!f->alias) {
      help_line(out, column, left, f->help);
      continue;
    }
    char text[1024];
    snprintf(text, sizeof text, "%s (also --%s)", f->help ? f->help : "", f->alias);
    help_line(out, column, left, text);
  }
  help_line(out, column, "-h, --help", "print this help and exit");
  help_line(out, column, "--version", "print the version and exit");
  if (spec->footer) fputs(spec->footer, out);
}

void cf_cli_free(cf_cli_spec *spec) {
  free(spec->positional.items);
  spec->positional = (cf_cli_list){0};
  for (int i = 0; i < spec->n_flags; i++)
    if (spec->flags[i].kind == CF_CLI_STRINGS && spec->flags[i].dest) {
      cf_cli_list *l = spec->flags[i].dest;
      free(l->items);
      *l = (cf_cli_list){0};
    }
}

/* The flag a long name refers to. *negated: the name was the flag's
 * opposite (--no-x for x, --x for a flag declared as no-x). */
static cf_cli_flag *lookup_long(const cf_cli_spec *spec, const char *name, bool *negated) {
  *negated = false;
  cf_cli_flag *f = cf_cli_find(spec, name);
  if (f) return f;
  char other[200];
  if (strncmp(name, "no-", 3) == 0) snprintf(other, sizeof other, "%s", name + 3);
  else snprintf(other, sizeof other, "no-%s", name);
  f = cf_cli_find(spec, other);
  if (f && f->kind == CF_CLI_BOOL) {
    *negated = true;
    return f;
  }
  return NULL;
}

/* The parse ends early: the spec's lists freed, status returned. */
static int parse_end(cf_cli_spec *spec, int status) {
  cf_cli_free(spec);
  return status;
}

int cf_cli_parse(cf_cli_spec *spec, int argc, char **argv) {
  spec->positional = (cf_cli_list){0};
  for (int i = 0; i < spec->n_flags; i++) spec->flags[i].count = 0;
  bool only_positional = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (only_positional || !is_flag_like(a)) {
      if (!spec->positional_name)
        return parse_end(spec, cf_cli_usage_error(spec, "unexpected argument '%s'", a));
      if (spec->max_positional == 1 && spec->positional.count >= 1)
        return parse_end(spec, cf_cli_usage_error(spec, "unexpected argument '%s' (one %s only)", a,
                                             spec->positional_name));
      if (spec->max_positional > 1 && spec->positional.count >= spec->max_positional)
        return parse_end(spec, cf_cli_usage_error(spec, "unexpected argument '%s' (at most %d %s)", a,
                                             spec->max_positional, spec->positional_name));
      if (!list_add(&spec->positional, a))
        return parse_end(spec, cf_cli_usage_error(spec, "out of memory"));
      continue;
    }
    if (strcmp(a, "--") == 0) {
      only_positional = true;
      continue;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      cf_cli_print_help(spec, stdout);
      return parse_end(spec, CF_CLI_EXIT_OK);
    }
    if (strcmp(a, "--version") == 0) {
      printf("%s\n", spec->version ? spec->version : spec->prog);
      return parse_end(spec, CF_CLI_EXIT_OK);
    }
    /* The name as given (for messages), and the value after '=', if any. */
    char given[160];
    const char *eq = strchr(a, '='), *value = eq ? eq + 1 : NULL;
    size_t name_len = eq ? (size_t)(eq - a) : strlen(a);
    snprintf(given, sizeof given, "%.*s", (int)(name_len < sizeof given ? name_len : sizeof given - 1), a);
    cf_cli_flag *f = NULL;
    bool negated = false;
    if (a[1] == '-') {
      f = lookup_long(spec, given + 2, &negated);
    } else if (name_len == 2) {
      for (int k = 0; k < spec->n_flags && !f; k++)
        if (spec->flags[k].letter == a[1]) f = &spec->flags[k];
    }
    if (!f) return parse_end(spec, cf_cli_usage_error(spec, "unknown flag '%s'", given));
    f->count++; /* given again: the last value wins (a repeatable kind keeps all) */
    const char *text = value;
    if (f->kind == CF_CLI_BOOL) {
      if (negated && value)
        return parse_end(spec, cf_cli_usage_error(spec, "%s takes no value (got '%s')", given, value));
      if (negated)
        text = "false";
      else if (!value && i + 1 < argc &&
               (strcasecmp(argv[i + 1], "true") == 0 || strcasecmp(argv[i + 1], "false") == 0))
        text = argv[++i];
      else if (!value)
        text = "true";
    } else if (!value) {
      if (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0)
        return parse_end(spec, cf_cli_usage_error(spec, "%s needs a value: %s %s", given, given,
                                             arg_name(f)));
      i++;
      text = argv[i];
      if (f->kind == CF_CLI_WORDS) {
        const char *first = argv[i];
        if (!f->dest || !join_words(argc, argv, &i, f->dest, f->size))
          return parse_end(spec, cf_cli_usage_error(spec,
                                               "bad value '%s' for %s: too long (at most %zu "
                                               "characters)",
                                               first, given, f->size ? f->size - 1 : 0));
        text = f->dest;
      }
    }
    const char *canon = text;
    char why[512] = "";
    if (!store(f, text, &canon, why, sizeof why) ||
        (f->set && !f->set(f->ctx, canon, why, sizeof why)))
      return parse_end(spec, cf_cli_usage_error(spec, "bad value '%s' for %s: %s", text, given, why));
  }
  for (int i = 0; i < spec->n_flags; i++) {
    const cf_cli_flag *f = &spec->flags[i];
    if ((f->attrs & CF_CLI_REQUIRED) && f->count == 0) {
      if (takes_value(f))
        return parse_end(spec, cf_cli_usage_error(spec, "--%s is required: --%s %s", f->name, f->name,
                                             arg_name(f)));
      return parse_end(spec, cf_cli_usage_error(spec, "--%s is required", f->name));
    }
  }
  return CF_CLI_CONTINUE;
}
