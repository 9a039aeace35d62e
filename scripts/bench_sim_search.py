#!/usr/bin/env python3
"""The search at a GPU's speed on any CPU: nodes/s on the simulated
accelerator (Backend sim) against the device's ceiling, with one batch in
flight (the search that waits for every batch) and with several.

The simulated device runs one pass at a time, each taking latency + n x
per-position time, so its ceiling is MinibatchSize / (latency +
MinibatchSize x per-position time) positions a second. Every configuration
searches the same positions (the middlegame suite) to the same node count,
in interleaved rounds; the medians are reported with the load average and
the CPU, and the search's own CPU time per visit.

    scripts/bench_sim_search.py --cformer build/tools/cformer \\
        --latency-us 2000 --per-position-ns 1000 --minibatch 256 --threads 1,2,3,4
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from uci_engine import RunError, UciEngine, parse_info  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def suite(path, count):
    """UCI `position` arguments of the suite's first count lines (id|fen|moves)."""
    out = []
    for line in open(path):
        if not line.strip() or line.startswith("#"):
            continue
        _, fen, moves = (line.strip().split("|") + ["", ""])[:3]
        out.append(f"fen {fen}" + (f" moves {moves}" if moves.strip() else ""))
    return out[:count]


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def run_config(cformer, threads, args, fens):
    opts = [("Backend", "sim"),
            ("BackendOptions", f"latency_us={args.latency_us},per_position_ns={args.per_position_ns}"),
            ("MinibatchSize", str(args.minibatch)), ("Threads", str(threads)),
            ("SmartPruningFactor", "0")]
    eng = UciEngine(f"cformer Threads {threads}", [cformer], opts)
    rates, cpu_per_visit = [], []
    try:
        eng.start()
        for fen in fens:
            lines, use = eng.go(fen, f"go nodes {args.nodes}", timeout=600)
            last = None
            for line in lines:
                info = parse_info(line)
                if info and "nodes" in info and "time" in info:
                    last = info
            if not last or last["time"] <= 0:
                raise RunError(f"Threads {threads}: no final info line for {fen}")
            rates.append(last["nodes"] / (last["time"] / 1000.0))
            if use is not None:
                cpu_per_visit.append(use * last["time"] / 1000.0 / last["nodes"] * 1e6)
    finally:
        eng.close()
    return rates, cpu_per_visit


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cformer", default=os.path.join(HERE, "..", "build", "tools", "cformer"))
    ap.add_argument("--suite", default=os.path.join(HERE, "..", "data", "bench", "middlegames.txt"))
    ap.add_argument("--positions", type=int, default=8)
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--latency-us", type=int, default=2000)
    ap.add_argument("--per-position-ns", type=int, default=1000)
    ap.add_argument("--minibatch", type=int, default=256)
    ap.add_argument("--threads", default="1,2,3,4",
                    help="Threads to compare (batches in flight on the simulated device)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    fens = suite(args.suite, args.positions)
    if not fens:
        sys.exit(f"bench_sim_search: no positions in {args.suite}")
    ceiling = args.minibatch / (args.latency_us * 1e-6 + args.minibatch * args.per_position_ns * 1e-9)
    print(f"# {cpu_name()}, load average {os.getloadavg()[0]:.2f} at the start")
    print(f"# sim latency {args.latency_us} us, {args.per_position_ns} ns a position, "
          f"MinibatchSize {args.minibatch}: ceiling {ceiling:,.0f} positions/s")
    print(f"# {len(fens)} middlegames, go nodes {args.nodes}, {args.rounds} interleaved rounds")
    results = {t: ([], []) for t in threads}
    try:
        for _ in range(args.rounds):
            for t in threads:
                r, c = run_config(args.cformer, t, args, fens)
                results[t][0].append(statistics.median(r))
                results[t][1].append(statistics.median(c) if c else float("nan"))
    except RunError as e:
        sys.exit(f"bench_sim_search: {e}")
    print(f"{'Threads':>8} {'nodes/s':>10} {'of ceiling':>11} {'CPU us/visit':>13}")
    for t in threads:
        nps = statistics.median(results[t][0])
        cpu = statistics.median(results[t][1])
        print(f"{t:>8} {nps:>10,.0f} {100 * nps / ceiling:>10.1f}% {cpu:>13.2f}")
    print(f"# load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
