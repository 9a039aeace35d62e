"""Helpers of the ONNX export tests: the parity nets, exporting with netconv,
the parity cases' input planes, onnxruntime-node through ort_run.js, and
cformer's reference backend through `cformer eval`."""

import json
import os
import shutil
import subprocess

import numpy as np

PARITY_NETS = ["cf-rpe-rms", "lc0-smolgen-relu2", "lc0-smolgen-relu2-bf16",
               "lc0-smolgen-relu2-f32", "lc0-map-classic", "cf-rpe-ln-canonical"]

# Largest |ONNX - cformer ref| allowed per weight precision (docs/NETCONV.md).
TOLERANCE = {"float32": 1e-4, "float16": 4e-3, "bfloat16": 4e-2}


def skip(why):
    print(f"skipped: {why}")
    raise SystemExit(77)


def need_onnx():
    try:
        import onnx  # noqa: F401
    except ImportError:
        skip("python3-onnx is not installed (scripts/install-deps.sh installs it)")


def parity_net(root, name):
    return os.path.join(root, "data", "parity", name + ".pb.gz")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def export(netconv, net, out, precision=None):
    cmd = [netconv, "export", net, "--onnx", out]
    if precision:
        cmd += ["--precision", precision]
    r = run(cmd)
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
    return r


def planes_of(case):
    """The case's 112 planes as float32 [112][64] (data/parity/README.md)."""
    p = np.zeros((112, 64), np.float32)
    for j, pl in enumerate(case["planes"]):
        m = int(pl["mask"], 16)
        for t in range(64):
            if (m >> t) & 1:
                p[j, t] = pl["value"]
    return p


def cformer_ref(cformer, net, cases_path):
    """`cformer eval --backend ref` on the cases: one output object per case."""
    r = run([cformer, "eval", "--weights", net, "--cases", cases_path, "--backend", "ref"])
    if r.returncode != 0:
        raise AssertionError(f"cformer eval failed: {r.stderr.strip()}")
    return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]


def ort_runner(root):
    """The node command that runs ort_run.js, or skip (77) without node or
    onnxruntime-node."""
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        skip("node is not installed")
    script = os.path.join(root, "tools", "netconv", "onnx_export", "ort_run.js")
    r = run([node, "-e", "require(process.argv[1])",
             os.path.join(os.path.dirname(script), "node_modules", "onnxruntime-node")])
    if r.returncode != 0:
        skip("onnxruntime-node is not installed (scripts/install-deps.sh installs it with npm)")
    return [node, script]


def ort_eval(runner, model, planes, tmpdir):
    """Every output of the model on planes [N][112][64]: {name: [N][width]}."""
    path = os.path.join(tmpdir, "planes.f32")
    np.ascontiguousarray(planes, np.float32).tofile(path)
    n = planes.shape[0]
    r = run(runner + ["eval", model, path, str(n)])
    if r.returncode != 0:
        raise AssertionError(f"onnxruntime failed on {model}: {r.stderr.strip()}")
    return {k: np.array(v, np.float64).reshape(n, -1) for k, v in json.loads(r.stdout).items()}


def compare(ref, ort, cases):
    """Largest |ONNX - ref| over every output cformer gives for the cases:
    each policy head's legal-move logits, W/D/L (or Q), moves-left, and the
    extra value heads' q, err and categorical logits. Also returns how many
    numbers were compared."""
    worst, count = 0.0, 0

    def diff(a, b):
        nonlocal worst, count
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        assert a.shape == b.shape, (a.shape, b.shape)
        if a.size:
            worst = max(worst, float(np.max(np.abs(a - b))))
        count += a.size

    for i, (r, c) in enumerate(zip(ref, cases)):
        assert r["id"] == c["id"], (r["id"], c["id"])
        for head, moves in r["policy"].items():
            key = "/output/policy" if head == "vanilla" else f"/output/policy_{head}"
            idx = [r["policy_index"][m] for m in moves]
            diff([moves[m] for m in moves], ort[key][i, idx])
        if "/output/wdl" in ort:
            diff(r["wdl"], ort["/output/wdl"][i])
        else:
            diff([r["q"]], ort["/output/value"][i])
        if r.get("moves_left") is not None:
            diff([r["moves_left"]], ort["/output/mlh"][i])
        else:
            assert "/output/mlh" not in ort
        for head, v in (r.get("value_heads") or {}).items():
            if "wdl" in v:
                diff(v["wdl"], ort[f"/output/wdl_{head}"][i])
            else:
                diff([v["q"]], ort[f"/output/value_{head}"][i])
            if "err" in v:
                diff([v["err"]], ort[f"/output/value_{head}_err"][i])
            if "cat_logits" in v:
                diff(v["cat_logits"], ort[f"/output/value_{head}_cat"][i])
    return worst, count
