"""Exports a train.py checkpoint for `netconv import`.

    /usr/bin/python3 training/export.py RUN_DIR/latest.pt -o NET.safetensors

writes NET.safetensors (model.py's state_dict names, "our trainer's naming"
in docs/TRAINER_NAMES.md, every tensor float32 [out][in] as nn.Linear keeps
it) and NET.json, the netconv config (input format, heads, activation and
the shape checks). The config is also stored in the safetensors
__metadata__ (`cformer_config`), which netconv reads when no --config is
given. Then:

    netconv import NET.safetensors --config NET.json -o NET.pb.gz

safetensors is written by hand (numpy only): an 8-byte little-endian header
length, the JSON header (names, dtype, shape, byte offsets; padded with
spaces to a multiple of 8), then the raw little-endian tensor bytes.
"""

import argparse
import json
import os
import struct
import sys

import deps

# main() parses the arguments before it needs numpy (and imports torch
# itself): --help works without them, and a real run names the missing
# package (deps.py).
with deps.deferred(__name__):
    import numpy as np


def netconv_config(cfg, input_format):
    m = cfg["model"]
    return {"input_format": int(input_format), "heads": int(m["heads"]),
            "default_activation": "mish", "layers": int(m["layers"]),
            "embedding_size": int(m["d"]), "embedding": "old", "naming": "ours"}


def write_safetensors(path, tensors, metadata=None):
    """tensors: name -> numpy array (written as float32, C order)."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], dtype="<f4")
        data = a.tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def read_safetensors(path):
    """The inverse (name -> float32 array, metadata dict), for tests and for
    train.py --init; reads F32 files as export.py and `netconv export` write
    them. ValueError on anything else."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    meta = header.pop("__metadata__", {})
    out = {}
    for name, e in header.items():
        if e.get("dtype") != "F32":
            raise ValueError(f"{path}: tensor {name} is {e.get('dtype')}, only F32 is read")
        a, b = e["data_offsets"]
        out[name] = np.frombuffer(data[a:b], "<f4").reshape(e["shape"])
    return out, meta


def export(state_dict, cfg, input_format, out_path):
    """Writes out_path (.safetensors) and its .json config; returns the config."""
    tensors = {k: v.detach().cpu().float().numpy() for k, v in state_dict.items()}
    nc = netconv_config(cfg, input_format)
    write_safetensors(out_path, tensors, {"cformer_config": json.dumps(nc)})
    json_path = os.path.splitext(out_path)[0] + ".json"
    with open(json_path, "w") as f:
        json.dump(nc, f, indent=2)
        f.write("\n")
    return nc


def main(argv=None):
    p = argparse.ArgumentParser(description="train.py checkpoint -> safetensors + netconv config")
    p.add_argument("checkpoint", help="a train.py checkpoint (RUN_DIR/latest.pt or step-N.pt)")
    p.add_argument("-o", "--out", required=True, help="output .safetensors path")
    p.add_argument("--config", help="the run's config.json (default: next to the checkpoint)")
    args = p.parse_args(argv)
    deps.check()
    torch = deps.require("torch")  # only here: the rest of this module needs numpy alone
    cfg_path = args.config or os.path.join(os.path.dirname(os.path.abspath(args.checkpoint)),
                                           "config.json")
    try:
        with open(cfg_path) as f:
            cfg = json.load(f)
        ck = torch.load(args.checkpoint, map_location="cpu")
    except (OSError, ValueError, RuntimeError) as e:
        sys.exit(f"export.py: {e}")
    nc = export(ck["model"], cfg, cfg["input_format"], args.out)
    state = ck.get("state", {})
    print(f"export.py: {args.out} ({len(ck['model'])} tensors, step {state.get('step')}, "
          f"{state.get('positions')} positions) and {os.path.splitext(args.out)[0]}.json "
          f"{json.dumps(nc)}")


if __name__ == "__main__":
    main()
