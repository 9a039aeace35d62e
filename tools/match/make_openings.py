#!/usr/bin/env python3
"""Generates balanced openings for cformer-match with Stockfish.

Why: cformer's agents play deterministically, so in a match of cformer
against cformer an opening played twice with the same colours is the same
game twice, and a 200-game match over 40 openings holds only 80 distinct
games (its Elo interval is too narrow). Enough distinct openings fix that.

Each opening is built ply by ply: Stockfish (MultiPV) lists its best moves
at a fixed depth, and one of those within --spread centipawns of the best
is picked at random, so the lines are plausible and varied. The final
position is searched deeper and kept only if Stockfish scores it within
--max-cp of equal. Positions reached before (by another line, or by an
opening in the --exclude files) are skipped, transpositions included.

Output: the openings file format of data/match/openings.txt: UCI moves
from the start position, then "# name" (here the number and Stockfish's
score from White's side).

Usage:
    tools/match/make_openings.py --count 80 --seed 1 -o extra.txt \\
        --exclude data/match/openings.txt
"""

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "training"))
from datagen import STOCKFISH, Engine, position_key, score_to_cp  # noqa: E402


def read_openings(path):
    """The move lists of an openings file (comments and blank lines skipped)."""
    lines = []
    with open(path) as f:
        for raw in f:
            moves = raw.split("#", 1)[0].split()
            if moves:
                lines.append(moves)
    return lines


def search_depth(engine, depth):
    """{multipv: (move, cp from the side to move)} of `go depth`."""
    _, pvs = engine.search(depth, limit="depth")
    return {k: (move, score_to_cp(score)) for k, (move, score, _) in pvs.items()}


def make_line(engine, rng, args):
    """One candidate line and its final score from White's side, or None."""
    moves = []
    for ply in range(args.plies):
        engine.send(f"setoption name MultiPV value {args.multipv}")
        engine.set_position("startpos", moves)
        pvs = search_depth(engine, args.depth)
        if not pvs:
            return None  # the game ended inside the opening
        best = pvs[min(pvs)][1]
        choices = [move for move, cp in pvs.values() if cp >= best - args.spread]
        moves.append(rng.choice(sorted(choices)))
    engine.send("setoption name MultiPV value 1")
    engine.set_position("startpos", moves)
    pvs = search_depth(engine, args.check_depth)
    if not pvs:
        return None
    cp = pvs[1][1]
    white_cp = cp if len(moves) % 2 == 0 else -cp
    return moves, white_cp


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--out", required=True, help="openings file to write")
    ap.add_argument("--count", type=int, default=80, help="openings to generate")
    ap.add_argument("--plies", type=int, default=8, help="plies per opening")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--multipv", type=int, default=4, help="candidate moves per ply")
    ap.add_argument("--depth", type=int, default=10, help="search depth for the candidates")
    ap.add_argument("--spread", type=int, default=40, help="cp behind the best a candidate may be")
    ap.add_argument("--check-depth", type=int, default=16, help="search depth for the final check")
    ap.add_argument("--max-cp", type=int, default=60, help="|score| an opening may have at most")
    ap.add_argument("--exclude", action="append", default=[], help="openings file whose positions to skip")
    ap.add_argument("--max-tries", type=int, default=0, help="give up after this many lines (0: 20 x count)")
    ap.add_argument("--stockfish", default=STOCKFISH)
    args = ap.parse_args()
    if args.count < 1 or args.plies < 1 or args.multipv < 1:
        ap.error("--count, --plies and --multipv must be at least 1")
    if not os.access(args.stockfish, os.X_OK):
        ap.error(f"{args.stockfish}: no Stockfish there (apt-get install stockfish)")

    engine = Engine(args.stockfish, {"Threads": 1, "Hash": 32})
    seen = set()
    for path in args.exclude:
        for moves in read_openings(path):
            engine.set_position("startpos", moves)
            seen.add(position_key(engine.fen()))

    rng = random.Random(args.seed)
    found, tries = [], 0
    max_tries = args.max_tries or 20 * args.count
    while len(found) < args.count and tries < max_tries:
        tries += 1
        engine.send("ucinewgame")
        line = make_line(engine, rng, args)
        if line is None:
            continue
        moves, white_cp = line  # the engine is still at the line's last position
        key = position_key(engine.fen())
        if abs(white_cp) > args.max_cp or key in seen:
            continue
        seen.add(key)
        found.append((moves, white_cp))
        print(f"make_openings: {len(found)}/{args.count} ({tries} lines tried)", file=sys.stderr, flush=True)
    engine.close()

    with open(args.out, "w") as f:
        f.write(f"# {len(found)} openings by tools/match/make_openings.py --seed {args.seed} --plies {args.plies}"
                f" --depth {args.depth} --spread {args.spread} --check-depth {args.check_depth}"
                f" --max-cp {args.max_cp}\n")
        for i, (moves, white_cp) in enumerate(found, 1):
            f.write(f"{' '.join(moves):<48} # generated {i}, Stockfish {white_cp / 100:+.2f}\n")
    if len(found) < args.count:
        print(f"make_openings: only {len(found)} of {args.count} openings after {tries} lines", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
