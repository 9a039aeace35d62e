#!/usr/bin/python3
"""Measures `cformer analyse` (docs/ANALYSE.md): positions/s net-only and
with a 100-node search, in one process and on 1 and 2 local Dask workers
(the Dask path's overhead is workers=1 against the plain command), next to
`cformer bench`'s evaluations/s at the same batch; and peak RSS over files
of 10,000 and 1,000,000 positions.

    flock /tmp/cformer-bench.lock python3 scripts/bench_analyse.py \
        --cformer build/tools/cformer [--reps 3] [--skip-rss]

Input files are generated in a temporary folder: PGN games built from a few
fixed games (distinct Event tags), so every run reads the same positions.
Every configuration runs --reps times, interleaved, and the median is
reported with the load average before and after. Every process uses one
compute thread (backend threads=1), so one worker has one core and two
workers two.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

# A few fixed games: the Opera Game (Morphy, 1858), a Ruy Lopez and a
# Queen's Gambit Accepted line.
GAMES = [
    "1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 "
    "8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 "
    "14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0",
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O "
    "9. h3 Nb8 10. d4 Nbd7 11. Nbd2 Bb7 12. Bc2 Re8 13. Nf1 Bf8 14. Ng3 g6 1/2-1/2",
    "1. d4 d5 2. c4 dxc4 3. Nf3 Nf6 4. e3 e6 5. Bxc4 c5 6. O-O a6 7. dxc5 Qxd1 "
    "8. Rxd1 Bxc5 9. Kf1 b5 10. Be2 Bb7 11. Nbd2 Nbd7 12. Nb3 Be7 13. a4 b4 *",
]
PLIES = [33, 28, 26]  # plies per game; positions: plies + 1


def make_pgn(path, positions):
    """Games until `positions` positions are reached; returns the count."""
    n, i = 0, 0
    with open(path, "w") as f:
        while n < positions:
            g = i % len(GAMES)
            f.write('[Event "bench %d"]\n\n%s\n\n' % (i, GAMES[g]))
            n += PLIES[g] + 1
            i += 1
    return n


def load():
    return os.getloadavg()[0]


def run_timed(cmd, env=None):
    """Wall seconds, peak RSS (KiB) and the command's own final rate (its
    last progress line: positions/s from when its network was loaded, or
    for Dask from when the cluster was up) of one command."""
    # stderr to a file, not a pipe: a long run's progress lines would fill
    # a pipe nobody reads until the end, and the command would block
    with tempfile.TemporaryFile() as log:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        log.seek(0)
        err = log.read().decode("utf-8", "replace")
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), err))
    rates = re.findall(r"([0-9.]+) positions/s", err)
    return wall, usage.ru_maxrss, float(rates[-1]) if rates else float("nan")


def bench_evals(cformer, batch):
    out = subprocess.run([cformer, "bench", "--weights", "<built in>", "--batches", str(batch),
                          "--agents", "policy", "--no-sgemm", "--quiet", "--json",
                          "--backend-opts", "threads=1", "--min-time", "3"],
                         capture_output=True, check=True, text=True).stdout
    report = json.loads(out)
    for row in report["backends"][0]["batches"]:
        if row["batch"] == batch:
            return row["evals_per_second"]
    raise SystemExit("no batch %d in the bench report" % batch)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cformer", default="build/tools/cformer")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--net-positions", type=int, default=6000)
    ap.add_argument("--search-positions", type=int, default=600)
    ap.add_argument("--rss-sizes", default="10000,1000000")
    ap.add_argument("--skip-rss", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    a = ap.parse_args()
    cformer = os.path.abspath(a.cformer)
    env = dict(os.environ)
    # the Dask path imports the cformer package: from the source tree, with
    # the build's library beside the binary, unless the caller says otherwise
    env.setdefault("PYTHONPATH", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                              "..", "python"))
    lib = os.path.join(os.path.dirname(cformer), "..", "lib", "libcformer.so")
    if os.path.exists(lib):
        env.setdefault("CFORMER_LIBRARY", os.path.abspath(lib))
    tmp = tempfile.mkdtemp(prefix="bench-analyse-")
    common = ["--backend-opts", "threads=1", "--batch", str(a.batch)]
    print("cformer analyse benchmark, %s, %s" % (time.strftime("%Y-%m-%d"), cpu_name()))
    print("load average at start %.2f" % load())

    if not a.skip_speed:
        net_pgn = os.path.join(tmp, "net.pgn")
        n_net = make_pgn(net_pgn, a.net_positions)
        search_pgn = os.path.join(tmp, "search.pgn")
        n_search = make_pgn(search_pgn, a.search_positions)
        configs = [
            ("net-only, plain", n_net, [net_pgn]),
            ("net-only, 1 worker", n_net, [net_pgn, "--workers=1"]),
            # shards of whole games: enough of them that the last one to
            # finish leaves the other worker idle only briefly
            ("net-only, 2 workers", n_net, [net_pgn, "--workers=2", "--shard-size=50"]),
            ("100 nodes, plain", n_search, [search_pgn, "--nodes=100"]),
            ("100 nodes, 1 worker", n_search, [search_pgn, "--nodes=100", "--workers=1"]),
            ("100 nodes, 2 workers", n_search,
             [search_pgn, "--nodes=100", "--workers=2", "--shard-size=1"]),
        ]
        rates = {name: [] for name, _, _ in configs}
        inner = {name: [] for name, _, _ in configs}
        bench = []
        for rep in range(a.reps):
            bench.append(bench_evals(cformer, a.batch))
            for name, n, args in configs:
                out = os.path.join(tmp, "out.jsonl")
                wall, _, own = run_timed([cformer, "analyse", *args, *common, "-O", out], env)
                rates[name].append(n / wall)
                inner[name].append(own)
            print("  rep %d done, load %.2f" % (rep + 1, load()), flush=True)
        b = statistics.median(bench)
        print("\n`cformer bench` evals/s at batch %d: %.1f (runs: %s)"
              % (a.batch, b, ", ".join("%.1f" % x for x in bench)))
        print("positions/s: 'wall' counts the whole command (process, network and, for Dask,")
        print("cluster start); 'running' is the command's own final rate (from the network")
        print("loaded, or the cluster up)")
        print("%-22s %9s %9s   %s" % ("configuration", "wall", "running", "runs (wall)"))
        med, med_in = {}, {}
        for name, n, _ in configs:
            med[name] = statistics.median(rates[name])
            med_in[name] = statistics.median(inner[name])
            print("%-22s %9.1f %9.1f   %s" % (name, med[name], med_in[name],
                                               ", ".join("%.1f" % x for x in rates[name])))
        # ratios within each rep (the runs of one rep are minutes apart at
        # most, so they share the machine's load), then their median
        def paired(x, y, m):
            return statistics.median(p / q for p, q in zip(m[x], m[y]))
        print("\nratios, median over reps of the ratio within each rep:")
        print("  net-only plain (running) / bench: %.3f" % statistics.median(
            p / q for p, q in zip(inner["net-only, plain"], bench)))
        for mode in ("net-only", "100 nodes"):
            for label, m in (("wall", rates), ("running", inner)):
                over = paired("%s, plain" % mode, "%s, 1 worker" % mode, m)
                speedup = paired("%s, 2 workers" % mode, "%s, 1 worker" % mode, m)
                print("  %-9s %-7s Dask overhead at 1 worker: %+.1f%%   2 workers / 1 worker: %.2fx"
                      % (mode, label, 100 * (over - 1), speedup))

    if not a.skip_rss:
        print("\npeak RSS, net-only, one process:")
        for size in (int(s) for s in a.rss_sizes.split(",")):
            pgn = os.path.join(tmp, "rss-%d.pgn" % size)
            n = make_pgn(pgn, size)
            out = os.path.join(tmp, "rss.jsonl")
            wall, rss, _ = run_timed([cformer, "analyse", pgn, *common, "-O", out])
            print("  %9d positions (%.1f MB of PGN): %7.1f MiB peak RSS, %.0f s, %.1f positions/s"
                  % (n, os.path.getsize(pgn) / 1e6, rss / 1024, wall, n / wall), flush=True)
            os.unlink(pgn)
    print("load average at end %.2f" % load())
    subprocess.run(["rm", "-rf", tmp])


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"model name\s*:\s*(.*)", f.read())
        return "%s, %d CPUs" % (m.group(1).strip() if m else "unknown CPU", os.cpu_count())
    except OSError:
        return "unknown CPU"


if __name__ == "__main__":
    sys.exit(main())
