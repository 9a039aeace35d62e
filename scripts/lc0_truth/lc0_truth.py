#!/usr/bin/python3
"""Writes Lc0's outputs for a network on the parity positions as a parity
case file (the schema of data/parity/README.md).

    scripts/lc0_truth/lc0_truth.py --lc0dump LC0DUMP --net NET.pb.gz \
        --cases data/parity/lc0-smolgen-relu2.jsonl -o NET.jsonl

LC0DUMP is lc0dump.cc (this folder) built against an Lc0 build tree: it
loads NET with Lc0's loader, encodes each position with Lc0's own encoder
(HistoryFill fen_only) and runs Lc0's `blas` backend at batch 1, printing the
transform, the 112 planes, Q, D and the 1858 raw policy logits.

--cases is an existing Lc0-truth case file of the same input format; its
positions (fen, moves) are replayed, and its planes and transform must equal
what Lc0 encodes now (a check that the positions and the encoder are the
same). Each legal move's logit is read from the 1858 vector at the case's
policy_index (data/parity/README.md explains why not Lc0's own move map).
W/D/L come from Lc0's Q and D: W = (1 + Q - D) / 2, L = (1 - Q - D) / 2.
"""

import argparse
import json
import subprocess
import sys


def parse_dump_line(line):
    f = line.split()
    transform = int(f[0])
    planes = [{"mask": f[1 + 2 * j], "value": float(f[2 + 2 * j])} for j in range(112)]
    q, d = float(f[225]), float(f[226])
    policy = [float(x) for x in f[227:]]
    if len(policy) != 1858:
        raise ValueError(f"dump line has {len(policy)} policy values, expected 1858")
    return transform, planes, q, d, policy


def g9(v):
    return float("%.9g" % v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lc0dump", required=True, help="the built lc0dump binary")
    ap.add_argument("--net", required=True, help="the network (.pb.gz)")
    ap.add_argument("--cases", required=True, help="an Lc0-truth case file of the net's input format")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--source", default="lc0 v0.33-dev blas")
    args = ap.parse_args()
    cases = [json.loads(x) for x in open(args.cases) if x.strip()]
    stdin = "".join(f"{c['fen']}\t{' '.join(c['moves'])}\n" for c in cases)
    r = subprocess.run([args.lc0dump, args.net], input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"lc0_truth.py: lc0dump failed: {r.stderr[-2000:]}")
    lines = [x for x in r.stdout.splitlines() if x and x[0].isdigit()]
    if len(lines) != len(cases):
        sys.exit(f"lc0_truth.py: {len(lines)} dump lines for {len(cases)} cases")
    out = []
    for c, line in zip(cases, lines):
        transform, planes, q, d, pol = parse_dump_line(line)
        if transform != c["transform"]:
            sys.exit(f"lc0_truth.py: {c['id']}: transform {transform}, case says {c['transform']}")
        for j, (a, b) in enumerate(zip(planes, c["planes"])):
            if int(a["mask"], 16) != int(b["mask"], 16) or (int(a["mask"], 16) and a["value"] != b["value"]):
                sys.exit(f"lc0_truth.py: {c['id']}: plane {j} differs from the case file")
        w, l = (1 + q - d) / 2, (1 - q - d) / 2
        o = {k: c[k] for k in ("id", "fen", "moves", "input_format", "transform", "planes")}
        o.update({
            "wdl": [g9(w), g9(d), g9(l)],
            "q": g9(q),
            "moves_left": None,
            "value_heads": {},
            "policy": {"vanilla": {u: g9(pol[i]) for u, i in c["policy_index"].items()}},
            "policy_index": c["policy_index"],
            "source": args.source,
        })
        out.append(json.dumps(o, separators=(",", ":")))
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"lc0_truth.py: wrote {args.out} ({len(out)} positions)")


if __name__ == "__main__":
    main()
