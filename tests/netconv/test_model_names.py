"""test_model_names: our trainer's naming is exactly training/model.py's
state_dict, and a net imported from it computes what the PyTorch model does.

A Chessformer (training/model.py) with seeded random weights is written as
safetensors straight from its state_dict (no renaming), imported with
`netconv import`, then `cformer eval` runs a few positions; the model is fed
the very input planes cformer reports and every legal move's policy logit,
W/D/L and moves-left must agree.

usage: test_model_names.py NETCONV CFORMER SOURCE_ROOT   (exit 77: no torch)
"""

import json
import os
import struct
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError:
    print("torch not available: skipped")
    sys.exit(77)

NETCONV, CFORMER, ROOT = sys.argv[1:4]
sys.path.insert(0, os.path.join(ROOT, "training"))
import model as trainer  # noqa: E402

FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 12 30",
    "8/2P3k1/8/8/8/8/5Kp1/8 w - - 3 60",
]


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().to(torch.float32).contiguous().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def main():
    torch.manual_seed(1)
    net = trainer.Chessformer(layers=2, d=32, heads=4, dff=64, value_cv=4, moves_left_cm=4)
    with torch.no_grad():  # gates, norms and RPE start at constants: make them matter
        for p in net.parameters():
            p.add_(0.1 * torch.randn_like(p))
    net.eval()
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = os.path.join(tmp, "ckpt.safetensors")
        cfg = os.path.join(tmp, "net.yaml")
        out = os.path.join(tmp, "net.pb.gz")
        write_safetensors(ckpt, net.state_dict())
        with open(cfg, "w") as f:
            f.write("input_format: 1\nheads: 4\nnaming: ours\n")
        r = subprocess.run([NETCONV, "import", ckpt, "--config", cfg, "-o", out],
                           capture_output=True, text=True)
        print(r.stdout, r.stderr)
        assert r.returncode == 0, "import of model.py's state_dict failed"
        cases = "".join(json.dumps({"id": str(i), "fen": fen, "moves": []}) + "\n"
                        for i, fen in enumerate(FENS))
        r = subprocess.run([CFORMER, "eval", "--weights", out], input=cases,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        worst = 0.0
        for line in r.stdout.splitlines():
            c = json.loads(line)
            planes = torch.zeros(1, 112, 64)
            for j, p in enumerate(c["planes"]):
                mask = int(p["mask"], 16)
                for sq in range(64):
                    if mask >> sq & 1:
                        planes[0, j, sq] = p["value"]
            with torch.no_grad():
                o = net(planes)
            pol = o["policy"][0]
            for uci, logit in c["policy"]["vanilla"].items():
                worst = max(worst, abs(logit - pol[c["policy_index"][uci]].item()))
            wdl = torch.softmax(o["wdl"][0], 0)
            for k in range(3):
                worst = max(worst, abs(c["wdl"][k] - wdl[k].item()))
            worst = max(worst, abs(c["moves_left"] - o["moves_left"][0].item()))
        print("largest |cformer - model.py| over %d positions: %.3g" % (len(FENS), worst))
        assert worst < 1e-4, worst


main()
