#!/usr/bin/python3
"""Measures `cformer analyse` with the search on the simulated accelerator
(backend `sim`, docs/SEARCH_PIPELINE.md): positions/s at a node limit with
the searches of a batch of positions sharing network calls (`--batch B`)
against one position at a time (`--batch 1`), as a share of what the
device allows.

    flock /tmp/cformer-bench.lock python3 scripts/bench_analyse_sim.py \\
        --cformer build/tools/cformer [--nodes 100] [--batches 1,16,64,256]

The device answers a pass of n positions in latency + n x per-position
time, one pass at a time, so it evaluates at most
    ceiling = max_batch / (latency + max_batch x per-position)
positions a second (max_batch: the network's pass, 256 for analyse with
the search). A position needs the evaluations its record counts (its
search's and the net-only one of the record), so the analysis can reach at
most ceiling / (evaluations per position) positions a second; the share of
that is the figure. Every configuration runs --reps times, interleaved;
medians, with the load average before and after.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# The network's pass in analyse with the search (tools/analyse/analyse_args.c).
MAX_BATCH = 256


def load_games(path, count):
    games = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            ident, fen, moves = line.rstrip("\n").split("|")
            games.append((ident, fen, moves.split()))
            if len(games) == count:
                break
    return games


def write_epd(games, path, repeat):
    """The suite's FENs, one a line, repeated (analyse reads FEN lines)."""
    with open(path, "w") as f:
        for r in range(repeat):
            for ident, fen, _ in games:
                f.write(fen + "\n")


def run(cformer, inp, nodes, batch, latency_us, per_ns):
    t0 = time.monotonic()
    p = subprocess.run([cformer, "analyse", inp, "--quiet", "--backend", "sim", "--backend-opts",
                        "latency_us=%d,per_position_ns=%d" % (latency_us, per_ns),
                        "--nodes=%d" % nodes, "--batch=%d" % batch],
                       capture_output=True, text=True)
    seconds = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("cformer analyse failed (batch %d):\n%s" % (batch, p.stderr))
    recs = [json.loads(line) for line in p.stdout.splitlines() if line]
    evals = sum(r.get("evals", 0) for r in recs) + len(recs)  # + the net-only one each
    return len(recs) / seconds, evals / len(recs), p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cformer", default="build/tools/cformer")
    ap.add_argument("--suite", default="data/bench/middlegames.txt")
    ap.add_argument("--positions", type=int, default=256)
    ap.add_argument("--nodes", type=int, default=100)
    ap.add_argument("--batches", default="1,16,64,256")
    ap.add_argument("--latency-us", type=int, default=2000)
    ap.add_argument("--per-position-ns", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    games = load_games(a.suite, 1000)
    if not games:
        sys.exit("no positions in " + a.suite)
    batches = [int(b) for b in a.batches.split(",")]
    tmp = tempfile.mkdtemp(prefix="cf-bench-analyse-sim-")
    inp = os.path.join(tmp, "positions.epd")
    write_epd(games, inp, (a.positions + len(games) - 1) // len(games))
    ceiling = MAX_BATCH / (a.latency_us * 1e-6 + MAX_BATCH * a.per_position_ns * 1e-9)
    load0 = os.getloadavg()
    rates = {b: [] for b in batches}
    evals = {}
    outputs = {}
    for _ in range(a.reps):
        for b in batches:
            rate, per_pos, out = run(a.cformer, inp, a.nodes, b, a.latency_us, a.per_position_ns)
            rates[b].append(rate)
            evals[b] = per_pos
            outputs[b] = out
    load1 = os.getloadavg()
    same = all(outputs[b] == outputs[batches[0]] for b in batches)
    print("cformer analyse, backend sim latency %d us + %d ns a position, --nodes %d, %d positions"
          % (a.latency_us, a.per_position_ns, a.nodes, len(outputs[batches[0]].splitlines())))
    print("device ceiling %.0f evaluations/s (passes of %d)" % (ceiling, MAX_BATCH))
    print("load average before %.2f, after %.2f" % (load0[0], load1[0]))
    print("| --batch | positions/s (median of %d) | evaluations a position | ceiling positions/s | share |"
          % a.reps)
    print("|---|---|---|---|---|")
    for b in batches:
        med = statistics.median(rates[b])
        top = ceiling / evals[b]
        print("| %d | %.1f | %.1f | %.0f | %.1f%% |" % (b, med, evals[b], top, 100 * med / top))
    print("records identical across batches: %s" % ("yes" if same else "NO"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
