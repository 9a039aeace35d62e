#!/usr/bin/env python3
"""tools/match/make_openings.py against the real Stockfish at small depths:
every move it writes is legal, its openings lead to distinct positions within
the score bound, --exclude keeps an earlier file's positions out, and bad
arguments are refused. (The shipped data/match/openings.txt is loaded by
cformer-match's own parser in test_match.c.) Exit 77 (skip) without Stockfish.

usage: test_make_openings.py SOURCE_ROOT"""
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
if not os.access("/usr/games/stockfish", os.X_OK):
    print("no /usr/games/stockfish: skipped")
    sys.exit(77)
sys.path.insert(0, os.path.join(root, "training"))
from datagen import Engine, position_key  # noqa: E402

tool = os.path.join(root, "tools", "match", "make_openings.py")
small = ["--plies", "4", "--depth", "5", "--check-depth", "8", "--max-cp", "80"]


def generate(out, seed, *extra):
    r = subprocess.run([sys.executable, tool, "--count", "3", "--seed", str(seed), "-o", out, *small, *extra],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "3/3" in r.stderr, r.stderr  # progress output
    lines = [l for l in open(out) if l.strip() and not l.startswith("#")]
    assert len(lines) == 3, lines
    return lines


def positions(lines):
    sf = Engine("/usr/games/stockfish", {})
    keys = []
    for line in lines:
        moves, comment = line.split("#", 1)
        moves = moves.split()
        assert len(moves) == 4, line
        score = float(comment.split("Stockfish")[1])
        assert abs(score) <= 0.80, line
        for i, move in enumerate(moves):
            sf.set_position("startpos", moves[:i])
            assert move in sf.legal_moves(), line
        sf.set_position("startpos", moves)
        keys.append(position_key(sf.fen()))
    sf.close()
    return keys


with tempfile.TemporaryDirectory() as tmp:
    a, b = os.path.join(tmp, "a.txt"), os.path.join(tmp, "b.txt")
    keys_a = positions(generate(a, 1))
    assert len(set(keys_a)) == 3, keys_a
    keys_b = positions(generate(b, 1, "--exclude", a))
    assert not set(keys_a) & set(keys_b), (keys_a, keys_b)
    r = subprocess.run([sys.executable, tool, "--count", "0", "-o", os.path.join(tmp, "c.txt")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "at least 1" in r.stderr, r.stderr
print("make_openings: ok")
