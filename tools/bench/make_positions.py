#!/usr/bin/env python3
"""Regenerates positions.txt, the fixed position suite of `cformer bench`.

Source: data/puzzles/lichess_puzzles_public.csv, the Lichess open
puzzle database (CC0 1.0, database.lichess.org); every puzzle comes from a
real game (its GameUrl).

Selection rule (fixed, so the suite and the bench signature never drift):
every 6th puzzle in file order (rows 0, 6, 12, ... of the data rows), the
first 128 of them. Each line is the position the solver faces: the puzzle's
FEN plus the opponent's first move (the first UCI move of `Moves`), so every
position carries one ply of real history for the encoder.

Line format: `id|fen|moves` (moves: UCI, space separated, played from fen).

usage: make_positions.py PUZZLES.csv > positions.txt
"""
import csv
import sys

STEP = 6
COUNT = 128


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    picked = rows[::STEP][:COUNT]
    if len(picked) < COUNT:
        print(f"only {len(picked)} puzzles; need {COUNT}", file=sys.stderr)
        return 1
    print("# cformer bench position suite: see tools/bench/make_positions.py (source, rule).")
    for r in picked:
        first = r["Moves"].split()[0]
        print(f"{r['PuzzleId']}|{r['FEN']}|{first}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
