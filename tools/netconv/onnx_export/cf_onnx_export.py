#!/usr/bin/python3
"""The ONNX exporter behind `netconv export NET --onnx OUT.onnx`.

netconv loads NET with cformer's own loader and hands this script the decoded
float32 tensors as safetensors (names: the weight file's field paths,
"weights.encoder[0].mha.q_w"; metadata: the resolved architecture and the
1858-move policy map). This script refuses what it cannot express (naming
the feature), builds the graph (cf_onnx_graph.py, cf_onnx_heads.py), runs
onnx.checker and strict shape inference on it, and writes it to --output
(netconv's temporary name; netconv renames it into place).

Errors: one line "netconv export: NET: ..." on stderr, exit status 1.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# A missing module is one line naming its Debian package, not a traceback.
try:
    import numpy as np
except ImportError:
    sys.stderr.write("netconv export: --onnx needs NumPy (apt-get install python3-numpy)\n")
    sys.exit(1)
try:
    import onnx
    from onnx import TensorProto, helper
except ImportError:
    sys.stderr.write("netconv export: --onnx needs python3-onnx (apt-get install python3-onnx)\n")
    sys.exit(1)

from cf_onnx_builder import NODE_TYPES, Builder, ExportError  # noqa: E402
from cf_onnx_graph import PLANES, Body  # noqa: E402
from cf_onnx_heads import Heads  # noqa: E402

OPSET = 17
SUPPORTED_ACTS = ("mish", "relu", "none", "tanh", "sigmoid", "selu", "swish", "relu2")


def read_safetensors(path):
    """{name: float32 array (1-D)}, metadata config dict."""
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
        data = f.read()
    meta = header.pop("__metadata__", {})
    tensors = {}
    for name, info in header.items():
        if info["dtype"] != "F32":
            raise ExportError(f"{name}: dtype {info['dtype']} (expected F32 from netconv)")
        lo, hi = info["data_offsets"]
        tensors[name] = np.frombuffer(data[lo:hi], dtype="<f4").astype(np.float32)
    return tensors, json.loads(meta["cformer_config"])


def check_supported(net, arch):
    """Refuse, naming it, every feature the graph would not reproduce: the
    same things cformer's own forward pass refuses."""
    uses = [("default_activation", True), ("ffn_activation", True),
            ("smolgen_activation", any(k.endswith("smolgen.compress") for k in net))]
    for key, used in uses:
        if used and arch[key] not in SUPPORTED_ACTS:
            raise ExportError(f"{key} '{arch[key]}' is not supported (cformer does not run it "
                              f"either)")
    for head in ("vanilla", "optimistic_st", "soft", "opponent"):
        if f"weights.policy_heads.{head}.ip_pol_w" in net:
            raise ExportError(f"policy head '{head}' has its own embedding (ip_pol_w); only the "
                              f"shared policy embedding is supported")
    if "weights.policy_heads.ip_pol_w" not in net:
        raise ExportError("the network has no attention policy embedding (policy_heads.ip_pol_w)")
    F, s = arch["emb_inputs"], arch["emb_dense_s"]
    if not (F == PLANES + s or (s == 0 and F == PLANES + 64)):
        raise ExportError(f"embedding with {F} inputs per square is not supported")


def build(net, arch, precision, name):
    arch = dict(arch)
    arch["rpe"] = any(".mha.rpe_" in k for k in net)
    check_supported(net, arch)
    b = Builder(precision)
    body = Body(b, net, arch)
    y = body.encoder(body.embedding(body.tokens("/input/planes")))
    heads = Heads(b, net, arch)
    heads.policy(y)
    heads.values(y)
    heads.moves_left(y)
    inputs = [helper.make_tensor_value_info("/input/planes", TensorProto.FLOAT,
                                            ["batch", PLANES, 8, 8])]
    outputs = [helper.make_tensor_value_info(o, TensorProto.FLOAT, ["batch", w])
               for o, w in heads.outputs]
    graph = helper.make_graph(b.nodes, "cformer", inputs, outputs, b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="cformer netconv",
                              doc_string=f"{os.path.basename(name)} exported by netconv "
                                         f"(weights {precision}, compute float32)")
    stray = sorted({n.op_type for n in b.nodes} - NODE_TYPES)
    if stray:
        raise AssertionError(f"node types outside the documented list: {stray}")
    return model


def verify(model):
    """onnx.checker (full: strict shape inference too) and the output shapes."""
    onnx.checker.check_model(model, full_check=True)
    inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    declared = {o.name: o for o in model.graph.output}
    for o in inferred.graph.output:
        if o.type != declared[o.name].type:
            raise AssertionError(f"shape inference disagrees on {o.name}")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--weights", required=True, help="safetensors from netconv")
    ap.add_argument("--output", required=True, help="where to write the model")
    ap.add_argument("--precision", default="float32")
    ap.add_argument("--name", default="NET", help="the network's name for messages")
    args = ap.parse_args()
    try:
        net, arch = read_safetensors(args.weights)
        model = build(net, arch, args.precision, args.name)
        verify(model)
        data = model.SerializeToString()
    except ExportError as e:
        sys.stderr.write(f"netconv export: {args.name}: cannot export to ONNX: {e}\n")
        return 1
    except (ValueError, onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as e:
        sys.stderr.write(f"netconv export: {args.name}: the ONNX graph failed its check: {e}\n")
        return 1
    try:
        with open(args.output, "wb") as f:
            f.write(data)
    except OSError as e:
        sys.stderr.write(f"netconv export: cannot write {args.output}: {e.strerror}\n")
        return 1
    counts = {}
    for n in model.graph.node:
        counts[n.op_type] = counts.get(n.op_type, 0) + 1
    outs = ", ".join(o.name for o in model.graph.output)
    print(f"{args.name}: ONNX opset {OPSET}, {args.precision} weights, "
          f"{len(model.graph.node)} nodes, {len(data)} bytes; outputs {outs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
