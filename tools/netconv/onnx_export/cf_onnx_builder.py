"""The graph builder of the ONNX export: nodes, initializers and the small
composite blocks (linear layers, norms, activations) that the body and the
heads are made of, on top of python3-onnx's helper.

Every float weight goes through weight(): stored as float32, or as float16 /
bfloat16 followed by a Cast to float32 (runtimes fold such casts when they
load the model), so the graph always computes in float32 and its inputs and
outputs are float32 whatever the precision. Node and tensor names follow
leela2onnx's style: "/encoder0/mha/Q/matmul".
"""

import numpy as np
from onnx import TensorProto, helper

# Every node type an exported graph may contain (docs/NETCONV.md lists them;
# the tests check each export against this list).
NODE_TYPES = frozenset([
    "Add", "Cast", "Concat", "Div", "Gather", "LayerNormalization", "MatMul", "Mul",
    "Pad", "ReduceMean", "Relu", "Reshape", "Selu", "Sigmoid", "Slice", "Softmax",
    "Softplus", "Sqrt", "Tanh", "Transpose", "Unsqueeze",
])

FP16_MAX = 65504.0


class ExportError(Exception):
    """A network the exporter cannot express, or a precision it cannot hold."""


def bf16_bits(a):
    """float32 -> bfloat16 bit patterns (uint16), rounded to nearest even."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


class Builder:
    def __init__(self, precision):
        if precision not in ("float32", "float16", "bfloat16"):
            raise ExportError(f"precision '{precision}' is not one of float32, float16, bfloat16")
        self.precision = precision
        self.nodes = []
        self.inits = []
        self.used = set()

    def _name(self, name):
        if name in self.used:
            raise AssertionError(f"duplicate ONNX name {name}")
        self.used.add(name)
        return name

    def node(self, op, inputs, name, **attrs):
        """One node with one output, named like the node; returns the output."""
        out = self._name(name)
        self.nodes.append(helper.make_node(op, list(inputs), [out], name=name, **attrs))
        return out

    # ---- constants ----
    def weight(self, name, array, what=None):
        """A float tensor of the network, in the export precision, as float32."""
        a = np.ascontiguousarray(array, dtype=np.float32)
        if self.precision == "float32":
            self._init(name, TensorProto.FLOAT, a.shape, a.tobytes())
            return name
        if self.precision == "float16":
            big = float(np.max(np.abs(a))) if a.size else 0.0
            if not np.isfinite(big) or big > FP16_MAX:
                raise ExportError(f"{what or name} holds {big:g}, beyond float16's range "
                                  f"(+-{FP16_MAX:g}): use --precision float32 or bfloat16")
            self._init(name + "/f16", TensorProto.FLOAT16, a.shape, a.astype(np.float16).tobytes())
            return self.node("Cast", [name + "/f16"], name, to=TensorProto.FLOAT)
        self._init(name + "/bf16", TensorProto.BFLOAT16, a.shape, bf16_bits(a).tobytes())
        return self.node("Cast", [name + "/bf16"], name, to=TensorProto.FLOAT)

    def scalar(self, name, value):
        """A float32 scalar (eps, scales): kept float32 at every precision."""
        self._init(name, TensorProto.FLOAT, (), np.float32(value).tobytes())
        return name

    def ints(self, name, values):
        a = np.ascontiguousarray(values, dtype=np.int64)
        self._init(name, TensorProto.INT64, a.shape, a.tobytes())
        return name

    def _init(self, name, dtype, shape, raw):
        self._name(name)
        self.inits.append(helper.make_tensor(name, dtype, list(shape), raw, raw=True))

    # ---- blocks ----
    def reshape(self, name, x, shape):
        return self.node("Reshape", [x, self.ints(name + "/shape", shape)], name)

    def transpose(self, name, x, perm):
        return self.node("Transpose", [x], name, perm=list(perm))

    def slice(self, name, x, starts, ends, axes):
        return self.node("Slice", [x, self.ints(name + "/starts", starts),
                                   self.ints(name + "/ends", ends),
                                   self.ints(name + "/axes", axes)], name)

    def linear(self, name, x, w, b, act="none"):
        """act(x W^T + b) over the last axis; w is [out][in] (NETWORK.md)."""
        y = self.node("MatMul", [x, self.weight(name + "/w", np.asarray(w).T)], name + "/matmul")
        if b is not None:
            y = self.node("Add", [y, self.weight(name + "/b", b)], name + "/add")
        return self.activation(name, y, act)

    def activation(self, name, x, act):
        """NETWORK.md section 5's activations, as cformer's ref backend has them."""
        if act == "none":
            return x
        if act == "relu":
            return self.node("Relu", [x], name + "/relu")
        if act == "tanh":
            return self.node("Tanh", [x], name + "/tanh")
        if act == "sigmoid":
            return self.node("Sigmoid", [x], name + "/sigmoid")
        if act == "selu":
            return self.node("Selu", [x], name + "/selu", alpha=1.6732632423543772,
                             gamma=1.0507009873554805)
        if act == "mish":  # x tanh(softplus(x)); Mish itself is opset 18
            sp = self.node("Softplus", [x], name + "/mish/softplus")
            th = self.node("Tanh", [sp], name + "/mish/tanh")
            return self.node("Mul", [x, th], name + "/mish")
        if act == "swish":
            sg = self.node("Sigmoid", [x], name + "/swish/sigmoid")
            return self.node("Mul", [x, sg], name + "/swish")
        if act == "relu2":
            r = self.node("Relu", [x], name + "/sqrrelu/relu")
            return self.node("Mul", [r, r], name + "/sqrrelu")
        raise ExportError(f"activation '{act}' is not supported (cformer does not run it either)")

    def norm(self, name, x, gamma, beta, eps):
        """LayerNorm when beta is given, RMSNorm otherwise, over the last axis."""
        g = self.weight(name + "/gamma", gamma)
        if beta is not None:
            return self.node("LayerNormalization", [x, g, self.weight(name + "/beta", beta)],
                             name, axis=-1, epsilon=float(np.float32(eps)))
        sq = self.node("Mul", [x, x], name + "/square")
        ms = self.node("ReduceMean", [sq], name + "/mean", axes=[-1], keepdims=1)
        ms = self.node("Add", [ms, self.scalar(name + "/eps", eps)], name + "/add_eps")
        rms = self.node("Sqrt", [ms], name + "/sqrt")
        y = self.node("Div", [x, rms], name + "/div")
        return self.node("Mul", [y, g], name)

    def residual_norm(self, name, skip, x, alpha, gamma, beta, eps):
        """Norm(skip + alpha x): the DeepNorm residual of NETWORK.md section 4-5."""
        ax = self.node("Mul", [x, self.scalar(name + "/alpha", alpha)], name + "/scale")
        v = self.node("Add", [skip, ax], name + "/skip")
        return self.norm(name, v, gamma, beta, eps)
