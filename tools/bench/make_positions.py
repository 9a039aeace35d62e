#!/usr/bin/env python3
"""Regenerates positions.txt, the fixed position suite of `cformer bench`.

Source: data/puzzles/lichess_puzzles_public.csv, the Lichess open
puzzle database (CC0 1.0, database.lichess.org); every puzzle comes from a
real game (its GameUrl).

Selection rule (fixed, so the suite and the bench signature never drift):
every 6th puzzle in file order (rows 0, 6, 12, ... of the data rows), the
first 128 of them, those whose themes name no mate first (each group in
file order): a short run (`--positions 2`) then times real middlegame and
endgame searches, not a mate in one the search proves at once. Each line is
the position the solver faces: the puzzle's FEN plus the opponent's first
move (the first UCI move of `Moves`), so every position carries one ply of
real history for the encoder.

Line format: `id|fen|moves` (moves: UCI, space separated, played from fen).

usage: make_positions.py PUZZLES.csv > positions.txt
"""
import argparse
import csv
import sys

STEP = 6
COUNT = 128


def main() -> int:
    # The docstring's last line is the usage; argparse prints it (and exits 2
    # on wrong arguments, as before), the rest is the --help description.
    doc, usage = __doc__.strip().rsplit("\n", 1)
    ap = argparse.ArgumentParser(usage=usage.removeprefix("usage: "), description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("puzzles", metavar="PUZZLES.csv",
                    help="the Lichess puzzle database (data/puzzles/lichess_puzzles_public.csv)")
    args = ap.parse_args()
    with open(args.puzzles, newline="") as f:
        rows = list(csv.DictReader(f))
    picked = rows[::STEP][:COUNT]
    if len(picked) < COUNT:
        print(f"only {len(picked)} puzzles; need {COUNT}", file=sys.stderr)
        return 1
    # stable: each group keeps file order
    picked.sort(key=lambda r: "mate" in r["Themes"].lower())
    print("# cformer bench position suite: see tools/bench/make_positions.py (source, rule).")
    for r in picked:
        first = r["Moves"].split()[0]
        print(f"{r['PuzzleId']}|{r['FEN']}|{first}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
