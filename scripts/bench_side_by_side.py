#!/usr/bin/env python3
"""bench_side_by_side.py: configurations of `cformer bench` side by side.

A configuration is a cformer binary with backend options (two builds, or
one build with two options). Each round runs every (net, configuration)
once, configurations interleaved so that a machine's drift hits them
alike; printed per net and batch: each configuration's median evals/s over
the rounds and the median of its per-round ratios to the first. With
--search, the engine's search agent's evaluations/s too. The load average
at the start of every run is summarised. A measurement: run it on a quiet
machine, with nothing else benchmarking. Exit status: 0, 1 when a run
fails (its command and output shown), 2 for a bad command line. Example
(docs/DEVELOPING.md):

  python3 scripts/bench_side_by_side.py --rounds 5 --backend onednn \\
      --config before=OLD_BUILD/tools/cformer:threads=1,precision=bf16 \\
      --config after=build/tools/cformer:threads=1,precision=bf16 \\
      --net cf6m=--arch=cf-6m --net 'builtin=--weights=<built in>' \\
      --batches 1,2,4,8,16,64,256 --search
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def parse_pair(ap, text, what):
    name, eq, value = text.partition("=")
    if not eq or not name or not value:
        ap.error(f"bad {what} '{text}': expected NAME=VALUE")
    return name, value


def run_bench(binary, net_args, backend, opts, batches, search):
    agents = "policy,search" if search else "policy"
    cmd = [binary, "bench", *net_args, "--backend", backend, "--agents", agents,
           "--positions", "1", "--batches", batches, "--no-sgemm", "--json", "--quiet",
           "--backend-opts", opts]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if out.returncode != 0:
        sys.exit(f"bench_side_by_side: {' '.join(cmd)}: exit {out.returncode}\n"
                 + out.stderr[-2000:])
    try:
        d = json.loads(out.stdout)
    except json.JSONDecodeError as e:
        sys.exit(f"bench_side_by_side: {' '.join(cmd)}: not cformer bench's JSON ({e})")
    be = d["backends"][0]
    if be.get("skipped"):
        sys.exit(f"bench_side_by_side: {' '.join(cmd)}: backend skipped")
    got = {str(b["batch"]): b["evals_per_second"] for b in be["batches"]}
    for a in be["agents"]:
        if a["agent"] == "search":
            got["search"] = a["evals_per_second"]
    return got, be["variant"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", action="append", required=True,
                    help="LABEL=BINARY:BACKEND_OPTS (repeat; the first is the baseline)")
    ap.add_argument("--net", action="append", required=True,
                    help="NAME=ARGS, cformer bench's net arguments, comma-separated "
                         "(cf6m=--arch=cf-6m)")
    ap.add_argument("--backend", default="onednn")
    ap.add_argument("--batches", default="1,4,16,64,256")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--search", action="store_true",
                    help="also the search agent's evaluations/s")
    a = ap.parse_args()
    if a.rounds < 1:
        ap.error("--rounds must be at least 1")
    configs = []
    for c in a.config:
        label, rest = parse_pair(ap, c, "--config")
        binary, _, opts = rest.partition(":")
        if not os.path.isfile(binary) or not os.access(binary, os.X_OK):
            ap.error(f"--config {label}: '{binary}' is not an executable")
        if label in (x[0] for x in configs):
            ap.error(f"--config {label}: the label is given twice")
        configs.append((label, binary, opts))
    nets = [(n, v.split(",")) for n, v in (parse_pair(ap, x, "--net") for x in a.net)]

    results = {}  # (net, label) -> key -> [per round]
    variants, loads = {}, []
    for r in range(a.rounds):
        for net, net_args in nets:
            for label, binary, opts in configs:
                loads.append(os.getloadavg()[0])
                got, variant = run_bench(binary, net_args, a.backend, opts, a.batches, a.search)
                variants[label] = variant
                for k, v in got.items():
                    results.setdefault((net, label), {}).setdefault(k, []).append(v)
        print(f"round {r + 1} of {a.rounds} done", file=sys.stderr, flush=True)

    print(f"rounds {a.rounds}; load average at the runs' starts: min {min(loads):.2f}, "
          f"median {statistics.median(loads):.2f}, max {max(loads):.2f}")
    for label, binary, opts in configs:
        print(f"  {label}: {binary} --backend-opts {opts}\n      variant: {variants[label]}")
    base = configs[0][0]
    for net, _ in nets:
        keys = list(results[(net, base)].keys())
        print(f"\n{net}: evals/s, median of {a.rounds} rounds (ratio: median of the per-round "
              f"ratios to {base})")
        print("batch    " + "".join(f"{label:>22}" for label, _, _ in configs))
        for k in keys:
            cells = []
            b = results[(net, base)][k]
            for label, _, _ in configs:
                v = results[(net, label)][k]
                ratio = statistics.median(x / y for x, y in zip(v, b))
                cells.append(f"{statistics.median(v):>13.0f} {ratio:>6.2f}x ")
            print(f"{k:<9}" + "".join(cells))


if __name__ == "__main__":
    main()
