#!/usr/bin/env python3
"""The twin network with a moves-left head, for comparing Lc0's moves-left
options (MovesLeftMaxEffect etc.) with Lc0 (scripts/options_vs_lc0.py
--ml-net): the twin's body, value and policy heads, and a random moves-left
head in Lc0's layout, which Lc0 loads.

The head comes from `netconv random` with the twin's shape (seed 46). Its
last layer is negated and scaled by 40: as drawn, its output is below zero
before the head's ReLU on every position, so the net would predict 0 plies
everywhere and the utility would have nothing to act on; so changed it
predicts several plies, different for different positions (on the rook
endgame of options_vs_lc0.py, 6.2 to 7.9 over the root's children). It is
not a trained head: its numbers mean nothing about chess, only that both
engines are given the same ones.

Usage: twin_ml_net.py [--netconv PATH] [--twin NET] -o OUT.pb.gz
Exit status: 0 written, 1 a step failed.
"""
import argparse
import array
import json
import os
import struct
import subprocess
import sys
import tempfile

SCALE = -40.0  # the moves-left head's last layer (weights and bias) times this
SEED = "46"


def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    n = struct.unpack("<Q", blob[:8])[0]
    return json.loads(blob[8:8 + n]), blob[8 + n:]


def graft(twin_path, ml_path, out_path):
    """twin's tensors plus ml's moves-left head (ml_*), its last layer scaled."""
    twin_h, twin_d = read_safetensors(twin_path)
    ml_h, ml_d = read_safetensors(ml_path)
    header, chunks, offset = {"__metadata__": twin_h["__metadata__"]}, [], 0
    sources = [(twin_h, twin_d, [k for k in twin_h if k != "__metadata__"]),
               (ml_h, ml_d, [k for k in ml_h if k.startswith("ml_")])]
    for h, d, keys in sources:
        for key in keys:
            start, end = h[key]["data_offsets"]
            data = d[start:end]
            if key.startswith("ml_dense2."):
                if h[key]["dtype"] != "F32":
                    raise ValueError(f"{key}: expected F32, got {h[key]['dtype']}")
                data = array.array("f", [x * SCALE for x in array.array("f", data)]).tobytes()
            header[key] = {"dtype": h[key]["dtype"], "shape": h[key]["shape"],
                           "data_offsets": [offset, offset + len(data)]}
            chunks.append(data)
            offset += len(data)
    if not any(k.startswith("ml_dense2.") for k in header):
        raise ValueError("the random net has no moves-left head (ml_dense2)")
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(out_path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def main(argv=None):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--netconv", default=os.path.join(root, "build", "tools", "netconv", "netconv"))
    p.add_argument("--twin", default=os.path.join(root, "data", "twin", "cformer-twin.pb.gz"))
    p.add_argument("-o", "--output", required=True)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        twin_st, ml_net, ml_st, joined = (os.path.join(tmp, n) for n in
                                          ("twin.safetensors", "ml.pb.gz", "ml.safetensors",
                                           "joined.safetensors"))
        steps = [
            [args.netconv, "export", args.twin, "-o", twin_st],
            [args.netconv, "random", "--layers", "4", "--embedding", "64", "--heads", "4",
             "--dff", "128", "--gating", "--pos-table", "--input", "4", "--moves-left",
             "--seed", SEED, "-o", ml_net],
            [args.netconv, "export", ml_net, "-o", ml_st],
        ]
        try:
            for step in steps:
                subprocess.run(step, check=True, stdout=subprocess.DEVNULL)
            graft(twin_st, ml_st, joined)
            subprocess.run([args.netconv, "import", joined, "--encoding", "linear16",
                            "-o", args.output], check=True, stdout=subprocess.DEVNULL)
        except (OSError, subprocess.CalledProcessError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
