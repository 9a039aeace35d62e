#!/usr/bin/env python3
"""Warm starts (docs/BACKENDS.md "How the CPU backends work"): the first
search of a process against the next one. For each backend, a fresh engine
process loads the network (isready), then searches `go nodes N` twice from
the same position, with `ucinewgame` (which clears the tree and the
network's cache) between, so both searches evaluate the same positions;
the ratio is the first search's time over the second's (the engine's own
`time` on its last info line). Each backend runs ROUNDS fresh processes,
interleaved with the others, and the median ratio is compared with the
bound (issue: at most 1.2). A measurement: run it on a quiet machine,
holding the benchmark lock, with the load average beside the figures.

  scripts/bench_warm_start.py build/tools/cformer [--backends onednn,openblas]
      [--nodes 400] [--rounds 5] [--bound 1.2] [--options BackendOptions-text]
"""
import argparse
import os
import statistics
import sys

from uci_engine import RunError, UciEngine, parse_info

POSITION = "startpos moves e2e4 e7e5 g1f3 b8c6"
SEARCH_TIMEOUT = 300.0


def search_ms(engine, nodes):
    lines, _ = engine.go(POSITION, f"go nodes {nodes}", SEARCH_TIMEOUT)
    times = [i["time"] for i in map(parse_info, lines) if i and "time" in i]
    if not times:
        raise RunError(f"{engine.label}: no info line with a time")
    return max(times[-1], 1)


def one_round(cformer, backend, options, nodes):
    opts = [("Backend", backend)] + ([("BackendOptions", options)] if options else [])
    engine = UciEngine(backend, [cformer, "uci"], opts)
    try:
        engine.start()  # its isready loads (and warms) the network
        first = search_ms(engine, nodes)
        second = search_ms(engine, nodes)
    finally:
        engine.close()
    return first, second


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cformer")
    ap.add_argument("--backends", default="onednn,openblas")
    ap.add_argument("--nodes", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bound", type=float, default=1.2)
    ap.add_argument("--options", default="", help="BackendOptions for every backend")
    args = ap.parse_args()
    backends = [b for b in args.backends.split(",") if b]
    ratios = {b: [] for b in backends}
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    try:
        for r in range(args.rounds):
            for b in backends:
                first, second = one_round(args.cformer, b, args.options, args.nodes)
                ratios[b].append(first / second)
                print(f"round {r + 1} {b}: first {first} ms, second {second} ms, "
                      f"ratio {first / second:.2f}", flush=True)
    except RunError as e:
        print(e, file=sys.stderr)
        return 2
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    failed = False
    for b in backends:
        m = statistics.median(ratios[b])
        ok = m <= args.bound
        failed |= not ok
        print(f"{b}: median first/second {m:.2f} (bound {args.bound}) {'ok' if ok else 'FAIL'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
