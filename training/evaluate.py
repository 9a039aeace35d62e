#!/usr/bin/python3
"""Scores networks on held-out records: the trainer's validation metrics,
split into positions from played games and positions off the games' path.

    /usr/bin/python3 training/evaluate.py --data DIR A.safetensors [B.safetensors ...]

DIR/val.cfpack (`cformer pack-data --out DIR`) is read in full (or its first
--positions records, or every --every-th). A record whose game result is unknown is one that
datagen.py labelled off the game's path (a random child, `--child-rate`) or
from a game cut at the ply limit; those are the positions the value agent
meets when it scores every legal move, blunders included. For each network
and each group it prints the policy loss and top-1 agreement with
Stockfish's best move, and the value loss and WDL accuracy against
Stockfish's WDL alone (no game result mixed in, so the groups compare).

Weights are model.py's names in float32 safetensors (`training/export.py`,
or `netconv export NET.pb.gz`); --layers/--d/--heads/--dff/--value-cv give
the shape (defaults: the shipped default network's). Each file's position
encoding is read from its names: RPE tables mean model.py's RPE layout,
none the lc0-map layout (train.py --pos-encoding).
"""

import argparse
import os
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import deps  # noqa: E402

# main() parses the arguments before it needs these: --help works without
# numpy/torch, and a real run names the missing package (deps.py).
with deps.deferred(__name__):
    import numpy as np
    import torch
    from model import Chessformer
    import export
    import fast_attention
    import packed
    import train


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("weights", nargs="+", help="safetensors files (model.py names)")
    ap.add_argument("--data", required=True, help="folder with val.cfpack")
    ap.add_argument("--positions", type=int, default=0, help="first N records only (0 = all)")
    ap.add_argument("--every", type=int, default=1,
                    help="every K-th record only (a sample across the whole file)")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--dff", type=int, default=0, help="FFN width (default 2 d)")
    ap.add_argument("--value-cv", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    deps.check()
    torch.set_num_threads(args.threads)
    fast_attention.install(True)
    path = os.path.join(args.data, "val.cfpack")
    try:
        val = packed.PackFile(path)
    except (OSError, packed.PackError) as e:
        sys.exit(f"evaluate.py: {e}")
    if args.every < 1:
        sys.exit("evaluate.py: --every must be at least 1")
    recs = np.asarray(val.records[: args.positions or len(val)][:: args.every])
    on_path = recs["result"] != packed.RESULT_UNKNOWN
    groups = [("all", recs), ("game positions", recs[on_path]), ("off path", recs[~on_path])]
    shape = dict(layers=args.layers, d=args.d, heads=args.heads, dff=args.dff or 2 * args.d,
                 value_cv=args.value_cv)
    print(f"{path}: {len(recs)} records ({int(on_path.sum())} from games, "
          f"{int((~on_path).sum())} off path or unfinished)")
    print(f"{'network':40s} {'group':15s} {'policy':>7s} {'top-1':>6s} {'value':>7s} {'WDL acc':>7s}")
    for w in args.weights:
        try:
            names = export.read_safetensors(w)[0]
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"evaluate.py: {w}: {e}")
        pos_encoding = "rpe" if "encoder.0.mha.rpe_q" in names else "lc0-map"
        model = Chessformer(**shape, pos_encoding=pos_encoding)
        train.load_init(model, w)
        for name, g in groups:
            if g.shape[0] == 0:
                continue
            pl, top1, vl, acc, n = train.metric_sums(model, g, best_weight=0.25, result_weight=0.0)
            print(f"{os.path.basename(w)[:40]:40s} {name:15s} {pl / n:7.4f} {100 * top1 / n:5.1f}% "
                  f"{vl / n:7.4f} {100 * acc / n:6.1f}%", flush=True)


if __name__ == "__main__":
    main()
