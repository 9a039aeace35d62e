/* cf_cli.h: the one command-line parser of every cformer tool and
 * subcommand (cformer uci/perft/eval/bench/puzzles/pack-data, netconv and
 * its subcommands, cformer-match). docs/CLI.md states the conventions for
 * users; this header is how a tool declares its flags.
 *
 * A tool fills a table of cf_cli_flag (long name, optional letter, kind,
 * destination, help text) and calls cf_cli_parse, which gives every tool
 * the same rules:
 *
 *   --flag VALUE and --flag=VALUE (also -f VALUE and -f=VALUE); a value
 *     that itself starts with "--" must be attached with '=';
 *   booleans: --flag, --no-flag, --flag=true|false, and --flag true|false
 *     (the next argument is taken only when it is literally true or false);
 *     a flag declared as "no-x" is turned back on with --x;
 *   --flag= (an empty value) is an error for every kind but strings;
 *   a flag given again replaces its earlier value: the last one wins (as
 *     in Lc0 and most Unix tools, so a wrapper's defaults can be
 *     overridden); a repeatable kind (CF_CLI_STRINGS) keeps every value;
 *   "--" ends the flags: everything after it is positional;
 *   -h/--help prints the help on stdout and --version the version, exit 0;
 *   every usage error is one line on stderr,
 *     "PROG: MESSAGE (PROG --help)", and exit status 2.
 *
 * The parser only parses: it never exits, and writes nothing but the help,
 * the version and the one error line. The tool checks what depends on
 * several flags afterwards and reports it with cf_cli_usage_error (same
 * wording, status 2). */
#ifndef CF_CLI_H
#define CF_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses shared by every tool (docs/CLI.md). */
#define CF_CLI_EXIT_OK 0
#define CF_CLI_EXIT_FAILURE 1 /* a file, the data or the work failed */
#define CF_CLI_EXIT_USAGE 2   /* bad command line: nothing was done */
/* cf_cli_parse's "go on": the arguments are fine. */
#define CF_CLI_CONTINUE (-1)

typedef enum cf_cli_kind {
  CF_CLI_BOOL,    /* bool *: no value needed (see above) */
  CF_CLI_INT,     /* int *: whole number in [imin, imax] */
  CF_CLI_LONG,    /* long *: whole number in [imin, imax] */
  CF_CLI_U64,     /* uint64_t *: whole number in [imin, UINT64_MAX], no sign */
  CF_CLI_DOUBLE,  /* double *: finite number in [dmin, dmax] */
  CF_CLI_STRING,  /* const char **: any text, empty included (points into argv) */
  CF_CLI_CHOICE,  /* int *: index of one of choices (matched without regard to case) */
  CF_CLI_STRINGS, /* cf_cli_list *: repeatable, each value appended */
  CF_CLI_WORDS,   /* char[size]: this argument and the following ones up to the
                   * next flag, joined by spaces (perft's --fen given as fields) */
} cf_cli_kind;

/* A repeatable flag's values, or the positional arguments, in order. The
 * strings point into argv; the array is the parser's (cf_cli_free). */
typedef struct cf_cli_list {
  const char **items;
  int count, cap;
} cf_cli_list;

/* Called after the kind's own check with the value as text (booleans
 * "true"/"false", choices as declared, the rest as given). Returns false
 * to refuse it, with the reason in why ("expected ..."). */
typedef bool (*cf_cli_set_fn)(void *ctx, const char *value, char *why, size_t why_size);

enum {
  CF_CLI_REQUIRED = 1u << 0, /* a usage error when absent */
  CF_CLI_HIDDEN = 1u << 1,   /* accepted, not listed in the help */
};

typedef struct cf_cli_flag {
  const char *name;  /* long name without "--" */
  char letter;       /* -x, or 0 */
  cf_cli_kind kind;
  void *dest;        /* per kind (above); may be NULL when set is given */
  const char *arg;   /* the value's name in the help ("N", "FILE"); NULL: per kind */
  const char *help;  /* may hold '\n' for more lines */
  long long imin, imax;        /* INT, LONG (0, 0: the type's range); U64: imin */
  double dmin, dmax;           /* DOUBLE (0, 0: any finite number) */
  const char *const *choices;  /* CHOICE: NULL-terminated */
  size_t size;                 /* WORDS: the buffer's size */
  const char *alias;           /* another long name (an older spelling), or NULL */
  cf_cli_set_fn set;           /* optional: check or apply the value */
  void *ctx;                   /* set's first argument */
  unsigned attrs;              /* CF_CLI_REQUIRED, CF_CLI_HIDDEN */
  int count;                   /* out: times given (the last value is kept) */
} cf_cli_flag;

typedef struct cf_cli_spec {
  const char *prog;     /* "cformer bench": leads every message */
  const char *version;  /* what --version prints ("cformer 0.1.0") */
  const char *usage;    /* the help above the flag list (usage line, description) */
  const char *footer;   /* the help below it, or NULL */
  cf_cli_flag *flags;
  int n_flags;
  /* Positional arguments: their name in messages ("SHARD.tsv"; NULL: none
   * allowed), at most max_positional (0: no limit), stored in positional. */
  const char *positional_name;
  int max_positional;
  cf_cli_list positional;
  /* Where the arguments come from when not the command line ("FILE line
   * N", cf_cli_config.h): messages say so instead of pointing at --help. */
  const char *where;
} cf_cli_spec;

/* Parses argv[1..argc-1]. Returns CF_CLI_CONTINUE when the tool should go
 * on (then call cf_cli_free when done with the lists), 0 after --help or
 * --version, 2 after a usage error (printed); in those two cases the
 * lists are already freed. */
int cf_cli_parse(cf_cli_spec *spec, int argc, char **argv);

/* Frees the positional list and every CF_CLI_STRINGS list of the table. */
void cf_cli_free(cf_cli_spec *spec);

/* The help: usage, the flag list (with -h/--help and --version), footer. */
void cf_cli_print_help(const cf_cli_spec *spec, FILE *out);

/* Prints "PROG: MESSAGE (PROG --help)" on stderr (with spec->where:
 * "PROG: WHERE: MESSAGE"); returns 2. */
int cf_cli_usage_error(const cf_cli_spec *spec, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A failure after the command line was accepted (a file, the data, the
 * work): prints "PROG: MESSAGE" on stderr and returns CF_CLI_EXIT_FAILURE,
 * so a command ends with `return cf_cli_fail("cformer eval", ...)`. The
 * one error exit of every tool. */
int cf_cli_fail(const char *prog, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int cf_cli_vfail(const char *prog, const char *fmt, va_list ap);

/* The flag of the table by long name (NULL if none), e.g. to read count. */
cf_cli_flag *cf_cli_find(const cf_cli_spec *spec, const char *name);
/* Times the flag of that name was given (0 for a name not in the table). */
int cf_cli_given(const cf_cli_spec *spec, const char *name);

#endif /* CF_CLI_H */
