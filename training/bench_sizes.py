"""Training throughput of candidate model sizes, measured side by side.

    nice -n 10 /usr/bin/python3 training/bench_sizes.py --data PACK_DIR \
        [--sizes 4x64,6x64,6x96,6x128] [--threads 2] [--batch 64] [--steps 3] [--rounds 2]

Each round runs every size once (full training steps: decode, forward,
backward, AdamW), in turn, so a busy shared machine slows all sizes alike;
the table gives each size's best round in positions per second of wall time,
the CPU time per position, and the ratio to the first size.
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import deps  # noqa: E402

# main() parses the arguments before it needs these: --help works without
# numpy/torch, and a real run names the missing package (deps.py).
with deps.deferred(__name__):
    import torch
    from model import Chessformer
    import fast_attention
    import packed
    import train


def one_round(model, opt, data, cfg, steps, first_step):
    t0, c0 = time.monotonic(), time.process_time()
    for s in range(steps):
        b = train.to_torch(train.sample_batch(data, first_step + s, cfg))
        pl, vl = train.losses(model, b)[:2]
        opt.zero_grad(set_to_none=True)
        (pl + 1.5 * vl).backward()
        opt.step()
    n = steps * cfg["batch"]
    return n / (time.monotonic() - t0), (time.process_time() - c0) / n


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True)
    p.add_argument("--sizes", default="4x64,6x64,6x96,6x128", help="LAYERSxD list")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--reference-attention", action="store_true",
                   help="time model.py's own attention code instead of fast_attention.py's")
    args = p.parse_args()
    deps.check()
    torch.set_num_threads(args.threads)
    fast_attention.install(not args.reference_attention)
    data = packed.PackFile(os.path.join(args.data, "train.cfpack"))
    cfg = {"seed": 1, "batch": args.batch, "best_weight": 0.25, "result_weight": 0.2}
    runs = []
    for spec in args.sizes.split(","):
        layers, d = (int(v) for v in spec.lower().split("x"))
        m = Chessformer(layers=layers, d=d, heads=max(1, d // 16), dff=2 * d, value_cv=32)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
        one_round(m, opt, data, cfg, 1, 0)  # warm-up: allocations, first-touch pages
        runs.append((spec, m, opt, sum(q.numel() for q in m.parameters()), []))
    for r in range(args.rounds):
        for spec, m, opt, _, res in runs:
            res.append(one_round(m, opt, data, cfg, args.steps, 1000 * (r + 1)))
            print(f"round {r + 1} {spec}: {res[-1][0]:.1f} pos/s", flush=True)
    base = max(x[0] for x in runs[0][4])
    print(f"\n{'size':>7} {'params':>9} {'pos/s':>7} {'cpu ms/pos':>10} {'vs first':>8}")
    for spec, _, _, params, res in runs:
        best = max(res, key=lambda x: x[0])
        print(f"{spec:>7} {params:>9} {best[0]:>7.1f} {1000 * best[1]:>10.2f} "
              f"{best[0] / base:>8.2f}")
    print(f"({'reference' if args.reference_attention else 'fast'} attention, "
          f"threads {args.threads}, batch {args.batch}, {args.steps} steps x {args.rounds} "
          f"rounds, load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
