"""The network body as ONNX: input planes -> tokens -> embedding -> encoder
layers (RPE q/k/v, smolgen, LayerNorm or RMSNorm), exactly as
docs/NETWORK.md sections 3-5 and cformer's reference backend compute it.

Tensors are [N][64][width] (token-major); attention runs per head as
[N][H][64][dh]. The Shaw relative-position terms are in cf_onnx_rpe.py.
"""

import math

import numpy as np

import cf_onnx_rpe as rpe

PLANES = 112
PIECE_PLANES = 12


def pos_table():
    """Lc0's PE_MAP table [64 squares][64 channels]: -1 on the square itself,
    1 where a queen or a knight on it would reach, 0 elsewhere (the rule that
    encoder/cf_pos_table.c generates it with)."""
    s = np.arange(64)
    df = np.abs(s[:, None] % 8 - s[None, :] % 8)
    dr = np.abs(s[:, None] // 8 - s[None, :] // 8)
    queen = (df == 0) | (dr == 0) | (df == dr)
    knight = ((df == 1) & (dr == 2)) | ((df == 2) & (dr == 1))
    t = np.where(queen | knight, 1.0, 0.0)
    np.fill_diagonal(t, -1.0)
    return t


def norm_eps(arch, layer_norm):
    """NETWORK.md section 5 / encoder/cf_encoder.c: RMSNorm 1e-5; LayerNorm 1e-6
    for nets Lc0 runs itself (no RPE, not PE_DENSE), 1e-3 otherwise."""
    if not layer_norm:
        return 1e-5
    return 1e-6 if not arch["rpe"] and arch["input_embedding"] != 2 else 1e-3


SMOLGEN_EPS = 1e-3


class Body:
    def __init__(self, b, net, arch):
        self.b, self.net, self.arch = b, net, arch
        self.alpha = (2.0 * arch["layers"]) ** -0.25
        self.H = arch["heads"]
        self.dm = arch["dm"]
        self.dh = self.dm // self.H

    def t(self, name):
        return self.net.get(name)

    def norm_of(self, prefix):
        """gammas, betas (None: RMSNorm) and eps of the norm at prefix."""
        g, be = self.t(prefix + "gammas"), self.t(prefix + "betas")
        return g, be, norm_eps(self.arch, be is not None)

    # ---- input and embedding (NETWORK.md sections 3-4) ----
    def tokens(self, planes):
        b = self.b
        x = b.reshape("/input/reshape", planes, [-1, PLANES, 64])
        return b.transpose("/input/tokens", x, [0, 2, 1])  # [N][64][112]

    def embedding(self, tok):
        b, a, t = self.b, self.arch, self.t
        act = a["default_activation"]
        w, bias = t("weights.ip_emb_w"), t("weights.ip_emb_b")
        F, s = a["emb_inputs"], a["emb_dense_s"]
        w = w.reshape(a["d"], F)
        if s > 0:
            # pre[N][64*s] = pieces[N][64*12] W_pre^T + b_pre, viewed as [N][64][s]
            pieces = b.slice("/embedding/pieces", tok, [0], [PIECE_PLANES], [2])
            pieces = b.reshape("/embedding/pieces/flat", pieces, [-1, 64 * PIECE_PLANES])
            pre = b.linear("/embedding/preproc", pieces,
                           t("weights.ip_emb_preproc_w").reshape(64 * s, 64 * PIECE_PLANES),
                           t("weights.ip_emb_preproc_b"))
            pre = b.reshape("/embedding/preproc/tokens", pre, [-1, 64, s])
            x = b.node("Concat", [tok, pre], "/embedding/inputs", axis=2)
            e = b.linear("/embedding", x, w, bias, act)
        elif F == PLANES + 64:
            # Lc0's positional table is the same for every position: its part
            # of W x is a constant [64][d], folded into the bias (float64).
            pos_bias = pos_table() @ w[:, PLANES:].astype(np.float64).T
            if bias is not None:
                pos_bias = pos_bias + bias.astype(np.float64)
            e = b.linear("/embedding", tok, w[:, :PLANES], None)
            e = b.node("Add", [e, b.weight("/embedding/pos_bias", pos_bias)], "/embedding/add")
            e = b.activation("/embedding", e, act)
        else:
            e = b.linear("/embedding", tok, w, bias, act)
        if t("weights.ip_emb_ln_gammas") is not None:
            g, be, eps = self.norm_of("weights.ip_emb_ln_")
            e = b.norm("/embedding/norm", e, g, be, eps)
        mult, add = t("weights.ip_mult_gate"), t("weights.ip_add_gate")
        if mult is not None:  # [d][64] -> [64][d]
            e = b.node("Mul", [e, b.weight("/embedding/mult_gate", mult.reshape(a["d"], 64).T)],
                       "/embedding/mult_gate/mul")
        if add is not None:
            e = b.node("Add", [e, b.weight("/embedding/add_gate", add.reshape(a["d"], 64).T)],
                       "/embedding/add_gate/add")
        if t("weights.ip_emb_ffn.dense1_w") is not None:
            f = self.ffn("/embedding/ffn", "weights.ip_emb_ffn.", e)
            g, be, eps = self.norm_of("weights.ip_emb_ffn_ln_")
            e = b.residual_norm("/embedding/ffn/norm", e, f, self.alpha, g, be, eps)
        return e

    def ffn(self, name, prefix, x):
        a, t = self.arch, self.t
        w1 = t(prefix + "dense1_w")
        dff = w1.size // a["d"]
        h = self.b.linear(name + "/dense1", x, w1.reshape(dff, a["d"]), t(prefix + "dense1_b"),
                          a["ffn_activation"])
        return self.b.linear(name + "/dense2", h, t(prefix + "dense2_w").reshape(a["d"], dff),
                             t(prefix + "dense2_b"))

    # ---- encoder (NETWORK.md section 5) ----
    def encoder(self, x):
        for i in range(self.arch["layers"]):
            x = self.layer(i, x)
        return x

    def layer(self, i, x):
        b, t, a = self.b, self.t, self.arch
        pre, name = f"weights.encoder[{i}].", f"/encoder{i}"
        m = self.attention(name + "/mha", pre + "mha.", x)
        m = b.linear(name + "/mha/dense", m, t(pre + "mha.dense_w").reshape(a["d"], self.dm),
                     t(pre + "mha.dense_b"))
        g, be, eps = self.norm_of(pre + "ln1_")
        x = b.residual_norm(name + "/ln1", x, m, self.alpha, g, be, eps)
        f = self.ffn(name + "/ffn", pre + "ffn.", x)
        g, be, eps = self.norm_of(pre + "ln2_")
        return b.residual_norm(name + "/ln2", x, f, self.alpha, g, be, eps)

    def attention(self, name, pre, x):
        b, t, a = self.b, self.t, self.arch
        H, dh, d = self.H, self.dh, a["d"]

        def proj(c):
            y = b.linear(f"{name}/{c.upper()}", x, t(f"{pre}{c}_w").reshape(self.dm, d),
                         t(f"{pre}{c}_b"))
            y = b.reshape(f"{name}/{c.upper()}/heads", y, [-1, 64, H, dh])
            return b.transpose(f"{name}/{c.upper()}/bhtd", y, [0, 2, 1, 3])  # [N][H][64][dh]

        q, k, v = proj("q"), proj("k"), proj("v")
        kt = b.transpose(name + "/K/T", k, [0, 1, 3, 2])
        s = b.node("MatMul", [q, kt], name + "/QK")  # [N][H][64 q][64 k]
        for i, r in enumerate(rpe.score_terms(b, name, self.net, pre, q, k, H, dh)):
            s = b.node("Add", [s, r], f"{name}/rpe/add{i}")
        s = b.node("Mul", [s, b.scalar(name + "/scale", 1.0 / math.sqrt(dh))], name + "/QK/scale")
        if t(pre + "smolgen.compress") is not None:
            s = b.node("Add", [s, self.smolgen(name + "/smolgen", pre + "smolgen.", x)],
                       name + "/smolgen/add")
        att = b.node("Softmax", [s], name + "/softmax", axis=-1)
        o = b.node("MatMul", [att, v], name + "/AV")  # [N][H][64][dh]
        r = rpe.value_term(b, name, self.net, pre, att, H, dh)
        if r is not None:
            o = b.node("Add", [o, r], name + "/rpe_v/add")
        o = b.transpose(name + "/out/T", o, [0, 2, 1, 3])
        return b.reshape(name + "/out", o, [-1, 64, self.dm])

    def smolgen(self, name, pre, x):
        """The per-position score bias [N][H][64][64] (NETWORK.md section 5)."""
        b, t, a = self.b, self.t, self.arch
        d, H, act = a["d"], self.H, a["smolgen_activation"]
        comp = t(pre + "compress")
        hc = comp.size // d
        c = b.linear(name + "/compress", x, comp.reshape(hc, d), None)
        c = b.reshape(name + "/compress/flat", c, [-1, 64 * hc])
        w1 = t(pre + "dense1_w")
        hs = w1.size // (64 * hc)
        h = b.linear(name + "/dense1", c, w1.reshape(hs, 64 * hc), t(pre + "dense1_b"), act)
        g, be, _ = self.norm_of(pre + "ln1_")
        h = b.norm(name + "/ln1", h, g, be, SMOLGEN_EPS)
        w2 = t(pre + "dense2_w")
        h = b.linear(name + "/dense2", h, w2.reshape(w2.size // hs, hs), t(pre + "dense2_b"), act)
        g, be, _ = self.norm_of(pre + "ln2_")
        h = b.norm(name + "/ln2", h, g, be, SMOLGEN_EPS)
        gw = t("weights.smolgen_w")
        gs = gw.size // 4096
        h = b.reshape(name + "/gen/heads", h, [-1, H, gs])
        if not hasattr(self, "smolgen_global"):
            # One [gs][4096] matrix shared by every layer: one initializer.
            self.smolgen_global = b.weight("/smolgen/global/w", gw.reshape(4096, gs).T)
            gb = t("weights.smolgen_b")
            self.smolgen_global_b = None if gb is None else b.weight("/smolgen/global/b", gb)
        g = b.node("MatMul", [h, self.smolgen_global], name + "/gen/matmul")
        if self.smolgen_global_b is not None:
            g = b.node("Add", [g, self.smolgen_global_b], name + "/gen/add")
        return b.reshape(name + "/gen", g, [-1, H, 64, 64])
