#!/usr/bin/env python3
"""How far bf16 and int8 move a network's outputs from float32.

Runs `cformer eval` once per precision on the oneDNN backend over the same
positions and compares each reduced precision with float32: W/D/L and Q
(max and mean |difference|), the policy as probabilities over the legal
moves (softmax of the logits; max and mean |difference|, and the mean total
variation distance), and top-1 move agreement. docs/BACKENDS.md
"Precision" shows its output.

Positions (no chess library needed: a position is a FEN plus UCI moves,
which cformer replays): every puzzle of data/puzzles before and after each
move of its solution, every prefix of every line of data/match/openings.txt,
and the parity positions; with --games LOG, every position of the games in
a cformer LogFile (each `position` line the engine read, and every prefix
of its moves: both sides' positions of real games, such as those of a
`cformer-match --copt LogFile=LOG` run); duplicates removed. --limit N
keeps the first N. --value-agent N also plays the value agent (every legal
child evaluated, through the UCI engine) at each precision on the first N
positions with a legal move, and gives its move agreement with f32.

A precision entry may carry more backend options after colons, each passed
on with it: `int8:f32_roles=embedding` runs precision=int8,f32_roles=embedding
(the input embedding kept in float32), `int8:f32_roles=embedding+heads`
the heads as well (docs/PRECISION.md "f32_roles").

  tools/bench/precision_accuracy.py --cformer build/tools/cformer \\
      --weights '<built in>' [--precisions bf16,int8,int8:f32_roles=embedding]
      [--limit N] [--games LOG]
      [--value-agent N] [--json]
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def log_games(path):
    """(fen, moves) of every `position` line a cformer LogFile shows read."""
    games = []
    with open(path, errors="replace") as f:
        for line in f:
            at = line.find(" >> position ")
            if at < 0:
                continue
            words = line[at + len(" >> position "):].split()
            if not words:
                continue
            if words[0] == "startpos":
                fen, rest = START, words[1:]
            elif words[0] == "fen" and len(words) >= 7:
                fen, rest = " ".join(words[1:7]), words[7:]
            else:
                continue
            moves = rest[1:] if rest and rest[0] == "moves" else []
            games.append((fen, moves))
    return games


def positions(game_logs=()):
    seen, out = set(), []

    def add(pid, fen, moves):
        key = (fen, tuple(moves))
        if key not in seen:
            seen.add(key)
            out.append({"id": pid, "fen": fen, "moves": list(moves)})

    start = START
    with open(os.path.join(ROOT, "data/puzzles/lichess_puzzles_public.csv"), newline="") as f:
        for row in csv.DictReader(f):
            line = row["Moves"].split()
            for k in range(len(line) + 1):
                add(f"{row['PuzzleId']}+{k}", row["FEN"], line[:k])
    with open(os.path.join(ROOT, "data/match/openings.txt")) as f:
        for n, text in enumerate(f):
            line = text.split("#", 1)[0].split()
            for k in range(len(line) + 1):
                add(f"opening{n}+{k}", start, line[:k])
    with open(os.path.join(ROOT, "data/parity/lc0-smolgen-relu2.jsonl")) as f:
        for text in f:
            c = json.loads(text)
            add(c["id"], c["fen"], c["moves"])
    for g, path in enumerate(game_logs):
        for n, (fen, moves) in enumerate(log_games(path)):
            for k in range(len(moves) + 1):
                add(f"log{g}.{n}+{k}", fen, moves[:k])
    return out


def backend_options(entry):
    """A --precisions entry ("int8" or "int8:f32_roles=embedding") as the
    backend option string "precision=int8,f32_roles=embedding"."""
    precision, *extra = entry.split(":")
    return ",".join([f"precision={precision}"] + extra)


def run_eval(cformer, weights, precision, cases_path, threads, batch):
    cmd = [cformer, "eval", "--weights", weights, "--cases", cases_path, "--backend", "onednn",
           "--backend-opts", backend_options(precision), "--threads", str(threads),
           "--batch", str(batch)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}")
    return [json.loads(line) for line in res.stdout.splitlines() if line.strip()]


def value_agent_moves(cformer, weights, precision, pos):
    """The value agent's move (every legal child evaluated) in each position,
    through the UCI engine on onednn at this precision."""
    setup = ["uci", "setoption name WeightsFile value " + weights, "setoption name Backend value onednn",
             f"setoption name BackendOptions value {backend_options(precision)}",
             "setoption name Agent value value", "isready"]
    script = []
    for p in pos:
        moves = " moves " + " ".join(p["moves"]) if p["moves"] else ""
        script += [f"position fen {p['fen']}{moves}", "go nodes 1000", "isready"]
    script.append("quit")
    # The engine loads the network off its input thread and `quit` gives a
    # load only a moment: wait for the setup's readyok (the load done)
    # before sending the positions, or a quit read during a slow load drops
    # the queued searches.
    proc = subprocess.Popen([cformer], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdin.write("\n".join(setup) + "\n")
    proc.stdin.flush()
    head = []
    for line in proc.stdout:
        head.append(line)
        if line.strip() == "readyok":
            break
    try:
        out, err = proc.communicate("\n".join(script) + "\n")
    except BrokenPipeError:  # it exited before the positions: its status says why
        out, err = proc.stdout.read(), proc.stderr.read()
        proc.wait()
    stdout = "".join(head) + out
    if proc.returncode != 0:
        sys.exit(f"cformer (value agent, {precision}) failed ({proc.returncode}): {err.strip()}")
    errors = [line for line in stdout.splitlines() if line.startswith("info string error")]
    if errors:
        sys.exit(f"cformer (value agent, {precision}): {errors[0]}")
    best = [line.split()[1] for line in stdout.splitlines() if line.startswith("bestmove ")]
    if len(best) != len(pos):
        sys.exit(f"cformer (value agent, {precision}): {len(best)} moves for {len(pos)} positions")
    return best


def softmax(logits):
    m = max(logits)
    e = [math.exp(v - m) for v in logits]
    s = sum(e)
    return [v / s for v in e]


def compare(ref, got):
    st = {"wdl_max": 0.0, "wdl_sum": 0.0, "q_max": 0.0, "q_sum": 0.0, "p_max": 0.0,
          "p_sum": 0.0, "p_n": 0, "tv_sum": 0.0, "agree": 0, "n": 0}
    for a, b in zip(ref, got):
        if a["id"] != b["id"]:
            sys.exit(f"output order differs: {a['id']} vs {b['id']}")
        st["n"] += 1
        for x, y in zip(a["wdl"], b["wdl"]):
            d = abs(x - y)
            st["wdl_max"] = max(st["wdl_max"], d)
            st["wdl_sum"] += d / 3
        d = abs(a["q"] - b["q"])
        st["q_max"] = max(st["q_max"], d)
        st["q_sum"] += d
        head = next(iter(a["policy"]))
        moves = list(a["policy"][head])
        if not moves:
            st["agree"] += 1
            continue
        pa = softmax([a["policy"][head][m] for m in moves])
        pb = softmax([b["policy"][head][m] for m in moves])
        diffs = [abs(x - y) for x, y in zip(pa, pb)]
        st["p_max"] = max(st["p_max"], max(diffs))
        st["p_sum"] += sum(diffs)
        st["p_n"] += len(diffs)
        st["tv_sum"] += sum(diffs) / 2
        st["agree"] += pa.index(max(pa)) == pb.index(max(pb))
    n = max(st["n"], 1)
    return {"positions": st["n"], "wdl_max": st["wdl_max"], "wdl_mean": st["wdl_sum"] / n,
            "q_max": st["q_max"], "q_mean": st["q_sum"] / n, "policy_max": st["p_max"],
            "policy_mean": st["p_sum"] / max(st["p_n"], 1), "policy_tv_mean": st["tv_sum"] / n,
            "top1_agreement": st["agree"] / n}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cformer", default=os.path.join(ROOT, "build/tools/cformer"))
    ap.add_argument("--weights", default="<built in>")
    ap.add_argument("--precisions", default="bf16,int8",
                    help="comma-separated entries, each a precision with optional ':'-separated "
                         "backend options, e.g. int8:f32_roles=embedding+heads")
    ap.add_argument("--limit", type=int, default=0, help="first N positions only")
    ap.add_argument("--games", action="append", default=[], metavar="LOG",
                    help="also every position of the games in this cformer LogFile (repeatable)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--value-agent", type=int, default=0, metavar="N",
                    help="also the value agent's move agreement with f32 on the first N positions")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    for path in args.games:
        if not os.path.isfile(path):
            sys.exit(f"--games: no such file '{path}'")
    pos = positions(args.games)
    if args.limit:
        pos = pos[:args.limit]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for p in pos:
            f.write(json.dumps(p) + "\n")
        cases = f.name
    try:
        print(f"{len(pos)} positions, {args.weights}", file=sys.stderr)
        ref = run_eval(args.cformer, args.weights, "f32", cases, args.threads, args.batch)
        report = {"weights": args.weights, "positions": len(pos), "vs_f32": {}}
        for p in args.precisions.split(","):
            print(f"  {p} ...", file=sys.stderr)
            got = run_eval(args.cformer, args.weights, p, cases, args.threads, args.batch)
            report["vs_f32"][p] = compare(ref, got)
        if args.value_agent:
            # positions with a legal move (a finished game has nothing to choose)
            playable = {a["id"] for a in ref if a["policy"] and next(iter(a["policy"].values()))}
            some = [q for q in pos if q["id"] in playable][:args.value_agent]
            print(f"  value agent, {len(some)} positions ...", file=sys.stderr)
            base = value_agent_moves(args.cformer, args.weights, "f32", some)
            for p in args.precisions.split(","):
                got = value_agent_moves(args.cformer, args.weights, p, some)
                report["vs_f32"][p]["value_agent_positions"] = len(some)
                report["vs_f32"][p]["value_agent_agreement"] = (
                    sum(a == b for a, b in zip(base, got)) / max(len(some), 1))
    finally:
        os.unlink(cases)
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{report['weights']}: {report['positions']} positions, each precision vs f32")
    va = args.value_agent > 0
    print("| precision | W/D/L max | W/D/L mean | Q max | Q mean | policy max | policy mean "
          "| policy TV mean | top-1 agreement |" + (" value agent agreement |" if va else ""))
    print("|---" * (10 if va else 9) + "|")
    for p, r in report["vs_f32"].items():
        print(f"| {p} | {r['wdl_max']:.2e} | {r['wdl_mean']:.2e} | {r['q_max']:.2e} "
              f"| {r['q_mean']:.2e} | {r['policy_max']:.2e} | {r['policy_mean']:.2e} "
              f"| {r['policy_tv_mean']:.2e} | {100 * r['top1_agreement']:.2f}% |"
              + (f" {100 * r['value_agent_agreement']:.2f}% of {r['value_agent_positions']} |"
                 if va else ""))


if __name__ == "__main__":
    main()
