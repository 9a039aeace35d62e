"""Writes the trainer parity fixtures: small random training/model.py nets,
one per position encoding (RPE, and the lc0-map layout Lc0 runs), exported
with training/export.py, and their PyTorch outputs on the parity positions,
in the parity case schema (data/parity/README.md).

    /usr/bin/python3 training/parity/make_parity.py [--testdata DIR]

Outputs (committed; tests/training/test_train_parity.c imports each
safetensors with `netconv import` and checks cformer's forward pass against
the JSONL within 1e-4), for NET in cf-tiny-2x32 (RPE) and cf-tiny-map-2x32
(lc0-map):

    training/parity/NET.safetensors   model.py names, float32
    training/parity/NET.json          netconv config (input format 4)
    training/parity/NET.jsonl         expected outputs per position

The positions and their input planes are those of the input-format-4 parity
net (lc0-smolgen-relu2.jsonl: planes as Lc0 encodes them), so the expected
outputs depend on nothing cformer computes. The forward pass runs in float64
on the float32 weights the file holds.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import deps  # noqa: E402

# main() parses the arguments before it needs these: --help works without
# numpy/torch, and a real run names the missing package (deps.py).
with deps.deferred(__name__):
    import torch
    from model import Chessformer
    import export

NETS = {"cf-tiny-2x32": "rpe", "cf-tiny-map-2x32": "lc0-map"}
SOURCE_CASES = "lc0-smolgen-relu2.jsonl"  # input format 4, the default net's format


def tiny_model(pos_encoding):
    torch.manual_seed(20261123)
    net = Chessformer(layers=2, d=32, heads=4, dff=64, value_cv=8, pos_encoding=pos_encoding)
    with torch.no_grad():  # gates, norms, biases and RPE start at constants: make them matter
        for p in net.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return net.eval()


def planes_of(case):
    x = torch.zeros(1, 112, 64, dtype=torch.float64)
    for j, p in enumerate(case["planes"]):
        mask = int(p["mask"], 16)
        for sq in range(64):
            if mask >> sq & 1:
                x[0, j, sq] = p["value"]
    return x


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--testdata", default=os.path.join(HERE, "..", "..", "data"))
    args = p.parse_args()
    deps.check()
    for name, pos_encoding in NETS.items():
        write_fixture(name, tiny_model(pos_encoding), args.testdata)


def write_fixture(name, net, testdata):
    cfg = {"model": net.config}
    st_path = os.path.join(HERE, name + ".safetensors")
    export.export(net.state_dict(), cfg, 4, st_path)
    # The truth is computed from exactly the float32 values in the file.
    tensors, _ = export.read_safetensors(st_path)
    net.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in tensors.items()})
    net = net.double()
    out_lines = []
    with open(os.path.join(testdata, "parity", SOURCE_CASES)) as f:
        for line in f:
            c = json.loads(line)
            assert c["input_format"] == 4
            with torch.no_grad():
                o = net(planes_of(c))
            pol = o["policy"][0]
            wdl = torch.softmax(o["wdl"][0], 0).tolist()
            out = {k: c[k] for k in ("id", "fen", "moves", "input_format", "transform", "planes")}
            out.update({
                "wdl": [float("%.9g" % v) for v in wdl],
                "q": float("%.9g" % (wdl[0] - wdl[2])),
                "moves_left": None,
                "value_heads": {},
                "policy": {"vanilla": {u: float("%.9g" % pol[i].item())
                                       for u, i in c["policy_index"].items()}},
                "policy_index": c["policy_index"],
                "source": "training/model.py float64 forward pass (training/parity/make_parity.py)",
            })
            out_lines.append(json.dumps(out, separators=(",", ":")))
    with open(os.path.join(HERE, name + ".jsonl"), "w") as f:
        f.write("\n".join(out_lines) + "\n")
    print(f"wrote {name}.safetensors, {name}.json and {name}.jsonl ({len(out_lines)} positions)")


if __name__ == "__main__":
    main()
