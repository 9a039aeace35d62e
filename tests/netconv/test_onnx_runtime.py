"""test_onnx_runtime: an exported model, run by onnxruntime (npm's
onnxruntime-node, CPU), computes what cformer's reference backend computes.

For every parity net and every precision, the parity positions' input planes
(as `cformer eval` builds them) go through the ONNX model in one batch, and
every output cformer gives (each policy head's legal-move logits, W/D/L or Q,
moves-left, the extra value heads' q, err and categorical logits) must agree
within the precision's tolerance (onnx_util.TOLERANCE: float32 1e-4). The
first position alone must give what it gave inside the batch (the batch
dimension is dynamic). The network embedded in cformer and a CF-6M-shaped
random net (`netconv random --preset cf6m`) are checked on a few positions
in float32 too. Then each activation cformer runs, set as the FFN and
smolgen activation of lc0-smolgen-relu2 through `netconv import`, is checked
the same way in float32. Last, the Node example of docs/NETCONV.md runs as
written on an export and prints three W/D/L numbers and 1858.

usage: test_onnx_runtime.py NETCONV CFORMER SOURCE_ROOT
exit 77: python3-onnx, node or onnxruntime-node is not installed.
"""

import os
import re
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_util as u  # noqa: E402

NETCONV, CFORMER, ROOT = sys.argv[1:4]
u.need_onnx()
RUNNER = u.ort_runner(ROOT)
ACTIVATIONS = ["mish", "relu", "relu2", "swish", "selu", "tanh", "sigmoid", "none"]


def check_net(net, cases_path, tmp, precisions, label, max_cases=0):
    ref = u.cformer_ref(CFORMER, net, cases_path)
    if max_cases:
        ref = ref[:max_cases]
    planes = np.stack([u.planes_of(r) for r in ref])
    for precision in precisions:
        out = os.path.join(tmp, f"{label}-{precision}.onnx")
        u.export(NETCONV, net, out, precision)
        ort = u.ort_eval(RUNNER, out, planes, tmp)
        worst, count = u.compare(ref, ort, ref)
        tol = u.TOLERANCE[precision]
        print(f"{label} {precision}: max |onnxruntime - cformer ref| = {worst:.3g} over "
              f"{count} outputs of {len(ref)} positions (bound {tol:g})")
        assert count > 0
        assert worst <= tol, f"{label} {precision}: {worst} > {tol}"
        if precision == "float32":
            one = u.ort_eval(RUNNER, out, planes[:1], tmp)
            for k, v in one.items():
                d = float(np.max(np.abs(v[0] - ort[k][0])))
                assert d <= 1e-5, f"{label}: {k} differs alone vs in a batch by {d}"


def with_activation(tmp, base, act):
    """base re-imported with ffn_activation and smolgen_activation = act."""
    st = os.path.join(tmp, "base.safetensors")
    r = u.run([NETCONV, "export", base, "-o", st])
    assert r.returncode == 0, r.stderr
    cfg = os.path.join(tmp, f"{act}.yaml")
    with open(cfg, "w") as f:
        f.write(f"ffn_activation: {act}\nsmolgen_activation: {act}\n")
    net = os.path.join(tmp, f"act-{act}.pb.gz")
    r = u.run([NETCONV, "import", st, "--config", cfg, "-o", net, "--encoding", "float32"])
    assert r.returncode == 0, r.stderr
    return net


def docs_example(tmp):
    """docs/NETCONV.md's Node example, run with the onnxruntime-node that
    ort_run.js uses, on an export of the built-in net."""
    text = open(os.path.join(ROOT, "docs", "NETCONV.md")).read()
    blocks = re.findall(r"```js\n(.*?)```", text, re.S)
    assert blocks, "docs/NETCONV.md has no Node example"
    model = os.path.join(tmp, "net.onnx")
    u.export(NETCONV, "<built in>", model)
    script = os.path.join(tmp, "example.js")
    with open(script, "w") as f:
        f.write(blocks[0])
    modules = os.path.join(os.path.dirname(os.path.abspath(RUNNER[1])), "node_modules")
    r = u.run([RUNNER[0], script], cwd=tmp, env=dict(os.environ, NODE_PATH=modules))
    assert r.returncode == 0, r.stderr
    numbers = re.findall(r"[-+]?\d*\.\d+(?:e[-+]?\d+)?", r.stdout)
    assert len(numbers) == 3 and abs(sum(map(float, numbers)) - 1) < 1e-5, r.stdout
    assert r.stdout.split()[-1] == "1858", r.stdout
    print("docs/NETCONV.md's Node example runs:", " ".join(r.stdout.split()))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for name in u.PARITY_NETS:
            net = u.parity_net(ROOT, name)
            cases = os.path.join(ROOT, "data", "parity", name + ".jsonl")
            check_net(net, cases, tmp, ("float32", "float16", "bfloat16"), name)
        cf6m = os.path.join(tmp, "cf6m.pb.gz")
        r = u.run([NETCONV, "random", "--preset", "cf6m", "--seed", "1", "-o", cf6m])
        assert r.returncode == 0, r.stderr
        cases = os.path.join(ROOT, "data", "parity", "cf-rpe-rms.jsonl")
        check_net("<built in>", cases, tmp, ("float32",), "built-in net", max_cases=6)
        check_net(cf6m, cases, tmp, ("float32",), "cf6m random", max_cases=6)
        base = u.parity_net(ROOT, "lc0-smolgen-relu2")
        cases = os.path.join(ROOT, "data", "parity", "lc0-smolgen-relu2.jsonl")
        for act in ACTIVATIONS:
            check_net(with_activation(tmp, base, act), cases, tmp, ("float32",),
                      f"lc0-smolgen-relu2 with {act}", max_cases=8)
        docs_example(tmp)


main()
