/* bench_search.h: the search agent (engine/search/cf_search.h) over the
 * whole suite, measured as the engine would run it but with a fixed number
 * of visits per move: smart pruning off, so every move makes exactly that
 * many visits (fewer only when the root is proven), and a fresh tree and NN
 * cache per position, so positions are independent and, on one thread, the
 * moves are repeatable. What it reports beyond any agent's figures: nodes/s,
 * cache hit rate, mean batch size, tree memory per visit and, once the same
 * backend's batch sweep is known, the search efficiency: its evaluations/s
 * over plain cf_net_eval's at the batch size it really used. */
#ifndef BENCH_SEARCH_H
#define BENCH_SEARCH_H

#include "net/cf_net.h"
#include "tools/bench/bench_progress.h"
#include "tools/bench/bench_report.h"
#include "tools/bench/bench_signature.h"
#include "tools/bench/bench_suite.h"

/* Searches every suite position with `visits` visits per move and
 * MinibatchSize `minibatch` (> 0). Fills out's per-agent figures (evals,
 * time per move, signature: the same items as bench_agent_measure) and
 * out->search, all but the efficiency fields. */
cf_status bench_search_measure(cf_net *net, bench_suite *suite, int visits, int minibatch,
                               double paper_macs, double full_flops, bench_signature *backend_sig,
                               bench_progress *progress, bench_agent_run *out, cf_error *err);

/* Fills the efficiency fields of a measured search from the plain
 * throughput of the same backend: the reference is the swept batch size
 * nearest the search's mean batch (the larger on a tie); plain rates are
 * batch / mean call time, work over total time like the search's. */
void bench_search_efficiency(bench_search_run *s, double search_evals_per_second,
                             const bench_batch_run *batches, int n_batches);

#endif /* BENCH_SEARCH_H */
