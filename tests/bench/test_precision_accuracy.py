#!/usr/bin/env python3
"""tools/bench/precision_accuracy.py end to end on the built-in net: f32
against itself (every difference 0, every top move the same), the positions
of a LogFile's games (--games: every prefix of each `position` line read,
duplicates removed), a missing log refused, and a precision entry's extra
backend options (`int8:f32_roles=embedding`) passed on.

usage: test_precision_accuracy.py CFORMER SOURCE_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

cformer, root = sys.argv[1], sys.argv[2]
script = os.path.join(root, "tools", "bench", "precision_accuracy.py")
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(script))
import precision_accuracy  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    failures += not cond


with tempfile.TemporaryDirectory() as tmp:
    log = os.path.join(tmp, "engine.log")
    with open(log, "w") as f:
        f.write("1126 08:47:09.786007 ## log started: cformer 0.1.0\n"
                "1126 08:47:09.786067 >> position startpos moves e2e4 e7e5\n"
                "1126 08:47:09.786068 << bestmove g1f3\n"
                "1126 08:47:09.786069 >> position startpos moves e2e4 e7e5 g1f3 b8c6\n"
                "1126 08:47:09.786070 >> position fen 8/8/8/8/8/5k2/8/5K1R w - - 0 1 moves h1h2\n"
                "1126 08:47:09.786071 >> go movetime 10\n")
    games = precision_accuracy.log_games(log)
    check(len(games) == 3 and games[1][1] == ["e2e4", "e7e5", "g1f3", "b8c6"]
          and games[2] == ("8/8/8/8/8/5k2/8/5K1R w - - 0 1", ["h1h2"]),
          f"the LogFile's position lines are read: {games}")
    base = precision_accuracy.positions()
    more = precision_accuracy.positions([log])
    # Every prefix of every game, once, unless the built-in sources already
    # hold it (the openings start the same way).
    have = {(p["fen"], tuple(p["moves"])) for p in base}
    want = {(fen, tuple(moves[:k])) for fen, moves in games for k in range(len(moves) + 1)} - have
    added = {(p["fen"], tuple(p["moves"])) for p in more if p["id"].startswith("log")}
    check(added == want and len(more) == len(base) + len(want),
          f"every new prefix once: {len(added)} positions added, {len(want)} expected")
    check(("8/8/8/8/8/5k2/8/5K1R w - - 0 1", ("h1h2",)) in added, "the FEN game's positions too")

    p = subprocess.run([sys.executable, script, "--cformer", cformer, "--precisions", "f32",
                        "--limit", "40", "--games", log, "--value-agent", "12", "--json"],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"f32 against itself runs: {p.stderr[-500:]}")
    if p.returncode == 0:
        r = json.loads(p.stdout)["vs_f32"]["f32"]
        check(r["positions"] == 40, "40 positions compared")
        check(r["wdl_max"] == 0 and r["q_max"] == 0 and r["policy_max"] == 0
              and r["top1_agreement"] == 1.0, f"identical runs differ by nothing: {r}")
        check(r["value_agent_positions"] == 12 and r["value_agent_agreement"] == 1.0,
              "the value agent plays the same 12 moves twice")
    check(precision_accuracy.backend_options("int8:f32_roles=embedding+heads")
          == "precision=int8,f32_roles=embedding+heads"
          and precision_accuracy.backend_options("bf16") == "precision=bf16",
          "a precision entry's ':' options become backend options")
    p = subprocess.run([sys.executable, script, "--cformer", cformer, "--precisions",
                        "f32:f32_roles=embedding+heads", "--limit", "8", "--json"],
                       capture_output=True, text=True)
    check(p.returncode == 0 and json.loads(p.stdout)["vs_f32"]["f32:f32_roles=embedding+heads"][
        "q_max"] == 0, f"f32 with f32_roles runs and matches f32: {p.stderr[-500:]}")
    p = subprocess.run([sys.executable, script, "--cformer", cformer, "--precisions",
                        "int8:f32_roles=bogus", "--limit", "8"], capture_output=True, text=True)
    check(p.returncode != 0 and "f32_roles=bogus" in p.stderr and "valid: embedding, heads"
          in p.stderr, f"an entry's bad option reaches the backend and is refused: {p.stderr[-300:]}")
    p = subprocess.run([sys.executable, script, "--cformer", cformer, "--games",
                        os.path.join(tmp, "nope.log")], capture_output=True, text=True)
    check(p.returncode != 0 and "no such file" in p.stderr, "a missing log is refused")

print(f"{'FAILED' if failures else 'passed'}: {failures} failure(s)")
sys.exit(1 if failures else 0)
