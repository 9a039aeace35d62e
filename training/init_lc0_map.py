#!/usr/bin/python3
"""Turns an RPE network's weights into a starting point for an lc0-map run.

    /usr/bin/python3 training/init_lc0_map.py RPE.safetensors -o INIT.safetensors
    /usr/bin/python3 training/train.py --pos-encoding lc0-map --init INIT.safetensors ...

RPE.safetensors holds model.py's names in float32 (`netconv export NET.pb.gz`
or export.py), as the default network exports. The output has the names
and shapes of model.py's lc0-map layout (train.py --pos-encoding lc0-map)
of the same width and depth:

  * every tensor the two layouts share is copied unchanged;
  * the RPE tables (rpe_q, rpe_k, rpe_v) are dropped;
  * the embedding gains 64 input columns for Lc0's positional table, all
    zero, so the embedding computes exactly what it did;
  * q/k/v biases and the LayerNorm betas (which the RPE layout lacks) start
    at zero; the LayerNorm gains are the RMSNorm gains.

The result is not the same function (no RPE, and LayerNorm centres where
RMSNorm did not); it is the nearest start, which fine-tuning then adapts.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import deps  # noqa: E402

with deps.deferred(__name__):
    import numpy as np
    import export

RPE_SUFFIXES = (".mha.rpe_q", ".mha.rpe_k", ".mha.rpe_v")


def convert(tensors):
    """name -> float32 array of the RPE layout -> the lc0-map layout's dict.
    ValueError when the input is not an RPE network in model.py's names."""
    if "embedding.weight" not in tensors or "encoder.0.mha.rpe_q" not in tensors:
        raise ValueError("not an RPE network in model.py's names "
                         "(no embedding.weight or encoder.0.mha.rpe_q)")
    out = {}
    layers = set()
    for name, a in tensors.items():
        if name.endswith(RPE_SUFFIXES):
            layers.add(name.split(".")[1])
            continue
        out[name] = np.asarray(a, dtype=np.float32)
    w = out["embedding.weight"]
    if w.ndim != 2 or w.shape[1] != 112:
        raise ValueError(f"embedding.weight is {w.shape}, expected [d][112]")
    out["embedding.weight"] = np.concatenate([w, np.zeros((w.shape[0], 64), np.float32)], axis=1)
    for n in sorted(layers, key=int):
        p = f"encoder.{n}."
        dm = out[p + "mha.wq.weight"].shape[0]
        for proj in ("wq", "wk", "wv"):
            out[p + f"mha.{proj}.bias"] = np.zeros(dm, np.float32)
        for ln in ("ln1", "ln2"):
            out[p + f"{ln}.bias"] = np.zeros_like(out[p + f"{ln}.weight"])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("weights", help="RPE network, model.py names, float32 safetensors")
    ap.add_argument("-o", "--out", required=True, help="output .safetensors for train.py --init")
    args = ap.parse_args(argv)
    deps.check()
    try:
        tensors, _ = export.read_safetensors(args.weights)
        out = convert(tensors)
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
        sys.exit(f"init_lc0_map.py: {args.weights}: {e}")
    export.write_safetensors(args.out, out)
    print(f"init_lc0_map.py: {args.out}: {len(out)} tensors "
          f"({len(tensors)} in, RPE tables dropped, embedding 112 -> 176 inputs)")


if __name__ == "__main__":
    main()
