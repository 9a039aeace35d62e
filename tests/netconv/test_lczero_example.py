#!/usr/bin/env python3
"""test_lczero_example.py SOURCE_ROOT BUILD_ROOT: runs the worked example of
docs/LCZERO_TRAINING.md as written (its sh blocks, with build/ pointing at
this build) and checks what the page says it prints: network format 134 in
LINEAR16, the import's warning, and the same W/D/L from all three networks."""
import os
import re
import subprocess
import sys
import tempfile


def example_script(doc):
    text = open(doc, encoding="utf-8").read()
    text = text[text.index("## Worked example"):]
    blocks = re.findall(r"\n   ```sh\n(.*?)\n   ```", text, re.S)
    lines = []
    for block in blocks:
        lines += [l[3:] if l.startswith("   ") else l for l in block.split("\n")]
    return "set -e\n" + "\n".join(lines) + "\n"


def main():
    src, build = sys.argv[1], sys.argv[2]
    script = example_script(os.path.join(src, "docs", "LCZERO_TRAINING.md"))
    if "netconv convert" not in script or "cformer eval" not in script:
        print("the worked example lost its steps")
        return 1
    script = script.replace("build/tools/", os.path.join(build, "tools") + "/")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, T=tmp)
        r = subprocess.run(["bash", "-c", script], cwd=src, env=env, capture_output=True,
                           text=True, timeout=600)
    out = r.stdout + r.stderr
    print(out)
    failures = []
    if r.returncode != 0:
        failures.append("exit status %d" % r.returncode)
    for want in ["network format 134, min version 0.31.0", "LINEAR16 (91 tensors)",
                 "netconv import: warning: ignored 1 quantisation scale (.../s)"]:
        if want not in out:
            failures.append("missing: " + want)
    wdl = [l for l in r.stdout.splitlines() if l.startswith("[")]
    if len(wdl) != 3 or len(set(wdl)) != 1:
        failures.append("expected the same W/D/L three times, got %r" % wdl)
    else:
        # The page's numbers; backends differ in the last digits.
        got = [float(x) for x in wdl[0].strip("[]").split(",")]
        page = [0.35274595, 0.322227061, 0.325027019]
        if max(abs(a - b) for a, b in zip(got, page)) > 1e-4:
            failures.append("W/D/L %s differs from the page's %s" % (wdl[0], page))
    for f in failures:
        print("FAILED: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
