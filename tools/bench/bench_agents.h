/* bench_agents.h: one agent (engine/cf_agent.h) over the whole suite on
 * one net: the evaluations it really made for each move, the wall time of
 * each move, and the moves it chose (into the signatures). */
#ifndef BENCH_AGENTS_H
#define BENCH_AGENTS_H

#include "engine/cf_agent.h"
#include "tools/bench/bench_progress.h"
#include "tools/bench/bench_report.h"
#include "tools/bench/bench_signature.h"
#include "tools/bench/bench_suite.h"

/* Plays agent's move in every suite position (the games are left as they
 * were). paper_macs, full_flops: cost per evaluation. backend_sig, if not
 * NULL, is fed the same items as the agent's own signature. */
cf_status bench_agent_measure(const cf_agent_desc *agent, cf_net *net, bench_suite *suite,
                              double paper_macs, double full_flops, bench_signature *backend_sig,
                              bench_progress *progress, bench_agent_run *out, cf_error *err);

#endif /* BENCH_AGENTS_H */
