"""test_help_without_torch: every Python command-line script answers --help
on a Python without numpy or torch, and a real run there says which Debian
package to install instead of ending in a traceback.

usage: test_help_without_torch.py SOURCE_ROOT

`python -S` leaves site-packages off sys.path, so numpy and torch (Debian's
python3-numpy and python3-torch live in dist-packages) cannot be imported:
a machine without them, simulated. The scripts are found by listing the
folders (every .py file with an `if __name__ == "__main__"` block), so a new
script is covered without editing this test.
"""

import os
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
FOLDERS = ["training", "training/parity", "tools/bench", "tools/match"]


def scripts():
    found = []
    for folder in FOLDERS:
        d = os.path.join(ROOT, folder)
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if name.endswith(".py") and os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                if "if __name__ == \"__main__\"" in text or "if __name__ == '__main__'" in text:
                    found.append(path)
    return found


def run_bare(args, cwd):
    """sys.executable -S (no site-packages), no PYTHONPATH that could bring them back."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run([sys.executable, "-S"] + args, capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=60)


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        # The premise: this Python really cannot import them with -S.
        r = run_bare(["-c", "import numpy"], tmp)
        assert r.returncode != 0, "numpy importable under -S: the test simulates nothing"

        found = scripts()
        assert len(found) >= 8, f"only {len(found)} scripts found: {found}"
        for path in found:
            rel = os.path.relpath(path, ROOT)
            r = run_bare([path, "--help"], tmp)
            if r.returncode != 0 or not r.stdout.startswith("usage:"):
                failures.append(f"{rel} --help: exit {r.returncode}\n  stdout: "
                                f"{r.stdout[:300]!r}\n  stderr: {r.stderr[-600:]!r}")
            else:
                print(f"ok: {rel} --help")

        # Real runs (valid arguments, nothing read yet): exit 1 and one line naming
        # the package, no traceback; nothing is written (the folders stay empty).
        data, run = os.path.join(tmp, "data"), os.path.join(tmp, "run")
        os.mkdir(data)
        real = [
            ["training/train.py", "--data", data, "--run", run],
            ["training/export.py", os.path.join(tmp, "latest.pt"), "-o",
             os.path.join(tmp, "net.safetensors")],
            ["training/evaluate.py", "--data", data, os.path.join(tmp, "net.safetensors")],
        ]
        for args in real:
            r = run_bare([os.path.join(ROOT, args[0])] + args[1:], tmp)
            err = r.stderr.strip()
            named = "python3-numpy" in err or "python3-torch" in err
            if r.returncode != 1 or not named or "Traceback" in err or len(err.splitlines()) != 1:
                failures.append(f"{args[0]} (real run): exit {r.returncode}, stderr {err[-600:]!r}")
            else:
                print(f"ok: {args[0]} without numpy/torch: {err}")
        leftovers = sorted(set(os.listdir(tmp)) - {"data"}) + os.listdir(data)
        if leftovers:
            failures.append(f"the real runs wrote {leftovers}")

    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


main()
