#!/usr/bin/env python3
"""bench_cpu_kernels.py: the CPU kernel sets side by side with `cformer bench`.

Runs `cformer bench --json` once per (round, net, kernel set), forcing the
set with CFORMER_CPU_KERNELS, sets and nets interleaved within each round
so a machine's drift hits them alike; prints per net, set and batch the
median evals/s over the rounds, the median of the per-round ratios of each
set to the first, and, for each --rpe-pair WITH:WITHOUT of nets, the RPE
cost (evals/s without / with - 1, paired per round and set). The load
average at the start of every run is summarised. Example (docs/BACKENDS.md):

  scripts/bench_cpu_kernels.py --cformer build/tools/cformer --rounds 5 \\
      --sets avx2,avx512 --batches 1,32,256 --threads 1 \\
      --net cf6m=--weights=/tmp/cf6m.pb.gz --net cf6m-norpe=--weights=/tmp/cf6m-norpe.pb.gz \\
      --net builtin=--weights=<built in> --rpe-pair cf6m:cf6m-norpe
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def run_bench(cformer, net_args, kernel_set, batches, threads, backend, min_time):
    env = dict(os.environ, CFORMER_CPU_KERNELS=kernel_set)
    cmd = [cformer, "bench", *net_args, "--backend", backend, "--agents", "policy",
           "--positions", "1", "--batches", batches, "--threads", str(threads),
           "--min-time", str(min_time), "--no-sgemm", "--json", "--quiet"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr}")
    report = json.loads(out.stdout)
    be = report["backends"][0]
    # the variant starts with the kernel set; openblas adds OpenBLAS's own
    # kernels after a comma ("avx512, OpenBLAS SkylakeX")
    if (be.get("variant") or "").split(",")[0] != kernel_set:
        sys.exit(f"asked for the {kernel_set} kernels, the report says {be.get('variant')}")
    load = report["machine"]["load_average"]
    return {b["batch"]: b["evals_per_second"] for b in be["batches"]}, load


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cformer", default="build/tools/cformer")
    ap.add_argument("--sets", default="avx2,avx512", help="kernel sets, the first is the baseline")
    ap.add_argument("--net", action="append", required=True,
                    help="NAME=ARGS: a net as cformer bench arguments, comma separated "
                         "(e.g. cf6m=--arch,cf-6m or x=--weights=FILE)")
    ap.add_argument("--rpe-pair", action="append", default=[],
                    help="WITH:WITHOUT: two --net names, the same net with and without RPE")
    ap.add_argument("--batches", default="1,32,256")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--backend", default="onednn")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.5)
    a = ap.parse_args()
    if a.rounds < 1:
        sys.exit("--rounds must be at least 1")
    sets = a.sets.split(",")
    nets = []
    for spec in a.net:
        name, sep, args = spec.partition("=")
        if not sep or not args:
            sys.exit(f"--net {spec}: expected NAME=ARGS")
        nets.append((name, args.split(",")))
    names = [n for n, _ in nets]
    pairs = []
    for p in a.rpe_pair:
        w, sep, wo = p.partition(":")
        if not sep or w not in names or wo not in names:
            sys.exit(f"--rpe-pair {p}: expected WITH:WITHOUT, both --net names")
        pairs.append((w, wo))

    # results[net][set][batch] = [evals/s per round]
    results = {n: {s: {} for s in sets} for n in names}
    loads = []
    for r in range(a.rounds):
        for name, args in nets:
            for s in sets:
                eps, load = run_bench(a.cformer, args, s, a.batches, a.threads, a.backend,
                                      a.min_time)
                loads.append(load)
                for b, v in eps.items():
                    results[name][s].setdefault(b, []).append(v)
                print(f"round {r + 1}/{a.rounds} {name} {s}: " +
                      " ".join(f"b{b} {v:.1f}" for b, v in eps.items()) + f" (load {load:.2f})",
                      file=sys.stderr)

    batches = sorted(results[names[0]][sets[0]])
    print(f"{a.backend}, threads {a.threads}, {a.rounds} rounds, load average at the starts "
          f"{min(loads):.2f}-{max(loads):.2f} (median {statistics.median(loads):.2f})")
    print("median evals/s; in brackets the median per-round ratio to " + sets[0])
    print(f"{'net':<14} {'set':<9}" + "".join(f"{'b' + str(b):>20}" for b in batches))
    for n in names:
        for s in sets:
            row = f"{n:<14} {s:<9}"
            for b in batches:
                v = statistics.median(results[n][s][b])
                ratio = statistics.median(x / y for x, y in
                                          zip(results[n][s][b], results[n][sets[0]][b]))
                row += f"{v:>11.1f} [{ratio:5.3f}]"
            print(row)
    for w, wo in pairs:
        print(f"RPE cost ({wo} / {w} - 1, median of per-round ratios)")
        for s in sets:
            row = f"{s:<24}"
            for b in batches:
                cost = statistics.median(y / x - 1 for x, y in
                                         zip(results[w][s][b], results[wo][s][b]))
                row += f"{100 * cost:>19.1f}%"
            print(row)


if __name__ == "__main__":
    main()
