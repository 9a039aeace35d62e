#!/usr/bin/env python3
"""The endgame suite: cformer against Stockfish from positions the Syzygy
tables decide.

Positions with 3 and 4 pieces are drawn at random (fixed seed) from six
endings (K+Q v K, K+R v K, K+P v K, K+B+N v K, K+R v K+P, K+Q v K+R), either
colour with the material, and labelled by the tables (Debian's libfathom,
read through ctypes): won, drawn or lost for the side to move. cformer plays
the side with the better result (the side to move in won and drawn
positions, the other side in lost ones) against Stockfish 15.1 at full
strength, both at a fixed time per move, until mate, stalemate, bare
material, the fifty-move rule or a threefold repetition. A won position
counts as converted when cformer mates; a drawn one as held when cformer
does not lose.

    scripts/endgame_suite.py --tables data/syzygy            # with SyzygyPath
    scripts/endgame_suite.py --tables data/syzygy --no-syzygy  # same positions, none
    scripts/endgame_suite.py --tables data/syzygy --root-scores 100  # scores only

--root-scores N searches each position once (`go nodes N`, no opponent) and
counts the scores that state the tables' result: `cp 0` for a drawn position,
a positive (won) or negative (lost) `mate` for the others. That part does
not depend on time.

Prints one line per game and a summary by ending; --json writes every game.
It is timed play: run it on a machine otherwise idle.
"""
import argparse
import ctypes
import json
import os
import random
import subprocess
import sys
import time

ENDINGS = ["KQvK", "KRvK", "KPvK", "KBNvK", "KRvKP", "KQvKR"]
LETTERS = "PNBRQK"  # index = piece type
WDL_NAMES = {2: "won", 0: "drawn", -2: "lost"}


class Tables:
    """The Syzygy WDL tables and attack sets, from libfathom."""

    def __init__(self, path):
        self.lib = ctypes.CDLL("libfathom.so.1")
        u64, uint = ctypes.c_uint64, ctypes.c_uint
        self.lib.tb_init.argtypes = [ctypes.c_char_p]
        self.lib.tb_init.restype = ctypes.c_bool
        self.lib.tb_probe_wdl_impl.argtypes = [u64] * 8 + [uint, ctypes.c_bool]
        self.lib.tb_probe_wdl_impl.restype = uint
        for name in ("tb_king_attacks", "tb_knight_attacks"):
            getattr(self.lib, name).argtypes = [uint]
            getattr(self.lib, name).restype = u64
        for name in ("tb_rook_attacks", "tb_bishop_attacks", "tb_queen_attacks"):
            getattr(self.lib, name).argtypes = [uint, u64]
            getattr(self.lib, name).restype = u64
        self.lib.tb_pawn_attacks.argtypes = [uint, ctypes.c_bool]
        self.lib.tb_pawn_attacks.restype = u64
        if not self.lib.tb_init(os.fspath(path).encode()):
            sys.exit("endgame_suite: the prober failed to start")
        self.largest = uint.in_dll(self.lib, "TB_LARGEST").value
        if self.largest < 4:
            sys.exit("endgame_suite: %s holds no 4-piece tables" % path)

    def attacked(self, board, square, by):
        """Whether colour `by` attacks square on `board` ({square: (colour, type)})."""
        occ = sum(1 << s for s in board)
        for s, (colour, kind) in board.items():
            if colour != by:
                continue
            if kind == 0:
                bb = self.lib.tb_pawn_attacks(s, colour == 0)
            elif kind == 1:
                bb = self.lib.tb_knight_attacks(s)
            elif kind == 2:
                bb = self.lib.tb_bishop_attacks(s, occ)
            elif kind == 3:
                bb = self.lib.tb_rook_attacks(s, occ)
            elif kind == 4:
                bb = self.lib.tb_queen_attacks(s, occ)
            else:
                bb = self.lib.tb_king_attacks(s)
            if bb >> square & 1:
                return True
        return False

    def in_check(self, board, side):
        king = next(s for s, p in board.items() if p == (side, 5))
        return self.attacked(board, king, 1 - side)

    def wdl(self, board, side):
        bbs = [0] * 8  # white, black, kings, queens, rooks, bishops, knights, pawns
        slot = {5: 2, 4: 3, 3: 4, 2: 5, 1: 6, 0: 7}
        for s, (colour, kind) in board.items():
            bbs[colour] |= 1 << s
            bbs[slot[kind]] |= 1 << s
        r = self.lib.tb_probe_wdl_impl(*bbs, 0, side == 0)
        return None if r == 0xFFFFFFFF else int(r) - 2


def fen_of(board, side, halfmove=0):
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            p = board.get(8 * rank + f)
            if p is None:
                empty += 1
                continue
            if empty:
                row, empty = row + str(empty), 0
            row += LETTERS[p[1]] if p[0] == 0 else LETTERS[p[1]].lower()
        rows.append(row + (str(empty) if empty else ""))
    return "%s %s - - %d 1" % ("/".join(rows), "wb"[side], halfmove)


def random_position(tables, ending, rng):
    """A legal position of `ending` with neither king in check, or None."""
    strong, weak = ending.split("v")
    colour_of_strong = rng.randrange(2)
    pieces = [(colour_of_strong, LETTERS.index(c)) for c in strong]
    pieces += [(1 - colour_of_strong, LETTERS.index(c)) for c in weak]
    squares = rng.sample(range(64), len(pieces))
    board = dict(zip(squares, pieces))
    if any(kind == 0 and s // 8 in (0, 7) for s, (_, kind) in board.items()):
        return None
    side = rng.randrange(2)
    if tables.in_check(board, 0) or tables.in_check(board, 1):
        return None
    wdl = tables.wdl(board, side)
    if wdl not in (-2, 0, 2):  # cursed wins and blessed losses are left out
        return None
    return board, side, wdl


def pick_positions(tables, per_class, seed):
    rng = random.Random(seed)
    out = []
    for ending in ENDINGS:
        found = {2: [], 0: [], -2: []}
        for _ in range(200000):
            if all(len(v) >= per_class for v in found.values()):
                break
            p = random_position(tables, ending, rng)
            if p and len(found[p[2]]) < per_class:
                found[p[2]].append(p)
        for wdl in (2, 0, -2):
            out += [(ending,) + p for p in found[wdl]]
    return out


class Engine:
    def __init__(self, cmd, options):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lines = []
        self.send("uci")
        self.wait("uciok")
        for name, value in options:
            self.send("setoption name %s value %s" % (name, value))
        self.send("isready")
        self.wait("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")

    def wait(self, word):
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("endgame_suite: an engine exited")
            self.lines.append(line.rstrip("\n"))
            if line.split()[:1] == [word]:
                return line.split()

    def score(self, fen, nodes):
        """The last `score` of a `go nodes` search: ("cp", n) or ("mate", n);
        None when the engine printed none. With no legal move the engine
        says so and scores the game's result (mate 0, cp 0), bestmove 0000."""
        start = len(self.lines)
        self.send("position fen %s" % fen)
        self.send("go nodes %d" % nodes)
        self.wait("bestmove")
        for line in reversed(self.lines[start:]):
            words = line.split()
            if words[:1] == ["info"] and "score" in words:
                i = words.index("score")
                return words[i + 1], int(words[i + 2])
        return None

    def said(self, words, last=3):
        """Whether one of the engine's last lines contains `words`."""
        return any(words in line for line in self.lines[-last:])

    def move(self, fen, moves, movetime):
        self.send("position fen %s%s" % (fen, " moves " + " ".join(moves) if moves else ""))
        self.send("go movetime %d" % movetime)
        words = self.wait("bestmove")
        return None if len(words) < 2 or words[1] in ("(none)", "0000") else words[1]

    def close(self):
        self.send("quit")
        self.p.wait(timeout=10)


def play(tables, cformer, stockfish, board, side, cformer_side, movetime, moves):
    """Plays from (board, side), appending to moves; returns (result for
    cformer: 1/0.5/0, why, plies)."""
    board, fen = dict(board), fen_of(board, side)
    halfmove, seen = 0, {}
    for ply in range(600):
        key = (tuple(sorted(board.items())), side)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] >= 3:
            return 0.5, "threefold repetition", ply
        if halfmove >= 100:
            # A mate on the hundredth half-move still counts (FIDE 9.3):
            # the side in check with no move is mated, not saved.
            engine = cformer if side == cformer_side else stockfish
            if tables.in_check(board, side) and engine.move(fen, moves, movetime) is None:
                return (0.0 if side == cformer_side else 1.0), "checkmate", ply
            return 0.5, "fifty-move rule", ply
        kinds = sorted(k for _, k in board.values())
        if kinds in ([5, 5], [1, 5, 5], [2, 5, 5]):
            return 0.5, "bare material", ply
        engine = cformer if side == cformer_side else stockfish
        m = engine.move(fen, moves, movetime)
        if m is None:
            if tables.in_check(board, side):
                return (0.0 if side == cformer_side else 1.0), "checkmate", ply
            return 0.5, "stalemate", ply
        frm = (ord(m[0]) - 97) + 8 * (int(m[1]) - 1)
        to = (ord(m[2]) - 97) + 8 * (int(m[3]) - 1)
        piece = board.pop(frm)
        zeroing = piece[1] == 0 or to in board
        if len(m) == 5:
            piece = (piece[0], LETTERS.index(m[4].upper()))
        board[to] = piece
        moves.append(m)
        halfmove = 0 if zeroing else halfmove + 1
        if zeroing:
            seen = {}
        side = 1 - side
    return 0.5, "ply limit", 600


def states_result(score, wdl):
    """Whether a search's score says what the tables say."""
    if score is None:
        return False
    kind, value = score
    if wdl == 0:
        return kind == "cp" and value == 0
    return kind == "mate" and (value > 0) == (wdl > 0)


def root_scores(cformer, positions, nodes, no_syzygy):
    load, t0 = os.getloadavg()[0], time.time()
    counts, skipped = {}, 0
    for i, (ending, board, side, wdl) in enumerate(positions):
        cformer.send("ucinewgame")
        score = cformer.score(fen_of(board, side), nodes)
        if cformer.said("no legal move, the game is over"):
            skipped += 1  # stalemate: nothing searched (the engine answers the draw itself)
            print("%3d %-6s %-58s %-5s no legal move" % (i + 1, ending, fen_of(board, side), WDL_NAMES[wdl]))
            continue
        ok = states_result(score, wdl)
        key = (ending, wdl)
        counts[key] = [counts.get(key, [0, 0])[0] + ok, counts.get(key, [0, 0])[1] + 1]
        print("%3d %-6s %-58s %-5s score %-12s%s"
              % (i + 1, ending, fen_of(board, side), WDL_NAMES[wdl],
                 " ".join(map(str, score)) if score else "none", "" if ok else "  (not the tables')"),
              flush=True)
    cformer.close()
    print("\n%s, go nodes %d; %d positions, %d of them without a legal move (left out); "
          "load average %.2f at the start, %.0f s"
          % ("with SyzygyPath" if not no_syzygy else "without tables", nodes, len(positions),
             skipped, load, time.time() - t0))
    print("%-6s %14s %14s %14s" % ("ending", "won: mate +", "drawn: cp 0", "lost: mate -"))
    total = {2: [0, 0], 0: [0, 0], -2: [0, 0]}
    for ending in ENDINGS:
        cells = []
        for wdl in (2, 0, -2):
            ok, n = counts.get((ending, wdl), [0, 0])
            total[wdl][0] += ok
            total[wdl][1] += n
            cells.append("%d / %d" % (ok, n))
        print("%-6s %14s %14s %14s" % (ending, *cells))
    print("%-6s %14s %14s %14s" % ("all", *("%d / %d" % tuple(total[w]) for w in (2, 0, -2))))
    return 0 if all(t[0] == t[1] for t in total.values()) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", required=True, help="Syzygy tables (3- and 4-piece)")
    ap.add_argument("--no-syzygy", action="store_true", help="cformer plays without the tables")
    ap.add_argument("--cformer", default="build/tools/cformer")
    ap.add_argument("--weights", default="<built in>")
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--movetime", type=int, default=100, help="ms a move, both sides")
    ap.add_argument("--overhead", type=int, default=10, help="cformer's MoveOverheadMs")
    ap.add_argument("--per-class", type=int, default=12,
                    help="positions per ending and result (won, drawn, lost)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0, help="play only the first N positions")
    ap.add_argument("--only", type=int, default=0, help="play only position N (1-based)")
    ap.add_argument("--json", help="write every game here")
    ap.add_argument("--root-scores", type=int, default=0, metavar="N",
                    help="no games: search each position to N nodes and count the scores "
                         "that state the tables' result")
    args = ap.parse_args()

    tables = Tables(args.tables)
    positions = pick_positions(tables, args.per_class, args.seed)
    if args.only:
        positions = positions[args.only - 1:args.only]
    if args.limit:
        positions = positions[:args.limit]
    copts = [("WeightsFile", args.weights), ("MoveOverheadMs", args.overhead)]
    if not args.no_syzygy:
        copts.append(("SyzygyPath", os.path.abspath(args.tables)))
    cformer = Engine([args.cformer], copts)
    if args.root_scores:
        return root_scores(cformer, positions, args.root_scores, args.no_syzygy)
    stockfish = Engine([args.stockfish], [("Threads", 1), ("Hash", 16)])
    load = os.getloadavg()[0]
    games, t0 = [], time.time()
    for i, (ending, board, side, wdl) in enumerate(positions):
        cformer_side = side if wdl >= 0 else 1 - side
        want = "win" if wdl != 0 else "draw"
        for e in (cformer, stockfish):
            e.send("ucinewgame")
        moves = []
        score, why, plies = play(tables, cformer, stockfish, board, side, cformer_side,
                                 args.movetime, moves)
        ok = score == 1.0 if want == "win" else score >= 0.5
        games.append({"ending": ending, "fen": fen_of(board, side), "table": WDL_NAMES[wdl],
                      "cformer": "wb"[cformer_side], "needs": want, "score": score,
                      "end": why, "plies": plies, "ok": ok, "moves": " ".join(moves)})
        print("%3d %-6s %-58s %-5s needs %-4s got %-3s %-20s %3d plies%s"
              % ((args.only or i + 1), ending, fen_of(board, side), WDL_NAMES[wdl], want, score, why, plies,
                 "" if ok else "  MISSED"), flush=True)
    cformer.close()
    stockfish.close()
    print("\n%s, Stockfish at %d ms a move, cformer MoveOverheadMs %d; %d positions, "
          "seed %d; load average %.2f at the start, %.0f s"
          % ("with SyzygyPath" if not args.no_syzygy else "without tables", args.movetime,
             args.overhead, len(games), args.seed, load, time.time() - t0))
    print("%-6s %14s %14s" % ("ending", "wins converted", "draws held"))
    for ending in ENDINGS + ["all"]:
        g = [x for x in games if ending in ("all", x["ending"])]
        w = [x for x in g if x["needs"] == "win"]
        d = [x for x in g if x["needs"] == "draw"]
        print("%-6s %8d / %-4d %8d / %-4d" % (ending, sum(x["ok"] for x in w), len(w),
                                            sum(x["ok"] for x in d), len(d)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(games, f, indent=1)
    return 0 if all(x["ok"] for x in games) else 1


if __name__ == "__main__":
    sys.exit(main())
