/* cf_init.c: the one-time, thread-safe construction of chess/'s tables.
 *
 * pthread_once rather than a "done" flag: two threads creating their first
 * positions at the same time must not both write the tables, and the second
 * must not read them half-built. After the first call this is one load and a
 * predictable branch, cheap enough to run on every position setup. */
#include <pthread.h>

#include "chess/cf_attacks.h"
#include "chess/cf_tables_build.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void build_all(void) {
  cf_attacks_build();
  cf_zobrist_build();
}

void cf_chess_init(void) { pthread_once(&init_once, build_all); }
