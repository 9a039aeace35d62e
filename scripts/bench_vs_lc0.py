#!/usr/bin/env python3
"""Side by side: cformer's backends against Lc0's CPU backend on the same nets.

Lc0 runs no RPE network, so the comparison uses random networks without RPE
and with LayerNorm (`netconv random --preset cf6m --no-rpe --layernorm`,
deterministic; Lc0's blas backend crashes on RMSNorm) in the shapes given by --shapes,
or network files given by --net. For every round, net, thread count and
batch size it runs `cformer bench` and `lc0 backendbench` one after the
other (the order alternates between rounds so neither always runs on a
warmer or quieter machine), then prints the median evaluations per second
of each over the rounds, their ratio, the spread of the per-round ratios,
and the load average before and after.

Lc0 is not part of cformer: build it yourself from its own source (the
LeelaChessZero/lc0 repository, following its README; its `blas` backend
links OpenBLAS, or oneDNN's sgemm when configured with dnnl) and pass the
binary with --lc0. Several builds may be compared at once: --lc0 LABEL=PATH,
repeated.

Exit status: 0 ok, 1 a run failed (its output is shown), 2 bad command line.
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import same_net_check  # noqa: E402
from uci_engine import RunError  # noqa: E402  (re-exported: the scripts' run failure)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHAPE_RE = re.compile(r"^(\d+)x(\d+)(?:x(\d+))?(?:x(\d+))?$")
# A first guess of a net's speed, in evaluations/s, to size the first Lc0
# run; every later run is sized by the last measured rate of that net.
FIRST_GUESS = 200.0


class UsageError(Exception):
    pass


def parse_int_list(text, flag, low, high):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise UsageError(f"{flag}: expected comma-separated whole numbers, got '{text}'")
    if not values or any(v < low or v > high for v in values):
        raise UsageError(f"{flag}: each value must be from {low} to {high}, got '{text}'")
    return values


def parse_shape(text):
    """LxD[xH[xF]] as `cformer bench --arch`: H = D/32 (at least 1), F = D."""
    m = SHAPE_RE.match(text)
    if not m:
        raise UsageError(f"--shapes: '{text}' is not LxD[xH[xF]] (e.g. 8x256 or 4x64x2x64)")
    layers, width = int(m.group(1)), int(m.group(2))
    heads = int(m.group(3)) if m.group(3) else max(1, width // 32)
    dff = int(m.group(4)) if m.group(4) else width
    if layers < 1 or width < 1 or heads < 1 or dff < 1 or width % heads:
        raise UsageError(f"--shapes: '{text}': need L, D, H, F >= 1 and H dividing D")
    return layers, width, heads, dff


def parse_lc0(specs):
    builds = []
    for spec in specs:
        label, sep, path = spec.partition("=")
        if not sep:
            label, path = "lc0", spec
        if not label or not path:
            raise UsageError(f"--lc0: '{spec}' is not PATH or LABEL=PATH")
        if shutil.which(path) is None:
            raise UsageError(f"--lc0: '{path}' is not an executable file")
        if any(b[0] == label for b in builds):
            raise UsageError(f"--lc0: the label '{label}' is given twice (use LABEL=PATH)")
        builds.append((label, shutil.which(path)))
    return builds


def find_netconv(given, cformer):
    """--netconv, or the netconv beside the cformer binary (an install or the build tree)."""
    if given is not None:
        return given
    here = os.path.dirname(os.path.abspath(cformer))
    for c in (os.path.join(here, "netconv"), os.path.join(here, "netconv", "netconv")):
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise UsageError("--netconv: no netconv beside --cformer; give its path")


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run(cmd, what):
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise RunError(f"{what}: cannot run {cmd[0]}: {e}")
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise RunError(f"{what} failed (exit {proc.returncode}): {' '.join(cmd)}\n{tail}")
    return proc


def make_net(netconv, shape, folder, log):
    layers, width, heads, dff = shape
    path = os.path.join(folder, f"{layers}x{width}x{heads}x{dff}-norpe.pb.gz")
    # The layout Lc0's blas backend (v0.33-dev) reads right, not CF-6M's:
    # LayerNorm (it crashes on RMSNorm, reading betas such a net lacks);
    # q/k/v biases (it takes the attention width from the q bias's length,
    # so without them it runs every head at depth 0); and the old embedding
    # with its 64-wide positional table (it reads 176 inputs a square, past
    # the end of a 112-input embedding).
    cmd = [netconv, "random", "--preset", "cf6m", "--no-rpe", "--layernorm", "--qkv-bias",
           "--pos-table", "--layers", str(layers),
           "--embedding", str(width), "--heads", str(heads), "--dff", str(dff),
           "--seed", "1", "-o", path]
    log(f"net: {' '.join(cmd)}")
    run(cmd, "netconv random")
    return path


def cformer_rates(args, net, threads, batches):
    """Evaluations/s per batch size from `cformer bench --json`."""
    cmd = [args.cformer, "bench", "--weights", net, "--backend", args.backend,
           "--threads", str(threads), "--batches", ",".join(map(str, batches)),
           "--agents", "policy", "--positions", "1", "--no-sgemm", "--quiet", "--json",
           "--min-time", str(args.seconds)]
    if args.backend_opts:
        cmd += ["--backend-opts", args.backend_opts]
    proc = run(cmd, "cformer bench")
    try:
        report = json.loads(proc.stdout)
        runs = [b for b in report["backends"] if b["name"] == args.backend and not b["skipped"]]
        rows = runs[0]["batches"]
        rates = {row["batch"]: float(row["evals_per_second"]) for row in rows}
    except (ValueError, KeyError, IndexError, TypeError) as e:
        raise RunError(f"cformer bench: unexpected JSON ({e}): {proc.stdout[:300]}")
    missing = [b for b in batches if b not in rates]
    if missing:
        raise RunError(f"cformer bench measured no batch size {missing} (it caps batches at the "
                       f"net's limit)")
    return rates, " ".join(cmd)


def lc0_rate(args, lc0, net, threads, workers, batch, guess):
    """Lc0's median evaluations/s at one batch size (`backendbench`'s median column).

    threads > 1 runs one of two ways: the backend's own threads inside each
    batch (backend option threads=N), or with workers N batches at once,
    each on a one-thread backend (backendbench --threads=N): Lc0's search
    keeps several batches in flight, so that is its best throughput."""
    calls = max(5, min(100000, math.ceil(args.seconds * guess / batch * (threads if workers else 1))))
    opts = f"threads={1 if workers else threads}"
    if args.lc0_backend_opts:
        opts += "," + args.lc0_backend_opts
    cmd = [lc0, "backendbench", f"--weights={net}", f"--backend={args.lc0_backend}",
           f"--backend-opts={opts}", f"--batches={calls}", f"--start-batch-size={batch}",
           f"--max-batch-size={batch}", "--batch-step=1"]
    if workers:
        cmd.append(f"--threads={threads}")
    proc = run(cmd, "lc0 backendbench")
    header = None
    for line in proc.stdout.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if cells and cells[0] == "size":
            header = cells
        elif header and len(cells) == len(header) and cells[0] == str(batch):
            try:
                return float(cells[header.index("median")]), " ".join(cmd)
            except (ValueError, IndexError):
                break
    tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-10:])
    raise RunError(f"lc0 backendbench printed no row for batch {batch}: {' '.join(cmd)}\n{tail}")


def make_parser(prog, doc, shapes, lc0_opts_help):
    """The command line both scripts share: the engines, their backends and the nets."""
    p = argparse.ArgumentParser(
        prog=prog, description=doc.split("\n\n")[0], epilog=doc.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lc0", action="append", default=[], metavar="[LABEL=]PATH",
                   help="an Lc0 binary (required; repeat to compare several builds)")
    p.add_argument("--lc0-backend", default="blas", help="Lc0's backend (default blas)")
    p.add_argument("--lc0-backend-opts", default="", help=lc0_opts_help)
    p.add_argument("--cformer", default=os.path.join(ROOT, "build", "tools", "cformer"),
                   help="the cformer binary (default: build/tools/cformer)")
    p.add_argument("--netconv", default=None,
                   help="the netconv binary, for --shapes (default: beside --cformer, "
                        "or build/tools/netconv/netconv)")
    p.add_argument("--backend", default="onednn", help="cformer's backend (default onednn)")
    p.add_argument("--backend-opts", default="", help="cformer's backend options, key=value,...")
    p.add_argument("--shapes", default=shapes,
                   help=f"random nets without RPE, LxD[xH[xF]] comma separated (default {shapes})")
    p.add_argument("--net", action="append", default=[], metavar="FILE",
                   help="a network file instead of --shapes (repeatable; it must not use RPE)")
    p.add_argument("--rounds", type=int, default=3, help="rounds, medians taken (default 3)")
    p.add_argument("--json", metavar="FILE", help="also write every measurement as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return p


def parse_args(p, argv):
    """(args, None), or (None, exit status) when argparse printed help or an error."""
    try:
        return p.parse_args(argv), None
    except SystemExit as e:
        return None, 0 if e.code == 0 else 2


def progress_logger(prog, quiet):
    def log(msg):
        if not quiet:
            print(f"{prog}: {msg}", file=sys.stderr, flush=True)
    return log


def check_common(args):
    """The shared flags checked -> (Lc0 builds, shapes, netconv); UsageError if wrong."""
    if not args.lc0:
        raise UsageError("--lc0 PATH is required (build Lc0 from its source; see --help)")
    builds = parse_lc0(args.lc0)
    if args.rounds < 1 or args.rounds > 100:
        raise UsageError(f"--rounds: must be from 1 to 100, got {args.rounds}")
    if shutil.which(args.cformer) is None:
        raise UsageError(f"--cformer: '{args.cformer}' is not an executable file (build first)")
    for net in args.net:
        if not os.path.isfile(net):
            raise UsageError(f"--net: no such file '{net}'")
    shapes = [] if args.net else [parse_shape(s.strip()) for s in args.shapes.split(",") if s.strip()]
    if not args.net and not shapes:
        raise UsageError("--shapes: no shape given")
    netconv = find_netconv(args.netconv, args.cformer) if shapes else None
    return builds, shapes, netconv


def uci_lc0_label(label):
    """An Lc0 build's name over UCI: "lc0", or "lc0 LABEL" for a labelled build."""
    return "lc0" if label == "lc0" else "lc0 " + label


def uci_lc0_env():
    """Lc0's environment over UCI: its blas backend sets one BLAS thread only
    on the thread that loads the net, so OMP_NUM_THREADS=1 unless set."""
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def shape_nets(args, shapes, netconv, folder, log, builds):
    """(name, path) of every net: the --net files, then a random net per shape;
    each checked to give the same outputs in cformer and in every Lc0 build
    (same_net_check), so that the speeds compared are of one network."""
    nets = [(os.path.basename(n), n) for n in args.net]
    for shape in shapes:
        path = make_net(netconv, shape, folder, log)
        nets.append(("x".join(map(str, shape)) + " (L x D x H x F, no RPE, LayerNorm)", path))
    for name, path in nets:
        for label, lc0 in builds:
            same_net_check.check(name, path, args.cformer, args.backend, args.backend_opts,
                                 uci_lc0_label(label), lc0, args.lc0_backend,
                                 args.lc0_backend_opts, uci_lc0_env(), log)
    return nets


def main(argv):
    p = make_parser("bench_vs_lc0.py", __doc__, "8x256,4x64",
                    "extra Lc0 backend options, key=value,... (threads= is set by --threads)")
    p.add_argument("--batches", default="1,32,256", help="batch sizes (default 1,32,256)")
    p.add_argument("--threads", default="1", help="thread counts (default 1)")
    p.add_argument("--seconds", type=float, default=2.0,
                   help="seconds per measurement and engine (default 2)")
    args, status = parse_args(p, argv)
    if args is None:
        return status
    log = progress_logger("bench_vs_lc0", args.quiet)
    try:
        builds, shapes, netconv = check_common(args)
        batches = parse_int_list(args.batches, "--batches", 1, 1024)
        threads_list = parse_int_list(args.threads, "--threads", 1, 256)
        if not (0 < args.seconds <= 600):
            raise UsageError(f"--seconds: must be above 0 and at most 600, got {args.seconds}")
    except UsageError as e:
        print(f"bench_vs_lc0.py: {e}", file=sys.stderr)
        return 2

    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = loadavg()
    results = []  # one dict per (round, net, threads, engine, batch)
    commands = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-vs-lc0-") as folder:
            nets = shape_nets(args, shapes, netconv, folder, log, builds)
            last_rate = {}
            engines = [("cformer " + args.backend, None, False)]
            for label, path in builds:
                engines += [("lc0 " + label, path, False), ("lc0 " + label + " workers", path, True)]
            for rnd in range(args.rounds):
                order = engines if rnd % 2 == 0 else list(reversed(engines))
                for name, path in nets:
                    for threads in threads_list:
                        for engine, lc0, workers in order:
                            if workers and threads == 1:
                                continue  # the same as the plain run
                            if lc0 is None:
                                log(f"round {rnd + 1}/{args.rounds}: {engine} on {name}, {threads} thread(s)")
                                rates, cmd = cformer_rates(args, path, threads, batches)
                                commands.append(cmd)
                                for b in batches:
                                    results.append(dict(round=rnd + 1, net=name, threads=threads,
                                                        engine=engine, batch=b, evals_per_second=rates[b]))
                                    last_rate[(name, b)] = rates[b]
                                continue
                            for b in batches:
                                log(f"round {rnd + 1}/{args.rounds}: {engine} on {name}, {threads} "
                                    f"thread(s), batch {b}")
                                guess = last_rate.get((name, b), FIRST_GUESS)
                                rate, cmd = lc0_rate(args, lc0, path, threads, workers, b, guess)
                                commands.append(cmd)
                                results.append(dict(round=rnd + 1, net=name, threads=threads,
                                                    engine=engine, batch=b, evals_per_second=rate))
                                last_rate[(name, b)] = rate
    except RunError as e:
        print(f"bench_vs_lc0.py: {e}", file=sys.stderr)
        return 1
    load_after = loadavg()

    def rates_of(net, threads, engine, batch):
        return [r["evals_per_second"] for r in results
                if (r["net"], r["threads"], r["engine"], r["batch"]) == (net, threads, engine, batch)]

    print(f"cformer vs Lc0, {started:%Y-%m-%d %H:%M} UTC, CPU: {cpu_model()}, "
          f"{os.cpu_count()} logical CPUs")
    print(f"load average before: {load_before}; after: {load_after}")
    print(f"medians of {args.rounds} interleaved round(s), {args.seconds:g} s per measurement; "
          f"ratio = cformer / Lc0 (per-round ratios' range in brackets); Lc0 'workers' = "
          f"N batches at once on one-thread backends, else N backend threads in each batch")
    summary = []
    cf = engines[0][0]
    for name, _ in nets:
        for threads in threads_list:
            print()
            print(f"{name}, {threads} thread(s): evaluations/s")
            theirs_engines = [e for e, _, workers in engines[1:] if threads > 1 or not workers]
            head = ["batch", cf] + theirs_engines + [f"ratio vs {e[4:]}" for e in theirs_engines]
            print(" | ".join(head))
            for b in batches:
                mine = rates_of(name, threads, cf, b)
                row = [str(b), f"{statistics.median(mine):.1f}"]
                ratios = []
                for engine in theirs_engines:
                    theirs = rates_of(name, threads, engine, b)
                    row.append(f"{statistics.median(theirs):.1f}")
                    per_round = [m / t for m, t in zip(mine, theirs) if t > 0]
                    ratio = statistics.median(mine) / statistics.median(theirs)
                    ratios.append(f"{ratio:.2f}x [{min(per_round):.2f}-{max(per_round):.2f}]")
                    summary.append(dict(net=name, threads=threads, batch=b, lc0=engine,
                                        cformer_evals_per_second=statistics.median(mine),
                                        lc0_evals_per_second=statistics.median(theirs), ratio=ratio))
                print(" | ".join(row + ratios))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(started=started.isoformat(), cpu=cpu_model(), load_before=load_before,
                           load_after=load_after, rounds=args.rounds, seconds=args.seconds,
                           measurements=results, summary=summary, commands=commands), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
