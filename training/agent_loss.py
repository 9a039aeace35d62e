#!/usr/bin/python3
"""How much each move of cformer's agent gives away, judged by Stockfish.

    /usr/bin/python3 training/agent_loss.py --shards DIR/shard-*.tsv \\
        --net v2=old.pb.gz --net v3=new.pb.gz [--positions 1000] \\
        [--cformer build/tools/cformer] [--agent value|policy|search [--nodes N]]

Samples game positions (result not `*`) from datagen.py shards, asks each
network's agent (a cformer UCI process per network) for its move, and has
Stockfish search the position before and the position after that move at the
same node budget. Per network it prints how often the agent plays
Stockfish's move, the mean loss in expected score (win + draw/2, from
Stockfish's WDL, in points out of 100), the mean centipawn loss (each capped
at 1000) and the blunder rate (moves losing 300 centipawns or more, about a
piece), each with its 95% interval, and for every pair of networks the
paired difference in expected-score loss. All networks
face the same positions, so the paired difference is far tighter than two
200-game matches; it is a proxy for strength, not a rating.

The agent is the value agent unless --agent says otherwise (the engine's own
default, the search, is far slower per move: give it --nodes).

Use positions no network trained on: shards from a datagen.py seed of their
own (e.g. `--seed holdout`).
"""

import argparse
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cformer_cli  # noqa: E402
import datagen  # noqa: E402

MATE_CP_CAP = 1000
BLUNDER_CP = 300


def read_positions(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            for line in f:
                r = line.rstrip("\n").split("\t")
                if len(r) == 9 and r[8] != "*":
                    rows.append((r[2], r[3].split()))
    return rows


def judge(labeller, history_fen, moves, nodes):
    """Stockfish's (expected score, capped cp, best move) for the side to move;
    None where the game is over (no search line)."""
    labeller.set_position(history_fen, moves)
    best, pvs = labeller.search(nodes)
    if 1 not in pvs:
        return None
    _, score, wdl = pvs[1]
    w, d, _ = (int(x) for x in wdl.split())
    cp = max(-MATE_CP_CAP, min(MATE_CP_CAP, datagen.score_to_cp(score)))
    return (w + d / 2) / 10, cp, best


def mean_ci(xs):
    n = len(xs)
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    return m, 1.96 * sd / math.sqrt(n)


def parse_args(argv=None):
    """The command line (sys.argv[1:] by default) as settled arguments."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shards", nargs="+", required=True, help="datagen.py shard files")
    ap.add_argument("--net", action="append", required=True, metavar="NAME=WEIGHTS",
                    help="a network to judge (WEIGHTS 'builtin' for the embedded default); repeatable")
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--label-nodes", type=int, default=5000)
    ap.add_argument("--seed", default="agent-loss")
    ap.add_argument("--progress-every", type=int, default=200)
    cformer_cli.add_arguments(ap, "value", "behind each network (one per --net, which "
                              "sets its WeightsFile)")
    return cformer_cli.resolve(ap, ap.parse_args(argv), "agent_loss.py")


def main(argv=None):
    args = parse_args(argv)
    nets = []
    for spec in args.net:
        if "=" not in spec:
            sys.exit(f"agent_loss.py: --net wants NAME=WEIGHTS, got {spec!r}")
        name, weights = spec.split("=", 1)
        if weights != "builtin" and not os.path.isfile(weights):
            sys.exit(f"agent_loss.py: {weights}: no such file")
        nets.append((name, weights))
    cformer_cli.check_executable(args, "agent_loss.py")
    if not os.access(datagen.STOCKFISH, os.X_OK):
        sys.exit(f"agent_loss.py: {datagen.STOCKFISH} not found (apt-get install stockfish)")
    try:
        rows = read_positions(args.shards)
    except OSError as e:
        sys.exit(f"agent_loss.py: {e}")
    if not rows:
        sys.exit("agent_loss.py: no game positions in the shards")
    rows = random.Random(args.seed).sample(rows, min(args.positions, len(rows)))

    labeller = datagen.Engine(datagen.STOCKFISH, {"Threads": 1, "Hash": 32, "UCI_ShowWDL": "true"})
    agents = []
    for _, weights in nets:
        # "builtin" names the embedded net: WeightsFile's default would
        # autodiscover a .pb.gz beside the binary or in the data folders.
        path = "<built in>" if weights == "builtin" else os.path.abspath(weights)
        extra = {"WeightsFile": path}
        agents.append(datagen.Engine(args.cformer, cformer_cli.engine_options(args, **extra)))
    nodes = cformer_cli.go_nodes(args)

    results = [[] for _ in nets]  # per net: (matches best, es loss, cp loss)
    for i, (history_fen, moves) in enumerate(rows):
        before = judge(labeller, history_fen, moves, args.label_nodes)
        if before is None:
            continue
        best = before[2]
        after_move = {}
        for k, agent in enumerate(agents):
            agent.set_position(history_fen, moves)
            move = agent.bestmove(nodes)
            if move not in after_move:
                child = judge(labeller, history_fen, moves + [move], args.label_nodes)
                # The child is scored for the opponent; a finished game
                # (mate or stalemate) has no search line.
                after_move[move] = child
            child = after_move[move]
            if child is None:
                es_loss, cp_loss = 0.0, 0.0  # the move ended the game: mate (or stalemate) given
            else:
                es_loss = max(0.0, before[0] - (100 - child[0]))
                cp_loss = max(0, before[1] + child[1])
            results[k].append((move == best, es_loss, cp_loss))
        if args.progress_every and (i + 1) % args.progress_every == 0:
            print(f"agent_loss: {i + 1}/{len(rows)} positions", file=sys.stderr, flush=True)
    labeller.close()
    for agent in agents:
        agent.close()

    n = len(results[0])
    agent = args.agent + (f" ({nodes} visits)" if nodes else "")
    print(f"{n} positions, Stockfish {args.label_nodes} nodes, {agent} agent")
    print(f"{'network':12s} " + " ".join(f"{h:>14s}" for h in ("best move", "ES loss", "cp loss", "blunders")))
    for (name, _), res in zip(nets, results):
        agree = mean_ci([100.0 * r[0] for r in res])
        es = mean_ci([r[1] for r in res])
        cp = mean_ci([r[2] for r in res])
        bl = mean_ci([100.0 * (r[2] >= BLUNDER_CP) for r in res])
        cells = [f"{agree[0]:.1f}±{agree[1]:.1f}%", f"{es[0]:.2f}±{es[1]:.2f}",
                 f"{cp[0]:.1f}±{cp[1]:.1f}", f"{bl[0]:.1f}±{bl[1]:.1f}%"]
        print(f"{name:12s} " + " ".join(f"{c:>14s}" for c in cells))
    for j in range(1, len(nets)):
        for i in range(j):
            diff = mean_ci([a[1] - b[1] for a, b in zip(results[j], results[i])])
            print(f"{nets[j][0]} - {nets[i][0]}: ES loss {diff[0]:+.2f} ± {diff[1]:.2f} per move "
                  f"(negative: {nets[j][0]} gives away less)")


if __name__ == "__main__":
    main()
