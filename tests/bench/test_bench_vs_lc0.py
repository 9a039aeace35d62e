#!/usr/bin/env python3
"""scripts/bench_vs_lc0.py against the real cformer and a fake Lc0.

The fake prints `lc0 backendbench`'s CSV (header, then one row per batch
size) with a known median, so the test can check that the script finds the
median column, pairs the rounds, computes ratio = cformer / Lc0 from the
medians, alternates the engines' order between rounds, sizes Lc0's runs, and
reports failures and usage errors with the documented exit statuses.

usage: test_bench_vs_lc0.py CFORMER SOURCE_ROOT
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import script_checks  # noqa: E402  (the checks both script tests share)

cformer, root = sys.argv[1], sys.argv[2]
script = os.path.join(root, "scripts", "bench_vs_lc0.py")
check = script_checks.Checks()


FAKE = r'''#!/usr/bin/env python3
import os, sys
if len(sys.argv) == 1:  # over UCI: the scripts' same-network check
    sys.path.insert(0, os.environ["FAKE_TESTS_DIR"])
    import fake_lc0_uci
    fake_lc0_uci.serve()
    sys.exit(0)
args = dict(a[2:].split("=", 1) for a in sys.argv[2:])
with open(os.environ["FAKE_LC0_LOG"], "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\n")
if sys.argv[1] != "backendbench" or not os.path.isfile(args["weights"]):
    print("bad call", sys.argv, file=sys.stderr); sys.exit(3)
if os.environ.get("FAKE_LC0_FAIL"):
    print("RPE weights file not supported.", file=sys.stderr); sys.exit(1)
b = int(args["start-batch-size"])
assert b == int(args["max-batch-size"]) and int(args["batches"]) >= 5
print("Loading weights file from: " + args["weights"])
print("size, mean nps, mean ms,   sdev,     cv, max nps,  median, min nps, first max, first mean")
print(f"{b:4d},      999,  1.0000, 0.0100, 0.0100,    1500, {40 + b:7d},     500,    1.0000,    1.0000")
'''

with tempfile.TemporaryDirectory() as tmp:
    fake = script_checks.write_fake(tmp, FAKE)
    log = os.path.join(tmp, "calls.log")
    env = dict(os.environ, FAKE_LC0_LOG=log, FAKE_CFORMER=cformer,
               FAKE_TESTS_DIR=os.path.dirname(os.path.abspath(__file__)))
    out_json = os.path.join(tmp, "out.json")
    base = [sys.executable, script, "--cformer", cformer, "--backend", "ref", "--shapes", "2x32",
            "--batches", "1,4", "--rounds", "2", "--seconds", "0.05"]

    p, data = script_checks.run_with_fake(check, base, fake, out_json, env)
    if data is not None:
        lc0 = [m for m in data["measurements"] if m["engine"] == "lc0 fake"]
        mine = [m for m in data["measurements"] if m["engine"] == "cformer ref"]
        check(len(lc0) == 4 and len(mine) == 4, "2 rounds x 2 batches for each engine")
        check(all(m["evals_per_second"] == 40 + m["batch"] for m in lc0),
              "Lc0's rate is backendbench's median column")
        for s in data["summary"]:
            expect = statistics.median([m["evals_per_second"] for m in mine if m["batch"] == s["batch"]])
            check(abs(s["cformer_evals_per_second"] - expect) < 1e-9 and
                  abs(s["ratio"] - expect / (40 + s["batch"])) < 1e-9,
                  f"batch {s['batch']}: ratio = median cformer / median Lc0")
            check(f"{s['ratio']:.2f}x" in p.stdout, f"batch {s['batch']}: the ratio is printed")
        order = [c.split()[1] if c.startswith(fake) else "cformer" for c in data["commands"]]
        first_engines = [order[0], order[3]]  # round 1: cformer then 2 lc0 calls; round 2 reversed
        check(first_engines == ["cformer", "backendbench"], f"the order alternates by round: {order}")
        check("load average before:" in p.stdout and "after:" in p.stdout, "the load average is printed")
        check("checking that lc0 fake and cformer compute the same network" in p.stderr,
              "the net is checked to give the same outputs in both engines first")
        calls = open(log).read().splitlines()
        check(len(calls) == 4 and all("--backend=blas" in c and "threads=1" in c for c in calls),
              "Lc0 gets its backend and threads=1")

    # Two threads: Lc0 runs both ways, N backend threads in a batch and N
    # batches at once (workers) on one-thread backends.
    open(log, "w").close()
    p = subprocess.run(base[:-6] + ["--batches", "1", "--rounds", "1", "--seconds", "0.05",
                                    "--threads", "2", "--lc0", "fake=" + fake, "--json", out_json],
                       env=env, capture_output=True, text=True)
    check(p.returncode == 0, "a two-thread run exits 0")
    if p.returncode == 0:
        calls = open(log).read().splitlines()
        intra = [c for c in calls if "--backend-opts=threads=2" in c and "--threads=" not in c]
        workers = [c for c in calls if "--backend-opts=threads=1" in c and "--threads=2" in c]
        check(len(calls) == 2 and len(intra) == 1 and len(workers) == 1,
              f"Lc0 runs with 2 backend threads and with 2 workers: {calls}")
        engines = sorted(s["lc0"] for s in json.load(open(out_json))["summary"])
        check(engines == ["lc0 fake", "lc0 fake workers"], f"both are compared: {engines}")
        check("lc0 fake workers" in p.stdout, "the workers column is printed")

    p = subprocess.run(base + ["--lc0", fake], env=dict(env, FAKE_LC0_FAIL="1"),
                       capture_output=True, text=True)
    check(p.returncode == 1 and "RPE weights file not supported" in p.stderr,
          "a failing Lc0 exits 1 and shows its message")

    # An Lc0 whose outputs differ (as on a net it misreads): nothing is timed.
    open(log, "w").close()
    p = subprocess.run(base + ["--lc0", fake], env=dict(env, FAKE_LC0_DISAGREE="1"),
                       capture_output=True, text=True)
    check(p.returncode == 1 and "disagree on the network's outputs" in p.stderr and
          "prior of" in p.stderr, "an Lc0 that computes another network: exit 1, the move named")
    check(open(log).read() == "", "and nothing is timed")

    usage_cases = [([], "no --lc0"), (["--lc0", os.path.join(tmp, "nope")], "a missing Lc0"),
                   (["--lc0", fake, "--shapes", "8by256"], "a bad shape"),
                   (["--lc0", fake, "--batches", "0"], "a bad batch size"),
                   (["--lc0", fake, "--rounds", "0"], "zero rounds"),
                   (["--lc0", fake, "--bogus"], "an unknown flag")]
    script_checks.check_usage(check, script, base, usage_cases, env)

sys.exit(check.finish())
