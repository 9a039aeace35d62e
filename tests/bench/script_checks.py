"""What the tests of scripts/bench_vs_lc0.py and bench_play_vs_lc0.py share:
a tally of named checks, a fake Lc0 written to a folder, and the answers
both scripts give to a bad command line and to --help."""
import json
import os
import subprocess
import sys


class Checks:
    """check(cond, what) prints ok/FAIL and counts; finish() is the exit status."""

    def __init__(self):
        self.failures = 0

    def __call__(self, cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            self.failures += 1

    def finish(self):
        print(f"{'FAILED' if self.failures else 'passed'}: {self.failures} failure(s)")
        return 1 if self.failures else 0


def write_fake(folder, text):
    """The fake Lc0 program text as an executable `lc0` in folder; its path."""
    path = os.path.join(folder, "lc0")
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)
    return path


def check_usage(check, script, base, cases, env):
    """Every (extra flags, what) in cases exits 2 with a message; --help exits 0
    and says where Lc0 comes from."""
    for bad, what in cases:
        p = subprocess.run(base + bad, env=env, capture_output=True, text=True)
        check(p.returncode == 2 and p.stderr.strip(), f"{what}: exit 2 with a message")
    p = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True)
    check(p.returncode == 0 and "Lc0 is not part of cformer" in p.stdout,
          "--help says where Lc0 comes from")


def run_with_fake(check, base, fake, out_json, env):
    """base + --lc0 fake=FAKE --json OUT: checks it exits 0; (process, the JSON or None)."""
    p = subprocess.run(base + ["--lc0", "fake=" + fake, "--json", out_json], env=env,
                       capture_output=True, text=True)
    print(p.stdout)
    print(p.stderr[-2000:], file=sys.stderr)
    check(p.returncode == 0, "a run with a working Lc0 exits 0")
    if p.returncode != 0:
        return p, None
    with open(out_json) as f:
        return p, json.load(f)
