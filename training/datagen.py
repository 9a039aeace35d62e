#!/usr/bin/python3
"""Training-data generator: Stockfish-labelled positions from varied games.

Each worker process plays games with one Stockfish instance (low node count,
randomised openings, occasional random moves so that odd and unbalanced
positions appear), samples positions from them, and labels each sampled
position with a second Stockfish instance at a fixed node budget with
MultiPV and UCI_ShowWDL. Everything goes through Stockfish's UCI interface
(`go perft 1` lists legal moves, `d` prints the FEN), so no Python chess
library is needed.

Output: one shard per worker, `<out>/shard-<worker>.tsv`, one position per
line, tab-separated (format documented in training/README.md):

    game_id  ply  history_fen  history_moves  fen  best_move  wdl  multipv  result

The generator is resumable: on restart each worker counts the games already
in its shard and continues with the next game number (games are seeded by
(seed, worker, game number), so a rerun reproduces the same games), and
positions already present are not written again.

With --scheduler tcp://HOST:PORT (or --dask-local N) the same games are
played on a Dask cluster instead (datagen_dask.py).

Usage:
    training/datagen.py --out training/data --games 1000 --workers 2
    training/datagen.py --out DIR --child-rate 0.5 --agent-child-rate 1 \
        --cformer build/tools/cformer --agent value --cformer-option WeightsFile=net.pb.gz
"""

import argparse
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cformer_cli  # noqa: E402

STOCKFISH = "/usr/games/stockfish"
HISTORY_PLIES = 7  # positions before the current one that the net sees (8 slots)


class Engine:
    """A Stockfish process driven over UCI."""

    def __init__(self, path, options):
        self.proc = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.send("uci")
        self.wait_for("uciok")
        for name, value in options.items():
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.wait_for("readyok")

    def send(self, line):
        self.proc.stdin.write(line + "\n")

    def wait_for(self, prefix):
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("stockfish exited unexpectedly")
            line = line.rstrip("\n")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def set_position(self, start_fen, moves):
        pos = "startpos" if start_fen == "startpos" else "fen " + start_fen
        self.send(f"position {pos}" + (" moves " + " ".join(moves) if moves else ""))

    def legal_moves(self):
        self.send("go perft 1")
        out = self.wait_for("Nodes searched")
        return [l.split(":")[0] for l in out if ":" in l and not l.startswith("Nodes")]

    def fen(self):
        self.send("d")
        for line in self.wait_for("Checkers"):
            if line.startswith("Fen: "):
                return line[5:].strip()
        raise RuntimeError("no Fen line in stockfish output")

    def search(self, nodes, limit="nodes"):
        """`go nodes N` (or `go depth N` with limit="depth"); returns
        (bestmove, {multipv: (move, score_text, wdl_text)})."""
        self.send(f"go {limit} {nodes}")
        lines = self.wait_for("bestmove")
        pvs = {}
        for line in lines:
            if not line.startswith("info ") or " pv " not in line or " multipv " not in line:
                continue
            tok = line.split()
            k = int(tok[tok.index("multipv") + 1])
            s = tok.index("score")
            score = tok[s + 1] + " " + tok[s + 2]  # "cp 23" or "mate -3"
            wdl = " ".join(tok[tok.index("wdl") + 1 : tok.index("wdl") + 4]) if "wdl" in tok else ""
            pvs[k] = (tok[tok.index("pv") + 1], score, wdl)
        best = lines[-1].split()[1]
        return best, pvs

    def bestmove(self, nodes=None):
        """cformer's move: a bare `go` (the one-ply agents; the search agent's
        default visits), or `go nodes N`, and its bestmove."""
        self.send("go" if nodes is None else f"go nodes {nodes}")
        return self.wait_for("bestmove")[-1].split()[1]

    def close(self):
        try:
            self.send("quit")
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()


def score_to_cp(score):
    kind, value = score.split()
    value = int(value)
    if kind == "mate":
        return 100000 - abs(value) if value > 0 else -100000 + abs(value)
    return value


def position_key(fen):
    # Board, side, castling, en passant: the counters do not make a new position.
    return " ".join(fen.split()[:4])


def play_game(rng, child_rng, player, labeller, agent, args, seen, out, game_id):
    """Plays one game, labels sampled positions, writes them. Returns count.

    child_rng is separate from rng so that --child-rate does not change the
    games themselves."""
    moves = []
    fens = []  # fens[i] = FEN after moves[:i]
    result = "*"
    records = []
    opening_plies = rng.randint(args.min_random_opening, args.max_random_opening)
    for ply in range(args.max_plies):
        player.set_position("startpos", moves)
        fen = player.fen()
        fens.append(fen)
        legal = player.legal_moves()
        if not legal:
            checked = player_in_check(player)
            result = ("0-1" if fen.split()[1] == "w" else "1-0") if checked else "1/2-1/2"
            break
        if int(fen.split()[4]) >= 100:
            result = "1/2-1/2"
            break
        if ply >= opening_plies and rng.random() < args.sample_rate and position_key(fen) not in seen:
            seen.add(position_key(fen))
            labeller.set_position("startpos", moves)
            best, pvs = labeller.search(args.label_nodes)
            if pvs:
                records.append((ply, moves[:], fen, best, pvs, None))
            # The value agent scores every legal child of the positions it
            # meets, blunders included; games between sensible players rarely
            # show those (a hanging piece, the side to move able to take it).
            # So label a uniformly random child of the sampled position too.
            if child_rng.random() < args.child_rate:
                label_child(labeller, args, seen, records, ply, moves + [child_rng.choice(legal)])
            # And the child our own agent would play: where its value head
            # misjudges a child, that child is the move it picks, so this is
            # where its errors concentrate (the DAgger idea: label the states
            # the learner visits).
            if agent is not None and child_rng.random() < args.agent_child_rate:
                label_child(labeller, args, seen, records, ply,
                            moves + [agent_move(agent, moves, cformer_cli.go_nodes(args))])
        if ply < opening_plies or rng.random() < args.random_move_rate:
            move = rng.choice(legal)
        else:
            player.set_position("startpos", moves)
            move, _ = player.search(rng.choice(args.play_nodes))
            if move == "(none)":
                move = rng.choice(legal)
        moves.append(move)
    for ply, hist, fen, best, pvs, own_result in records:
        start = max(0, ply - HISTORY_PLIES)
        history_fen = fens[start]
        history_moves = " ".join(hist[start:ply])
        wdl = pvs[1][2].replace(" ", ",") if 1 in pvs else ""
        multipv = " ".join(f"{m}:{score_to_cp(s)}" for _, (m, s, _) in sorted(pvs.items()))
        out.write(f"{game_id}\t{ply}\t{history_fen}\t{history_moves}\t{fen}\t{best}\t{wdl}\t{multipv}\t{own_result or result}\n")
    out.flush()
    return len(records)


def label_child(labeller, args, seen, records, ply, child_moves):
    """Labels the position after child_moves (off the game's path: result '*')."""
    labeller.set_position("startpos", child_moves)
    child_fen = labeller.fen()
    if position_key(child_fen) in seen:
        return
    seen.add(position_key(child_fen))
    best, pvs = labeller.search(args.label_nodes)
    if pvs and best != "(none)":
        records.append((ply + 1, child_moves, child_fen, best, pvs, "*"))


def agent_move(agent, moves, nodes=None):
    """The move cformer's agent plays after moves (its UCI bestmove)."""
    agent.set_position("startpos", moves)
    return agent.bestmove(nodes)


def player_in_check(engine):
    engine.send("d")
    for line in engine.wait_for("Checkers"):
        if line.startswith("Checkers:"):
            return len(line.split()) > 1
    return False


def load_existing(path):
    games, seen = set(), set()
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 9:
                    games.add(int(parts[0]))
                    seen.add(position_key(parts[4]))
    return games, seen


def format_duration(seconds):
    """A duration in the form of the other tools' ETAs (train.py, cformer
    puzzles): "0m42s", "3m20s", "2h05m"."""
    s = max(1, round(seconds))
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    m = round(seconds / 60)
    return f"{m // 60}h{m % 60:02d}m"


def progress_line(index, done, total, played, written, elapsed):
    """A worker's progress: games done of its share (resumed ones included),
    positions written and the rates of this run, and the time left at the
    rate of the games played in this run (a resumed run's earlier games do
    not count towards the rate)."""
    elapsed = max(elapsed, 1e-9)
    games_per_hour = played / elapsed * 3600
    left = total - done
    if left <= 0:
        eta = "done"
    elif played > 0:
        eta = "ETA " + format_duration(left * elapsed / played)
    else:
        eta = "ETA unknown"
    return (
        f"worker {index}: game {done}/{total}, {written} positions this run, "
        f"{written / elapsed * 3600:.0f} positions/hour, {games_per_hour:.1f} games/hour, "
        f"elapsed {format_duration(elapsed)}, {eta}"
    )


def worker(index, args):
    path = os.path.join(args.out, f"shard-{index}.tsv")
    games_done, seen = load_existing(path)
    player = Engine(STOCKFISH, {"Threads": 1, "Hash": 16})
    labeller = Engine(
        STOCKFISH, {"Threads": 1, "Hash": 32, "MultiPV": args.multipv, "UCI_ShowWDL": "true"}
    )
    agent = None
    if args.agent_child_rate > 0:
        agent = Engine(args.cformer, cformer_cli.engine_options(args))
    t0, written, played = time.monotonic(), 0, 0
    with open(path, "a") as out:
        for g in range(args.games_per_worker):
            game_id = index * 10_000_000 + g
            if game_id in games_done:
                continue
            rng = random.Random(f"{args.seed}/{index}/{g}")
            child_rng = random.Random(f"{args.seed}/{index}/{g}/children")
            written += play_game(rng, child_rng, player, labeller, agent, args, seen, out, game_id)
            played += 1
            if (g + 1) % args.progress_every == 0 or g + 1 == args.games_per_worker:
                # games below g + 1 not in games_done were played before g: all done
                line = progress_line(index, g + 1, args.games_per_worker, played, written,
                                     time.monotonic() - t0)
                # One write with its newline: the workers share the pipe, and
                # print's separate newline let another worker's line in
                # between (seen once in CI on a busy machine).
                sys.stdout.write(line + "\n")
                sys.stdout.flush()
    player.close()
    labeller.close()
    if agent is not None:
        agent.close()


def parse_args(argv=None):
    """The command line (sys.argv[1:] by default) as settled arguments."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="training/data")
    ap.add_argument("--games", type=int, default=1000, help="games in total (split over workers)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", default="cformer")
    ap.add_argument("--label-nodes", type=int, default=20000)
    ap.add_argument("--multipv", type=int, default=4)
    ap.add_argument("--play-nodes", type=int, nargs="+", default=[200, 1000, 4000])
    ap.add_argument("--random-move-rate", type=float, default=0.03)
    ap.add_argument("--min-random-opening", type=int, default=2)
    ap.add_argument("--max-random-opening", type=int, default=6)
    ap.add_argument(
        "--child-rate",
        type=float,
        default=0.0,
        help="chance that a sampled position's random child (off the game's path; result '*') is labelled too",
    )
    ap.add_argument(
        "--agent-child-rate",
        type=float,
        default=0.0,
        help="chance that the child cformer's agent would play from a sampled position is labelled too (result '*')",
    )
    ap.add_argument("--sample-rate", type=float, default=0.35)
    ap.add_argument("--max-plies", type=int, default=400)
    ap.add_argument(
        "--progress-every",
        type=int,
        default=10,
        help="print a worker's progress (games, positions/hour, games/hour, ETA) every N games "
        "and at its last game",
    )
    ap.add_argument("--scheduler", help="play on this Dask cluster (tcp://HOST:PORT; datagen_dask.py)")
    ap.add_argument("--dask-local", type=int, default=0, metavar="N",
                    help="play on a local Dask cluster of N worker processes (datagen_dask.py)")
    ap.add_argument("--chunk-games", type=int, default=10,
                    help="with Dask: games of one worker slot per task and per output file")
    cformer_cli.add_arguments(ap, "value", "that plays the agent's children (--agent-child-rate)")
    return cformer_cli.resolve(ap, ap.parse_args(argv), "datagen")


def main(argv=None):
    args = parse_args(argv)
    if not os.access(STOCKFISH, os.X_OK):
        sys.exit(f"datagen: {STOCKFISH} not found (apt-get install stockfish)")
    if args.agent_child_rate > 0:
        cformer_cli.check_executable(args, "datagen")
    os.makedirs(args.out, exist_ok=True)
    args.games_per_worker = (args.games + args.workers - 1) // args.workers
    if args.scheduler or args.dask_local:
        import datagen_dask
        datagen_dask.main(args)
        return
    procs = []
    for i in range(args.workers):
        pid = os.fork()
        if pid == 0:
            try:
                worker(i, args)
            finally:
                os._exit(0)
        procs.append(pid)
    status = 0
    for pid in procs:
        _, st = os.waitpid(pid, 0)
        status |= st
    sys.exit(1 if status else 0)


if __name__ == "__main__":
    main()
