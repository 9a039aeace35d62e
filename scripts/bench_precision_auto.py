#!/usr/bin/env python3
"""Measures precision=auto against precision=f32 per network and batch size
(docs/PRECISION.md "precision=auto"): `cformer bench`'s evaluations/s on
onednn, one thread, the two settings interleaved, medians over the rounds.

    python3 scripts/bench_precision_auto.py --cformer build/tools/cformer --rounds 3

Prints one line per (net, batch): f32 and auto evaluations/s and auto / f32,
with the load average before and after. Hold the machine's benchmark lock
when the machine is shared. --append FILE keeps every round's rates in FILE
(JSON) and reports over all rounds kept there, so the rounds can be taken in
several quiet windows."""

import argparse
import json
import os
import statistics
import subprocess
import sys

NETS = ["<built in>", "cf-6m", "8x256", "2x32"]


def bench(cformer, net, precision, batches, min_time):
    where = ["--weights", net] if net.startswith("<") or net.endswith(".pb.gz") else ["--arch", net]
    cmd = [cformer, "bench", *where, "--backend", "onednn",
           "--backend-opts", "threads=1,precision=" + precision, "--batches", batches,
           "--agents", "policy", "--positions", "2", "--min-time", str(min_time),
           "--no-sgemm", "--quiet"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rates = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 5 and f[0] == "onednn" and f[1].isdigit():
            rates[int(f[1])] = float(f[4])
    return rates


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cformer", default="build/tools/cformer")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batches", default="1,2,4,8,16,32,64,256")
    ap.add_argument("--min-time", type=float, default=0.4)
    ap.add_argument("--nets", default=",".join(NETS))
    ap.add_argument("--append", metavar="FILE", help="keep the rounds in FILE and report over all of them")
    a = ap.parse_args()
    print("load average before: %.2f %.2f %.2f" % os.getloadavg())
    nets = a.nets.split(",")
    got = {(n, p): [] for n in nets for p in ("f32", "auto")}
    for r in range(a.rounds):
        for net in nets:
            order = ("f32", "auto") if r % 2 == 0 else ("auto", "f32")
            for p in order:
                got[(net, p)].append(bench(a.cformer, net, p, a.batches, a.min_time))
        sys.stderr.write("round %d/%d done\n" % (r + 1, a.rounds))
    if a.append:
        kept = {}
        if os.path.exists(a.append):
            with open(a.append) as f:
                kept = json.load(f)
        for (net, p), rounds in got.items():
            kept.setdefault(net + "|" + p, []).extend({str(b): v for b, v in x.items()} for x in rounds)
        with open(a.append, "w") as f:
            json.dump(kept, f)
        got = {tuple(k.split("|")): [{int(b): v for b, v in x.items()} for x in rounds]
               for k, rounds in kept.items() if k.split("|")[0] in nets}
        print("rounds kept in %s: %d" % (a.append, len(got[(nets[0], "f32")])))
    print("%-12s %6s %10s %10s %8s %8s" % ("net", "batch", "f32", "auto", "auto/f32", "min"))
    worst = None
    for net in nets:
        for b in sorted(got[(net, "f32")][0]):
            f = statistics.median(x[b] for x in got[(net, "f32")])
            au = statistics.median(x[b] for x in got[(net, "auto")])
            ratios = [y[b] / x[b] for x, y in zip(got[(net, "f32")], got[(net, "auto")])]
            ratio = statistics.median(ratios)
            worst = ratio if worst is None else min(worst, ratio)
            print("%-12s %6d %10.0f %10.0f %7.2fx %7.2fx" % (net, b, f, au, ratio, min(ratios)))
    print("smallest auto/f32 (median over rounds): %.2fx" % worst)
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
