"""The UCI side of the fake Lc0s of the script tests.

The scripts against Lc0 first check that both engines compute the same
network (scripts/same_net_check.py): one visit (`go nodes 1`) from a few
positions, comparing the priors and W/D/L. A fake cannot compute a network,
so it answers such a search with what the real cformer prints for the same
options and position (FAKE_CFORMER: its path), in float32 as the check's
cformer runs; with FAKE_LC0_DISAGREE set it moves the first prior by half a
percent, as a net that Lc0 misreads would.
"""
import os
import re
import subprocess
import sys

PRIOR = re.compile(r"\(P:\s*(-?[\d.]+)%\)")


def cformer_search(opts, position, go):
    """The lines the real cformer prints for this search, up to bestmove."""
    proc = subprocess.Popen([os.environ["FAKE_CFORMER"], "uci"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    commands = [f"setoption name {k} value {v}" for k, v in opts.items()
                if k not in ("Backend", "BackendOptions")]
    commands += ["setoption name BackendOptions value precision=f32", position, go]
    proc.stdin.write("\n".join(commands) + "\n")
    proc.stdin.flush()
    lines = []
    for line in proc.stdout:
        line = line.rstrip("\n")
        if line.startswith("info"):
            lines.append(line)
        if line.startswith("bestmove"):
            lines.append(line)
            break
    proc.stdin.write("quit\n")
    proc.stdin.close()
    proc.wait()
    if os.environ.get("FAKE_LC0_DISAGREE"):
        for i, line in enumerate(lines):
            m = PRIOR.search(line)
            if m:
                moved = f"(P: {float(m.group(1)) + 0.5:5.2f}%)"
                lines[i] = line[:m.start()] + moved + line[m.end():]
                break
    return lines


def serve(log=None):
    """A minimal Lc0 over UCI: options, positions and one-visit searches."""
    opts, position = {}, "position startpos"
    for line in sys.stdin:
        line = line.strip()
        if log:
            log.write(line + "\n")
            log.flush()
        if line == "uci":
            print("id name FakeLc0")
            print("uciok")
        elif line.startswith("setoption name "):
            name, _, value = line[len("setoption name "):].partition(" value ")
            opts[name] = value
        elif line == "isready":
            print("readyok")
        elif line.startswith("position "):
            position = line
        elif line.startswith("go nodes"):
            print("\n".join(cformer_search(opts, position, line)))
        elif line == "quit":
            break
        sys.stdout.flush()
