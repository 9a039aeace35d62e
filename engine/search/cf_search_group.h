/* cf_search_group.h: many searches sharing the network's batches.
 *
 * Each job is a search of its own position (its own tree and NN cache);
 * cf_search_run_group runs them all to their ends in rounds: every search
 * that goes on gathers its next batch as cf_search_run would, the leaves
 * of all of them go to the network in one cf_net_eval, and each backs its
 * own up. Positions that each make small batches (a short search from a
 * new tree) thus fill the network's larger ones, which is what a device
 * needs (docs/SEARCH_PIPELINE.md) and what helps the CPU's matmuls.
 *
 * On a device backend the jobs take turns in two parts, so the CPU gathers
 * one part's batches while the other's are on the device.
 *
 * A job's result is the one cf_search_run gives with the same limits, as
 * long as the backend's answer for a position does not depend on the
 * positions beside it in a batch (true of ref, sim and the CPU kernels;
 * tests/engine/search_group.c) and the limits do not read the clock. */
#ifndef CF_SEARCH_GROUP_H
#define CF_SEARCH_GROUP_H

#include "engine/search/cf_search.h"

typedef struct cf_search_job {
  cf_search *search;        /* in: one search per job (not shared between jobs) */
  cf_game *game;            /* in: its position; left as it was found */
  cf_search_limits limits;  /* in: as for cf_search_run (on_info is not called) */
  cf_search_result result;  /* out */
  cf_status status;         /* out: CF_OK, or why this search failed */
  cf_error error;           /* out: with status */
} cf_search_job;

/* What the group sent to the network. */
typedef struct cf_search_group_stats {
  long calls;  /* cf_net_eval calls: one a round that had leaves */
  long leaves; /* positions in them */
} cf_search_group_stats;

/* Runs every job to its end; the searches run one batch at a time
 * (batches_in_flight is not used). A failed network call fails the
 * searches whose leaves were in it (each keeps the best move it had); the
 * others go on. stats may be NULL. Returns CF_OK when every job's status
 * is CF_OK, else the first failure (err: its why). */
cf_status cf_search_run_group(cf_net *net, cf_search_job *jobs, int n,
                              cf_search_group_stats *stats, cf_error *err);

#endif /* CF_SEARCH_GROUP_H */
