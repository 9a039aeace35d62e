#!/usr/bin/env python3
"""What Syzygy probing costs the search where the tables never answer:
`cformer bench`'s search agent over its suite of real-game positions (every
one with more pieces than the tables), with and without --syzygy-paths,
interleaved, reporting the median visits/s of each and their ratio.

    scripts/syzygy_probe_cost.py --tables data/syzygy

Time it on a machine otherwise idle; the load average is
printed with the figures.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def visits_per_second(args, tables):
    cmd = [args.cformer, "bench", "-w", args.weights, "--agents", "search", "--batches",
           str(args.minibatch), "--minibatch", str(args.minibatch), "--no-sgemm", "--quiet",
           "--search-nodes", str(args.nodes), "--positions", str(args.positions), "--json"]
    if tables:
        cmd += ["--syzygy-paths", tables]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    report = json.loads(out)
    runs = [a["search"] for b in report.get("backends", []) for a in b.get("agents", [])
            if a.get("search")]
    if not runs:
        sys.exit("syzygy_probe_cost: no search figures in the bench report")
    return runs[0]["visits_per_second"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", required=True)
    ap.add_argument("--cformer", default="build/tools/cformer")
    ap.add_argument("--weights", default="<built in>")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--positions", type=int, default=64)
    ap.add_argument("--nodes", type=int, default=200)
    ap.add_argument("--minibatch", type=int, default=32)
    args = ap.parse_args()
    load = os.getloadavg()
    without, with_tables = [], []
    for r in range(args.rounds):
        for tables, out in ((None, without), (args.tables, with_tables)):
            out.append(visits_per_second(args, tables))
            print("round %d %-14s %.0f visits/s" % (r + 1, "with tables" if tables else "without",
                                                    out[-1]), flush=True)
    a, b = statistics.median(without), statistics.median(with_tables)
    print("median visits/s: without %.0f, with --syzygy-paths %.0f: %+.1f%%; "
          "load average %.2f %.2f %.2f at the start, %.2f at the end"
          % (a, b, 100.0 * (b - a) / a, *load, os.getloadavg()[0]))


if __name__ == "__main__":
    main()
