"""scripts/twin_ml_net.py: the twin with a moves-left head is built, has the
twin's layout (no RPE, Lc0's positional table: what Lc0 loads) plus the
head, and its head predicts different lengths for different positions (what
the moves-left options need to act on).

Usage: test_twin_ml_net.py SOURCE_ROOT NETCONV CFORMER
"""
import json
import os
import subprocess
import sys
import tempfile

root, netconv, cformer = sys.argv[1:4]
sys.path.insert(0, os.path.join(root, "scripts"))
import options_vs_lc0 as ovl  # noqa: E402
from uci_engine import UciEngine  # noqa: E402

FAILED = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        FAILED.append(what)


def describe(path):
    out = subprocess.run([netconv, "describe", path, "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


with tempfile.TemporaryDirectory() as tmp:
    net = os.path.join(tmp, "twin-ml.pb.gz")
    rc = subprocess.run([sys.executable, os.path.join(root, "scripts", "twin_ml_net.py"),
                         "--netconv", netconv, "-o", net]).returncode
    check(rc == 0 and os.path.exists(net), "the net is written")
    if rc == 0:
        got = describe(net)
        twin = describe(os.path.join(root, "data", "twin", "cformer-twin.pb.gz"))
        check(got["moves_left"] and not twin["moves_left"], "it has a moves-left head, the twin none")
        same = ("layers", "embedding_size", "heads", "dff", "rpe_q", "rpe_k", "rpe_v", "embedding",
                "embedding_inputs", "gating", "input_format", "policy_heads", "value_heads")
        check(all(got[k] == twin[k] for k in same), "otherwise the twin's layout")
        check(got["parameters"] > twin["parameters"], "the head's parameters come on top")
        engine = UciEngine("cformer", [cformer, "uci"],
                           [("WeightsFile", net), ("VerboseMoveStats", "true"),
                            ("SmartPruningFactor", "0"), ("MinibatchSize", "1")])
        try:
            engine.start()
            lines, _ = engine.go(ovl.POSITIONS[2][1], "go nodes 40", 120)
        finally:
            engine.close()
        moves, _ = ovl.move_stats(lines)
        # a move visited once shows the network's own moves-left output
        lengths = {s["M"] for s in moves.values() if s["N"] == 1 and s.get("M") is not None}
        check(len(lengths) >= 2 and min(lengths) > 1.0,
              f"its moves-left output differs between positions: {sorted(lengths)}")

sys.exit(1 if FAILED else 0)
