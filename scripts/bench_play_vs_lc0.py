#!/usr/bin/env python3
"""In-play speed: cformer's search against Lc0's on the same net, side by side.

Both engines run over UCI with the same network, Threads, MinibatchSize and
SmartPruningFactor 0 (no early stop), and search each position for a fixed
`go movetime`. The rate of a search is the visits per second of its last info
line (`nps`, or `nodes` / `time` where nps is missing); both engines count
it as playouts since the search started, and `ucinewgame` before every search
clears both trees and caches. For every net, round and position the engines
run one after the other, the order reversing from one position and round to
the next; the script prints the median rate of each engine per position over
the rounds, the ratio cformer / Lc0 per position, the median and geometric
mean of those ratios, each engine's CPU use (CPU seconds / wall seconds
during its searches), and the load average before and after. A position where
either engine reports `score mate` in any round is left out of the ratios:
a proven mate turns visits into terminal nodes that cost no evaluation.

The nets are random networks without RPE and with LayerNorm, which Lc0's blas
backend runs (`netconv random --preset cf6m --no-rpe --layernorm`, shapes by
--shapes, as scripts/bench_vs_lc0.py makes them), or files given by --net.
--precisions runs cformer once per precision (BackendOptions precision=P).

Lc0 is not part of cformer: build it yourself from its own source (the
LeelaChessZero/lc0 repository) and pass the binary with --lc0. Its blas
backend asks for one BLAS thread but sets that only on the thread that loads
the net; Lc0 runs with OMP_NUM_THREADS=1 (unless set in the environment) so
its search thread keeps to it when the blas backend uses oneDNN's sgemm.

Exit status: 0 ok, 1 a run failed (its output is shown), 2 bad command line.
"""
import datetime
import json
import math
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_vs_lc0 as common  # noqa: E402  (the shared helpers: nets, load, CPU, errors)
from uci_engine import UciEngine, parse_info  # noqa: E402

UsageError, RunError = common.UsageError, common.RunError

# Start, three openings and four middlegames (the last four are positions of
# Stockfish's `bench` list; the first of them is the well-known "Kiwipete").
POSITIONS = [
    ("start", "startpos"),
    ("1.e4 e5 2.Nf3 Nc6", "startpos moves e2e4 e7e5 g1f3 b8c6"),
    ("Sicilian Najdorf", "startpos moves e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6"),
    ("QGD 4.Bg5", "startpos moves d2d4 d7d5 c2c4 e7e6 b1c3 g8f6 c1g5 f8e7"),
    ("Kiwipete", "fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("middlegame b", "fen 4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19"),
    ("middlegame c", "fen r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15"),
    ("middlegame d", "fen r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13"),
]
def summarize_search(lines):
    """One search's output -> rate (visits/s), nodes, time_ms, nps, mate, bestmove.

    The rate is the last info line's nps, or nodes * 1000 / time without one;
    mate is True when any info line of the search scores a mate."""
    last, mate, best = None, False, None
    for line in lines:
        info = parse_info(line)
        if info is not None:
            mate = mate or info.get("score_kind") == "mate"
            if "nodes" in info:
                last = info
        elif line.startswith("bestmove"):
            parts = line.split()
            best = parts[1] if len(parts) > 1 else None
    if last is None or best is None:
        raise RunError("the search printed no info line with nodes, or no bestmove")
    nps = last.get("nps")
    if nps:
        rate = float(nps)
    elif last.get("time", 0) > 0:
        rate = last["nodes"] * 1000.0 / last["time"]
    else:
        raise RunError(f"the last info line gives neither nps nor time: {last}")
    return dict(rate=rate, nodes=last["nodes"], time_ms=last.get("time"), nps=nps, mate=mate,
                bestmove=best)


def timed_search(engine, position, movetime_ms):
    """One fresh search of movetime_ms -> summarize_search's dict plus cpu_use."""
    lines, cpu_use = engine.go(position, f"go movetime {movetime_ms}", movetime_ms / 1000.0 + 120.0)
    try:
        result = summarize_search(lines)
    except RunError as e:
        raise engine.failure(str(e), lines)
    result["cpu_use"] = cpu_use
    return result


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def aggregate(measurements, baseline, engines):
    """Medians per (net, engine, position) and the ratios against the baseline.

    measurements: dicts with net, engine, position, rate, mate. A position is
    left out of a net's ratios when any measurement of it on that net (any
    engine, any round) saw a mate. Returns (rows, overall): rows has one dict
    per (net, position) with medians {engine: rate}, ratios {engine: ratio or
    None} and mate; overall has one dict per (net, engine) with the median and
    geometric mean of that engine's ratios and the positions they cover."""
    rows, overall = [], []
    nets = list(dict.fromkeys(m["net"] for m in measurements))
    for net in nets:
        mine = [m for m in measurements if m["net"] == net]
        positions = list(dict.fromkeys(m["position"] for m in mine))
        for pos in positions:
            here = [m for m in mine if m["position"] == pos]
            medians = {e: statistics.median([m["rate"] for m in here if m["engine"] == e])
                       for e in engines if any(m["engine"] == e for m in here)}
            mate = any(m["mate"] for m in here)
            base = medians.get(baseline)
            ratios = {e: (None if mate or not base or e not in medians else medians[e] / base)
                      for e in engines if e != baseline}
            rows.append(dict(net=net, position=pos, medians=medians, ratios=ratios, mate=mate))
        for e in engines:
            if e == baseline:
                continue
            rs = [r["ratios"][e] for r in rows if r["net"] == net and r["ratios"].get(e)]
            overall.append(dict(net=net, engine=e, positions=len(rs),
                                median_ratio=statistics.median(rs) if rs else None,
                                geomean_ratio=geomean(rs)))
    return rows, overall


def read_positions(path):
    """A positions file: one `startpos [moves ...]` or FEN [moves ...] a line; # comments."""
    out = []
    try:
        with open(path) as f:
            for n, raw in enumerate(f, 1):
                line = raw.split("#", 1)[0].strip()
                if not line:
                    continue
                spec = line if line.startswith(("startpos", "fen ")) else "fen " + line
                out.append((f"{os.path.basename(path)}:{n}", spec))
    except OSError as e:
        raise UsageError(f"--positions: cannot read '{path}': {e}")
    if not out:
        raise UsageError(f"--positions: '{path}' holds no position")
    return out


def engines_for(args, net, lc0_builds):
    """The engines of one net: the Lc0 builds, then cformer once per precision."""
    shared = [("WeightsFile", net), ("Threads", args.threads),
              ("MinibatchSize", args.minibatch), ("SmartPruningFactor", 0)]
    out = []
    for label, path in lc0_builds:
        opts = [("Backend", args.lc0_backend)] + shared
        if args.lc0_backend_opts:
            opts.append(("BackendOptions", args.lc0_backend_opts))
        out.append(UciEngine(common.uci_lc0_label(label), [path], opts, common.uci_lc0_env()))
    for prec in args.precisions:
        backend_opts = ",".join(o for o in (args.backend_opts, f"precision={prec}") if o)
        opts = [("Backend", args.backend), ("BackendOptions", backend_opts)] + shared
        out.append(UciEngine(f"cformer {prec}", [args.cformer, "uci"], opts))
    return out


def print_report(args, nets, engines, rows, overall, cpu, started, load_before, load_after):
    base = engines[0]
    print(f"cformer vs Lc0 in play, {started:%Y-%m-%d %H:%M} UTC, CPU: {common.cpu_model()}, "
          f"{os.cpu_count()} logical CPUs")
    print(f"load average before: {load_before}; after: {load_after}")
    print(f"Threads {args.threads}, MinibatchSize {args.minibatch}, SmartPruningFactor 0, "
          f"go movetime {args.movetime_ms}; visits/s, medians of {args.rounds} round(s); "
          f"ratio = cformer / {base}; mate = a mate was scored, left out of the ratios")
    others = engines[1:]
    for net in nets:
        print()
        print(f"{net}:")
        print(" | ".join(["position"] + engines + [f"{e} / {base}" for e in others]))
        for r in (r for r in rows if r["net"] == net):
            cells = [r["position"]] + [f"{r['medians'][e]:.0f}" for e in engines]
            cells += ["mate" if r["mate"] else f"{r['ratios'][e]:.2f}x" for e in others]
            print(" | ".join(cells))
        for o in (o for o in overall if o["net"] == net):
            if o["positions"]:
                print(f"{o['engine']} / {base}: median {o['median_ratio']:.2f}x, geometric mean "
                      f"{o['geomean_ratio']:.2f}x over {o['positions']} position(s)")
            else:
                print(f"{o['engine']} / {base}: no position without a mate")
        uses = [f"{e} {statistics.median(cpu[(net, e)]):.2f}" for e in engines if cpu.get((net, e))]
        if uses:
            print("CPU use (CPU s / wall s, median): " + ", ".join(uses))


def main(argv):
    p = common.make_parser("bench_play_vs_lc0.py", __doc__, "8x256,4x64x4x128",
                           "Lc0's BackendOptions")
    p.add_argument("--precisions", default="f32",
                   help="cformer's precisions, one engine each (default f32; e.g. f32,bf16)")
    p.add_argument("--positions", metavar="FILE", help="positions instead of the built-in eight")
    p.add_argument("--threads", type=int, default=1, help="Threads of both engines (default 1)")
    p.add_argument("--minibatch", type=int, default=32, help="MinibatchSize (default 32)")
    p.add_argument("--movetime-ms", type=int, default=5000, help="go movetime (default 5000)")
    args, status = common.parse_args(p, argv)
    if args is None:
        return status
    log = common.progress_logger("bench_play_vs_lc0", args.quiet)
    try:
        builds, shapes, netconv = common.check_common(args)
        args.precisions = [s.strip() for s in args.precisions.split(",") if s.strip()]
        if not args.precisions or len(set(args.precisions)) != len(args.precisions):
            raise UsageError("--precisions: give one or more different precisions, e.g. f32,bf16")
        for flag, value, low, high in [("--threads", args.threads, 1, 256),
                                       ("--minibatch", args.minibatch, 1, 1024),
                                       ("--movetime-ms", args.movetime_ms, 10, 600000)]:
            if not low <= value <= high:
                raise UsageError(f"{flag}: must be from {low} to {high}, got {value}")
        positions = read_positions(args.positions) if args.positions else POSITIONS
    except UsageError as e:
        print(f"bench_play_vs_lc0.py: {e}", file=sys.stderr)
        return 2

    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = common.loadavg()
    measurements, cpu, names = [], {}, []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-play-vs-lc0-") as folder:
            nets = common.shape_nets(args, shapes, netconv, folder, log, builds)
            for name, path in nets:
                engines = engines_for(args, path, builds)
                names = [e.label for e in engines]
                try:
                    for e in engines:
                        log(f"{name}: starting {e.label}")
                        e.start()
                    for rnd in range(args.rounds):
                        for i, (pos_name, spec) in enumerate(positions):
                            order = engines if (rnd + i) % 2 == 0 else engines[::-1]
                            for e in order:
                                log(f"round {rnd + 1}/{args.rounds}, {name}, {pos_name}: {e.label}")
                                r = timed_search(e, spec, args.movetime_ms)
                                measurements.append(dict(round=rnd + 1, net=name, position=pos_name,
                                                         engine=e.label, **r))
                                if r["cpu_use"] is not None:
                                    cpu.setdefault((name, e.label), []).append(r["cpu_use"])
                finally:
                    for e in engines:
                        e.close()
    except RunError as e:
        print(f"bench_play_vs_lc0.py: {e}", file=sys.stderr)
        return 1
    load_after = common.loadavg()
    rows, overall = aggregate(measurements, names[0], names)
    print_report(args, [n for n, _ in nets], names, rows, overall, cpu, started, load_before,
                 load_after)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(started=started.isoformat(), cpu=common.cpu_model(),
                           load_before=load_before, load_after=load_after, threads=args.threads,
                           minibatch=args.minibatch, movetime_ms=args.movetime_ms,
                           rounds=args.rounds, positions=[dict(name=n, position=s)
                                                          for n, s in positions],
                           measurements=measurements, rows=rows, overall=overall), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
