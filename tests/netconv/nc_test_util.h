/* nc_test_util.h: helpers of the netconv tests: running a subcommand in
 * process, a scratch folder, and a net's largest deviation from its parity
 * truth. */
#ifndef NC_TEST_UTIL_H
#define NC_TEST_UTIL_H

#include <stdbool.h>

#include "tests/cf_test.h"
#include "weights/cf_weights.h"

/* Runs netconv subcommand fn with the NULL-terminated arguments (argv[0] is
 * the command name); returns its exit code. */
int nc_test_run(int (*fn)(int, char **), const char *name, ...);

/* A fresh scratch folder (mkdtemp under $TMPDIR or /tmp); path into dir. */
bool nc_test_tmpdir(char *dir, size_t size);

/* dir/name into buf. */
const char *nc_test_path(char *buf, size_t size, const char *dir, const char *name);

/* Evaluates w on the parity cases of net (the first max_cases, 0 = all;
 * expected planes as input, every head it has, reference backend) and
 * returns the largest |output - truth| over all outputs; < 0 when it could
 * not run (a CHECK has failed then). The fast tests use a few cases: the
 * sanitizer build runs the reference backend slowly. */
double nc_test_parity_error(cf_test *t, const char *net, const cf_weights *w, int max_cases);

bool nc_test_file_exists(const char *path);

/* Whether two files have the same bytes. */
bool nc_test_same_bytes(const char *a, const char *b);

#endif /* NC_TEST_UTIL_H */
