#!/usr/bin/env python3
"""bf16 activations (docs/PRECISION.md "bf16 activations"): onednn at
precision=bf16 with bf16_activations=1 (the default) against 0 (the
float32 round trips), side by side. Each round runs every measure with 0
then 1; the medians over the rounds and their ratio are printed, with the
load average before and after. A measurement: run it on a quiet machine,
holding the benchmark lock, with nothing else benchmarking.

Measures (`cformer bench`, one thread):
  cf6m     CF-6M's shape, evaluations/s at each of --batches
  builtin  the built-in network, evaluations/s at each of --builtin-batches
  search   the engine's search agent (precision=auto), evaluations/s, on
           the built-in network and on CF-6M

  scripts/bench_bf16_activations.py build/tools/cformer [--rounds 5]
      [--batches 1,4,16,64,256] [--builtin-batches 1,8,16,64] [--no-search]
"""
import argparse
import os
import statistics
import subprocess
import sys


def bench(cformer, args):
    out = subprocess.run([cformer, "bench", "--no-sgemm", "--quiet"] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=1800)
    if out.returncode != 0:
        sys.exit(f"bench_bf16_activations: {' '.join(args)}: exit {out.returncode}\n"
                 + out.stdout[-2000:])
    return out.stdout


def per_batch(text):
    """{batch: evals/s} from the 'throughput per batch' table."""
    got = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 5 and f[0] == "onednn" and f[1].isdigit():
            got[int(f[1])] = float(f[4])
    return got


def search_rate(text):
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 2 and f[0] == "onednn" and f[1] == "search":
            return float(f[-1])
    sys.exit("bench_bf16_activations: no search line in:\n" + text[-2000:])


def one_round(cformer, a, acts):
    opts = f"bf16_activations={acts}"
    fixed = f"threads=1,precision=bf16,{opts}"
    rows = {}
    for name, net, batches in (("cf6m", ["--arch", "cf-6m"], a.batches),
                               ("builtin", ["--weights", "<built in>"], a.builtin_batches)):
        text = bench(cformer, net + ["--backend", "onednn", "--agents", "policy",
                                     "--positions", "1", "--batches", batches,
                                     "--backend-opts", fixed])
        for b, v in per_batch(text).items():
            rows[f"{name} batch {b}"] = v
    if a.search:
        for name, net, n in (("builtin", ["--weights", "<built in>"], "10"),
                             ("cf6m", ["--arch", "cf-6m"], "4")):
            text = bench(cformer, net + ["--agents", "search", "--positions", n, "--batches",
                                         "16", "--backend-opts", f"precision=auto,{opts}"])
            rows[f"search {name}"] = search_rate(text)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("cformer")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--batches", default="1,4,16,64,256")
    p.add_argument("--builtin-batches", default="1,8,16,64")
    p.add_argument("--no-search", dest="search", action="store_false")
    a = p.parse_args()
    if a.rounds < 1:
        p.error("--rounds must be at least 1")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    runs = {0: [], 1: []}
    for r in range(a.rounds):
        for acts in (0, 1):
            runs[acts].append(one_round(a.cformer, a, acts))
        print(f"round {r + 1} of {a.rounds} done", file=sys.stderr)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'measure':<20} {'acts=0 (median)':>16} {'acts=1 (median)':>16} {'ratio':>7}")
    for key in runs[0][0]:
        off = statistics.median(r[key] for r in runs[0])
        on = statistics.median(r[key] for r in runs[1])
        print(f"{key:<20} {off:>16.0f} {on:>16.0f} {on / off:>6.2f}x")


if __name__ == "__main__":
    main()
