#!/usr/bin/env python3
"""Side by side: cformer against onnxruntime (CPU) on the same network.

Each net is exported with `netconv export --onnx` (float32 unless
--precision says otherwise) and run by onnxruntime-node (ort_run.js in
tools/netconv/onnx_export, installed by scripts/install-deps.sh); cformer
runs the original file with `cformer bench`. Both evaluate the same
positions: the bench suite (data/bench/positions.txt), batch slot s holding
suite position s % count, the input planes for onnxruntime built by
`cformer eval`. For every round, net and thread count, the two run one after
the other (the order alternates between rounds), each timing calls one by
one and reporting batch / median call time; the script prints the median
over the rounds of each, their ratio (cformer / onnxruntime), the range of
the per-round ratios, and the load average before and after.

What is timed differs slightly, in onnxruntime's favour: cformer's call
includes building the input planes from the position and gathering the
legal moves' logits; onnxruntime's call starts from ready planes.

Hold the machine's bench lock while it runs:
    flock /tmp/cformer-bench.lock python3 scripts/bench_vs_ort.py

Exit status: 0 ok, 1 a run failed (its output is shown), 2 bad command line.
"""
import argparse
import datetime
import json
import os
import shutil
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_vs_lc0 import RunError, cpu_model, loadavg, run  # noqa: E402 (the shared helpers)

ORT_RUN = os.path.join(ROOT, "tools", "netconv", "onnx_export", "ort_run.js")
SUITE = os.path.join(ROOT, "data", "bench", "positions.txt")


def suite_cases():
    cases = []
    with open(SUITE) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                pid, fen, moves = (line.split("|") + ["", ""])[:3]
                cases.append({"id": pid, "fen": fen, "moves": moves.split()})
    return cases


def write_planes(cformer, net, path):
    """The suite's input planes for net, as `cformer eval` builds them."""
    cases = suite_cases()
    with open(path + ".jsonl", "w") as f:
        f.writelines(json.dumps(c) + "\n" for c in cases)
    proc = run([cformer, "eval", "--weights", net, "--cases", path + ".jsonl"], "cformer eval")
    with open(path, "wb") as f:
        for line in proc.stdout.splitlines():
            out = json.loads(line)
            planes = bytearray(112 * 64 * 4)
            view = memoryview(planes).cast("f")
            for j, pl in enumerate(out["planes"]):
                m = int(pl["mask"], 16)
                for t in range(64):
                    if (m >> t) & 1:
                        view[j * 64 + t] = pl["value"]
            f.write(planes)
    return len(cases)


def cformer_rates(args, net, threads):
    cmd = [args.cformer, "bench", "--weights", net, "--threads", str(threads),
           "--batches", ",".join(map(str, args.batches)), "--agents", "policy",
           "--no-sgemm", "--quiet", "--json", "--min-time", str(args.seconds)]
    if args.backend:
        cmd += ["--backend", args.backend]
    if args.backend_opts:
        cmd += ["--backend-opts", args.backend_opts]
    report = json.loads(run(cmd, "cformer bench").stdout)
    runs = [b for b in report["backends"] if not b["skipped"]]
    rates = {row["batch"]: float(row["evals_per_second"]) for row in runs[0]["batches"]}
    return runs[0]["name"], {b: rates[b] for b in args.batches}


def ort_rates(args, node, model, planes, count, threads):
    rates = {}
    for batch in args.batches:
        proc = run([node, ORT_RUN, "bench", model, planes, str(count), "--batch", str(batch),
                    "--threads", str(threads), "--seconds", str(args.seconds)], "onnxruntime")
        rates[batch] = float(json.loads(proc.stdout)["evals_per_s"])
    return rates


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--net", action="append", metavar="LABEL=PATH",
                   help="a network to compare (repeatable; default: CF-6M random weights "
                        "and the network built into cformer)")
    p.add_argument("--cformer", default=os.path.join(ROOT, "build", "tools", "cformer"))
    p.add_argument("--netconv", default=os.path.join(ROOT, "build", "tools", "netconv", "netconv"))
    p.add_argument("--backend", default="", help="cformer's backend (default: its best)")
    p.add_argument("--backend-opts", default="", help="cformer's backend options")
    p.add_argument("--precision", default="float32", choices=["float32", "float16", "bfloat16"],
                   help="weights of the ONNX export (onnxruntime computes in float32)")
    p.add_argument("--batches", default="1,32,256")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=2.0, help="least time per measurement")
    p.add_argument("--json", metavar="FILE", help="also write every measurement as JSON")
    args = p.parse_args(argv)
    try:
        args.batches = [int(b) for b in args.batches.split(",")]
        threads_list = [int(t) for t in args.threads.split(",")]
    except ValueError:
        p.error("--batches and --threads take comma-separated whole numbers")
    if args.rounds < 1 or any(b < 1 for b in args.batches) or any(t < 1 for t in threads_list):
        p.error("--rounds, --batches and --threads must be positive")
    node = shutil.which("node") or shutil.which("nodejs")
    for path, what in ((args.cformer, "--cformer"), (args.netconv, "--netconv"), (node, "node")):
        if not path or not os.access(path, os.X_OK):
            p.error(f"{what}: '{path}' is not an executable (build first / install node)")

    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = loadavg()
    results = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-vs-ort-") as tmp:
            nets = []
            specs = args.net or ["CF-6M=cf6m", "default=<built in>"]
            for spec in specs:
                label, _, path = spec.partition("=")
                if path == "cf6m":
                    path = os.path.join(tmp, "cf6m.pb.gz")
                    run([args.netconv, "random", "--preset", "cf6m", "--seed", "1", "-o", path],
                        "netconv random")
                model = os.path.join(tmp, f"{len(nets)}.onnx")
                run([args.netconv, "export", path, "--onnx", model, "--precision", args.precision],
                    "netconv export --onnx")
                planes = os.path.join(tmp, f"{len(nets)}.f32")
                count = write_planes(args.cformer, path, planes)
                nets.append((label, path, model, planes, count))
            for rnd in range(args.rounds):
                for label, path, model, planes, count in nets:
                    for threads in threads_list:
                        order = ["cformer", "ort"] if rnd % 2 == 0 else ["ort", "cformer"]
                        for engine in order:
                            if engine == "cformer":
                                backend, rates = cformer_rates(args, path, threads)
                                engine = f"cformer {backend}"
                            else:
                                rates = ort_rates(args, node, model, planes, count, threads)
                                engine = "onnxruntime"
                            for b, r in rates.items():
                                results.append(dict(round=rnd, net=label, threads=threads,
                                                    engine=engine, batch=b, evals_per_second=r))
                            print(f"round {rnd + 1} {label} threads {threads} {engine}: "
                                  + ", ".join(f"b{b} {r:.0f}/s" for b, r in rates.items()),
                                  file=sys.stderr)
    except RunError as e:
        print(f"bench_vs_ort: {e}", file=sys.stderr)
        return 1
    load_after = loadavg()

    print(f"cformer vs onnxruntime {ort_version()} (CPU), {started:%Y-%m-%d %H:%M} UTC, "
          f"CPU: {cpu_model()}, {os.cpu_count()} logical CPUs; ONNX weights {args.precision}; "
          f"{args.rounds} rounds; load average before {load_before}, after {load_after}")
    print()
    print("| net | threads | batch | cformer evals/s | onnxruntime evals/s | ratio | per-round ratios |")
    print("|---|---|---|---|---|---|---|")
    summary = []
    for label, *_ in nets:
        for threads in threads_list:
            for b in args.batches:
                def med(prefix):
                    rows = [r for r in results if r["net"] == label and r["threads"] == threads
                            and r["batch"] == b and r["engine"].startswith(prefix)]
                    return rows
                mine, theirs = med("cformer"), med("onnxruntime")
                m = statistics.median(r["evals_per_second"] for r in mine)
                o = statistics.median(r["evals_per_second"] for r in theirs)
                per = sorted(a["evals_per_second"] / c["evals_per_second"]
                             for a in mine for c in theirs if a["round"] == c["round"])
                print(f"| {label} | {threads} | {b} | {m:.0f} | {o:.0f} | {m / o:.2f}x | "
                      f"{per[0]:.2f}-{per[-1]:.2f} |")
                summary.append(dict(net=label, threads=threads, batch=b, cformer=m,
                                    onnxruntime=o, ratio=m / o))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(started=started.isoformat(), cpu=cpu_model(), load_before=load_before,
                           load_after=load_after, precision=args.precision, runs=results,
                           summary=summary), f, indent=1)
    return 0


def ort_version():
    try:
        with open(os.path.join(os.path.dirname(ORT_RUN), "node_modules", "onnxruntime-node",
                               "package.json")) as f:
            return json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        return "(version unknown)"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
