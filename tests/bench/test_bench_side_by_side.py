#!/usr/bin/env python3
"""scripts/bench_side_by_side.py with the real cformer (reference backend, a
one-layer random net): the table of medians and ratios (the baseline's
ratio exactly 1.00x), a failing binary (exit 1, its command named) and
usage errors (exit 2 with a message).

usage: test_bench_side_by_side.py CFORMER SOURCE_ROOT
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import script_checks  # noqa: E402

cformer, root = sys.argv[1], sys.argv[2]
script = os.path.join(root, "scripts", "bench_side_by_side.py")
check = script_checks.Checks()
base = [sys.executable, script, "--backend", "ref", "--net", "tiny=--arch=1x32",
        "--batches", "1,2", "--rounds", "2"]

p = subprocess.run(base + ["--config", f"first={cformer}:", "--config", f"second={cformer}:"],
                   capture_output=True, text=True)
print(p.stdout)
print(p.stderr[-2000:], file=sys.stderr)
check(p.returncode == 0, "two configurations of the real cformer: exit 0")
lines = p.stdout.splitlines()
check(any(l.startswith("rounds 2; load average") for l in lines), "the load average line")
check(any("tiny: evals/s, median of 2 rounds" in l for l in lines), "a table for the net")
rows = {l.split()[0]: l.split() for l in lines if l.split() and l.split()[0] in ("1", "2")}
check(set(rows) == {"1", "2"}, "a row per batch")
for b, f in rows.items():
    # batch, then (evals/s, ratio) per configuration
    check(len(f) == 5 and f[2] == "1.00x" and float(f[1]) > 0 and float(f[3]) > 0
          and f[4].endswith("x"), f"batch {b}: both medians, the baseline's ratio 1.00x")

with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "failing")
    with open(bad, "w") as f:
        f.write("#!/bin/sh\necho broken >&2\nexit 3\n")
    os.chmod(bad, 0o755)
    p = subprocess.run(base + ["--config", f"a={cformer}:", "--config", f"b={bad}:"],
                       capture_output=True, text=True)
    check(p.returncode == 1 and bad in p.stderr and "exit 3" in p.stderr and
          "broken" in p.stderr, "a failing binary: exit 1, its command and output shown")
    cases = [([], "no --config"),
             (["--config", "nolabel"], "a --config without ="),
             (["--config", f"a={os.path.join(tmp, 'missing')}:"], "a missing binary"),
             (["--config", f"a={cformer}:", "--config", f"a={cformer}:"], "a label twice"),
             (["--config", f"a={cformer}:", "--rounds", "0"], "zero rounds"),
             (["--config", f"a={cformer}:", "--net", "x"], "a --net without ="),
             (["--config", f"a={cformer}:", "--bogus"], "an unknown flag")]
    for extra, what in cases:
        p = subprocess.run(base + extra, capture_output=True, text=True)
        check(p.returncode == 2 and p.stderr.strip(), f"{what}: exit 2 with a message")

sys.exit(check.finish())
