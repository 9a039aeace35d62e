"""test_onnx_checker: every parity net exports to ONNX in every precision,
and the written file passes onnx.checker (full check) and strict shape
inference, has leela2onnx's input/output names and shapes with a dynamic
batch dimension, opset 17, and no node type outside the list documented in
docs/NETCONV.md (which must also be the exporter's own list).

usage: test_onnx_checker.py NETCONV SOURCE_ROOT   (exit 77: no python3-onnx)
"""

import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_util as u  # noqa: E402

u.need_onnx()
import onnx  # noqa: E402

NETCONV, ROOT = sys.argv[1:3]
sys.path.insert(0, os.path.join(ROOT, "tools", "netconv", "onnx_export"))
from cf_onnx_builder import NODE_TYPES  # noqa: E402


def documented_node_types():
    """The backquoted names on the 'Node types:' line of docs/NETCONV.md."""
    text = open(os.path.join(ROOT, "docs", "NETCONV.md")).read()
    m = re.search(r"^Node types[^:]*:(.*?)(?:\n\n)", text, re.S | re.M)
    assert m, "docs/NETCONV.md has no 'Node types:' paragraph"
    return set(re.findall(r"`([A-Za-z]+)`", m.group(1)))


def dims(value_info):
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


def check(path, allowed, has_mlh):
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    assert [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] == [17]
    ins = {i.name: dims(i) for i in model.graph.input}
    assert ins == {"/input/planes": ["batch", 112, 8, 8]}, ins
    outs = {o.name: dims(o) for o in model.graph.output}
    assert outs["/output/policy"] == ["batch", 1858], outs
    assert outs.get("/output/wdl") == ["batch", 3] or outs.get("/output/value") == ["batch", 1]
    assert ("/output/mlh" in outs) == has_mlh, outs
    if has_mlh:
        assert outs["/output/mlh"] == ["batch", 1]
    for o in model.graph.output:
        assert o.type.tensor_type.elem_type == onnx.TensorProto.FLOAT, o.name
    types = {n.op_type for n in model.graph.node}
    stray = types - allowed
    assert not stray, f"{path}: node types outside the documented list: {sorted(stray)}"
    return len(model.graph.node), types


def main():
    allowed = documented_node_types()
    assert allowed == set(NODE_TYPES), (
        f"docs/NETCONV.md and cf_onnx_builder.NODE_TYPES differ: "
        f"{sorted(allowed ^ set(NODE_TYPES))}")
    seen = set()
    with tempfile.TemporaryDirectory() as tmp:
        for net in u.PARITY_NETS:
            has_mlh = net not in ("lc0-map-classic",)
            for precision in ("float32", "float16", "bfloat16"):
                out = os.path.join(tmp, f"{net}-{precision}.onnx")
                u.export(NETCONV, u.parity_net(ROOT, net), out, precision)
                n, types = check(out, allowed, has_mlh)
                seen |= types
                print(f"{net} {precision}: {n} nodes, checker and shape inference pass")
    print(f"node types used: {' '.join(sorted(seen))}")


main()
