"""test_training: the trainer end to end on the committed sample shard.

Packs training/sample/sample.tsv with `cformer pack-data`, checks that
packed.py decodes what the records hold, trains a tiny model a few steps,
interrupts and resumes it (the resumed run must end exactly where an
uninterrupted one does), and exports it: the safetensors holds exactly
model.py's state_dict names and values, and the config is netconv's.

usage: test_training.py CFORMER SOURCE_ROOT   (exit 77: no torch)
"""

import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
except ImportError:
    print("torch/numpy not available: skipped")
    sys.exit(77)

CFORMER, ROOT = sys.argv[1:3]
sys.path.insert(0, os.path.join(ROOT, "training"))
import export  # noqa: E402
import fast_attention  # noqa: E402
import packed  # noqa: E402
import train  # noqa: E402
import model as model_py  # noqa: E402
from model import Chessformer  # noqa: E402

TINY = ["--layers", "1", "--d", "16", "--heads", "2", "--value-cv", "2", "--batch", "16",
        "--warmup", "2", "--log-every", "1", "--val-every", "2", "--val-positions", "32",
        "--threads", "1", "--keep-every", "0"]


def check_decode(data):
    tr = packed.PackFile(os.path.join(data, "train.cfpack"))
    assert tr.input_format == 4 and len(tr) > 200, len(tr)
    b = packed.decode(tr.records[:64], best_weight=0.25, result_weight=0.2)
    assert b["planes"].shape == (64, 112, 64)
    # Plane 111 is all ones; plane 109 is rule50 / 100 everywhere.
    assert (b["planes"][:, 111] == 1).all()
    assert np.allclose(b["planes"][:, 109], tr.records["aux_value"][:64, 5][:, None])
    # Targets: a distribution over legal moves only, the best move legal.
    assert np.allclose(b["policy"].sum(1), 1, atol=1e-5)
    assert not (b["policy"][~b["legal"]] > 0).any()
    assert b["legal"][np.arange(64), b["best"]].all()
    assert np.allclose(b["wdl"].sum(1), 1, atol=1e-5)
    # Own king: exactly one square of plane 5.
    assert (b["planes"][:, 5].sum(1) == 1).all()


def check_fast_attention():
    """fast_attention.py computes model.py's forward pass and gradients."""
    torch.manual_seed(3)
    net = Chessformer(layers=2, d=32, heads=4, dff=64, value_cv=4)
    with torch.no_grad():  # RPE tables start small: make them matter
        for p in net.parameters():
            p.add_(0.1 * torch.randn_like(p))
    x = torch.rand(5, 112, 64)
    results = []
    for fast in (False, True):
        fast_attention.install(fast)
        want = fast_attention.fast_forward if fast else fast_attention._reference_forward
        assert fast_attention.model.Attention.forward is want
        net.zero_grad()
        o = net(x)
        (o["policy"].square().mean() + o["wdl"].square().mean()).backward()
        results.append((o, {n: p.grad.clone() for n, p in net.named_parameters()}))
    fast_attention.install(False)
    (ro, rg), (fo, fg) = results
    d_out = max((ro[k] - fo[k]).abs().max().item() for k in ro)
    scale = max(g.abs().max().item() for g in rg.values())
    d_grad = max((rg[n] - fg[n]).abs().max().item() for n in rg)
    print("fast attention vs model.py: outputs %.3g, gradients %.3g (largest gradient %.3g)"
          % (d_out, d_grad, scale))
    assert d_out < 1e-5 and d_grad < 1e-5 * max(1.0, scale), (d_out, d_grad)
    assert fast_attention.model.Attention.forward is not fast_attention.fast_forward


def check_lc0_map(tmp, data, rpe_weights):
    """The lc0-map layout: the positional table, init_lc0_map.py's conversion
    of RPE weights, and a run with --pos-encoding lc0-map from them."""
    t = model_py.pos_table()
    assert t.shape == (64, 64) and (t.diagonal() == -1).all()
    # a1: 21 queen squares on an empty board and 2 knight squares; d4: 27 + 8.
    assert int((t[0] == 1).sum()) == 23 and int((t[27] == 1).sum()) == 35
    assert torch.equal(t, t.t())
    try:
        Chessformer(layers=1, d=16, heads=2, dff=32, value_cv=2, pos_encoding="shaw")
        assert False, "an unknown pos_encoding was accepted"
    except ValueError as e:
        assert "pos_encoding" in str(e)
    conv = os.path.join(tmp, "map-init.safetensors")
    script = os.path.join(ROOT, "training", "init_lc0_map.py")
    r = subprocess.run([sys.executable, script, rpe_weights, "-o", conv],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    src, _ = export.read_safetensors(rpe_weights)
    got, _ = export.read_safetensors(conv)
    net = Chessformer(layers=1, d=16, heads=2, dff=32, value_cv=2, pos_encoding="lc0-map")
    assert sorted(got) == sorted(net.state_dict()), sorted(set(got) ^ set(net.state_dict()))
    assert not any("rpe" in k for k in got)
    assert got["embedding.weight"].shape == (16, 176)
    assert np.array_equal(got["embedding.weight"][:, :112], src["embedding.weight"])
    assert not got["embedding.weight"][:, 112:].any()
    for k in ("encoder.0.mha.wq.bias", "encoder.0.ln1.bias", "encoder.0.ln2.bias"):
        assert not got[k].any(), k
    assert np.array_equal(got["encoder.0.ln1.weight"], src["encoder.0.ln1.weight"])
    # Zero table columns: the embedding computes what the RPE net's did.
    rpe = Chessformer(layers=1, d=16, heads=2, dff=32, value_cv=2)
    train.load_init(rpe, rpe_weights)
    train.load_init(net, conv)
    x = torch.rand(3, 112, 64)
    with torch.no_grad():
        a = rpe.embedding(x.transpose(1, 2))
        b = net.embedding(torch.cat([x.transpose(1, 2), net.pos_table.expand(3, 64, 64)], 2))
    assert torch.allclose(a, b, atol=1e-6)
    # Not an RPE net: refused with a message.
    r = subprocess.run([sys.executable, script, conv, "-o", conv + ".2"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "not an RPE network" in r.stderr, r.stderr
    # A run in the lc0-map layout from the converted weights (lr 0: unchanged).
    run = os.path.join(tmp, "map-run")
    r = run_train(["--data", data, "--run", run, "--steps", "1", "--lr", "0", "--init", conv,
                   "--pos-encoding", "lc0-map"] + TINY)
    assert r.returncode == 0
    assert json.load(open(os.path.join(run, "config.json")))["model"]["pos_encoding"] == "lc0-map"
    c = torch.load(os.path.join(run, "latest.pt"))["model"]
    assert all(np.array_equal(c[k].numpy(), got[k]) for k in got)
    # evaluate.py reads the layout from the names: both files in one call.
    r = subprocess.run([sys.executable, os.path.join(ROOT, "training", "evaluate.py"),
                        "--data", data, "--layers", "1", "--d", "16", "--heads", "2",
                        "--dff", "32", "--value-cv", "2", "--threads", "1", rpe_weights, conv],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "map-init.safetensors" in r.stdout, r.stderr


def run_train(args):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "training", "train.py")] + args,
                       capture_output=True, text=True)
    print(r.stdout[-2000:], r.stderr[-2000:])
    return r


def main():
    check_fast_attention()
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "packed")
        r = subprocess.run([CFORMER, "pack-data", "--out", data, "--val-fraction", "0.2",
                            os.path.join(ROOT, "training", "sample", "sample.tsv")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        check_decode(data)

        # Six steps straight through.
        full = os.path.join(tmp, "full")
        r = run_train(["--data", data, "--run", full, "--steps", "6"] + TINY)
        assert r.returncode == 0
        assert "pos/s" in r.stdout and "ETA" in r.stdout and "top-1" in r.stdout
        log = [json.loads(x) for x in open(os.path.join(full, "log.jsonl"))]
        assert [e["step"] for e in log if "policy_loss" in e] == [1, 2, 3, 4, 5, 6]
        assert any("val_top1" in e for e in log)
        # The curve: an SVG with the training lines and validation points.
        svg = os.path.join(tmp, "curve.svg")
        r = subprocess.run([sys.executable, os.path.join(ROOT, "training", "plot_curve.py"),
                            os.path.join(full, "log.jsonl"), "-o", svg],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        text = open(svg).read()
        assert "<svg" in text and ">full: training curve<" in text, text[:400]
        assert tmp not in text  # the title names the run, never a path
        assert "6 training and 3 validation points" in r.stdout, r.stdout
        # A second run into the same folder is refused (use --resume).
        assert run_train(["--data", data, "--run", full, "--steps", "6"] + TINY).returncode != 0

        # Three steps, then resume to six: same weights as straight through.
        part = os.path.join(tmp, "part")
        assert run_train(["--data", data, "--run", part, "--steps", "3"] + TINY).returncode == 0
        cfg_path = os.path.join(part, "config.json")
        cfg = json.load(open(cfg_path))
        cfg["steps"] = 6  # the schedule of the uninterrupted run
        json.dump(cfg, open(cfg_path, "w"))
        r = run_train(["--run", part, "--resume", "--threads", "1"])
        assert r.returncode == 0 and "step 3/6" in r.stdout
        a = torch.load(os.path.join(full, "latest.pt"))["model"]
        b = torch.load(os.path.join(part, "latest.pt"))["model"]
        worst = max((a[k] - b[k]).abs().max().item() for k in a)
        print("resumed vs uninterrupted: largest weight difference %.3g" % worst)
        assert worst < 1e-6, worst

        # Export: model.py's names, values and [out][in] shapes, and the config.
        out = os.path.join(tmp, "net.safetensors")
        r = subprocess.run([sys.executable, os.path.join(ROOT, "training", "export.py"),
                            os.path.join(full, "latest.pt"), "-o", out],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        tensors, meta = export.read_safetensors(out)
        model = Chessformer(layers=1, d=16, heads=2, dff=32, value_cv=2)
        assert sorted(tensors) == sorted(model.state_dict()), sorted(tensors)
        for k, v in a.items():
            assert tensors[k].shape == tuple(v.shape), k
            assert np.array_equal(tensors[k], v.numpy()), k
        assert tensors["embedding.weight"].shape == (16, 112)  # [out][in]
        nc = json.load(open(os.path.join(tmp, "net.json")))
        assert nc == json.loads(meta["cformer_config"])
        assert nc["input_format"] == 4 and nc["heads"] == 2 and nc["layers"] == 1
        assert nc["naming"] == "ours"

        # --init: a new run starting from exported weights (lr 0: unchanged).
        init = os.path.join(tmp, "init")
        r = run_train(["--data", data, "--run", init, "--steps", "1", "--lr", "0",
                       "--init", out] + TINY)
        assert r.returncode == 0
        c = torch.load(os.path.join(init, "latest.pt"))["model"]
        assert all(np.array_equal(c[k].numpy(), tensors[k]) for k in tensors)
        # Weights of another shape: refused, naming what differs.
        r = run_train(["--data", data, "--run", os.path.join(tmp, "bad"), "--steps", "1",
                       "--init", out, "--layers", "2", "--d", "16", "--heads", "2", "--dff", "32",
                       "--value-cv", "2", "--threads", "1"])
        assert r.returncode != 0 and "does not fit this model" in r.stderr, r.stderr
        r = run_train(["--run", init, "--resume", "--init", out])
        assert r.returncode != 0 and "not both" in r.stderr
        # evaluate.py: the validation metrics, per group; its "all" row is
        # train.validate over the whole val file with the pure Stockfish target.
        r = subprocess.run([sys.executable, os.path.join(ROOT, "training", "evaluate.py"),
                            "--data", data, "--layers", "1", "--d", "16", "--heads", "2",
                            "--dff", "32", "--value-cv", "2", "--threads", "1", out, out],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        print(r.stdout)
        rows = [l.split() for l in r.stdout.splitlines() if l.startswith("net.safetensors")]
        all_rows = [x for x in rows if x[1] == "all"]
        assert len(all_rows) == 2 and all_rows[0] == all_rows[1], rows
        val = packed.PackFile(os.path.join(data, "val.cfpack"))
        model = Chessformer(layers=1, d=16, heads=2, dff=32, value_cv=2)
        train.load_init(model, out)
        want = train.validate(model, val, {"val_positions": len(val), "best_weight": 0.25,
                                           "result_weight": 0.0})
        got = all_rows[0]
        assert abs(float(got[2]) - want["val_policy_loss"]) < 1e-3, (got, want)
        assert abs(float(got[3].rstrip("%")) - 100 * want["val_top1"]) < 0.06, (got, want)
        assert abs(float(got[4]) - want["val_value_loss"]) < 1e-3, (got, want)
        assert abs(float(got[5].rstrip("%")) - 100 * want["val_wdl_acc"]) < 0.06, (got, want)
        n_game, n_off = (int(x) for x in re.search(r"\((\d+) from games, (\d+) off", r.stdout).groups())
        assert n_game + n_off == len(val)
        r = subprocess.run([sys.executable, os.path.join(ROOT, "training", "evaluate.py"),
                            "--data", data, "--every", "2", "--layers", "1", "--d", "16",
                            "--heads", "2", "--dff", "32", "--value-cv", "2", out],
                           capture_output=True, text=True)
        assert r.returncode == 0 and f": {(len(val) + 1) // 2} records" in r.stdout, r.stdout
        r = subprocess.run([sys.executable, os.path.join(ROOT, "training", "evaluate.py"),
                            "--data", tmp, out], capture_output=True, text=True)
        assert r.returncode != 0 and "val.cfpack" in r.stderr, r.stderr
        check_lc0_map(tmp, data, out)
    print("ok")


main()
