"""The heads as ONNX (docs/NETWORK.md sections 6-7), under leela2onnx's
output names: the attention policy with its promotion offsets gathered to
Lc0's 1858 moves, the value heads and moves-left.

Outputs (N = the dynamic batch):
  /output/policy          [N,1858] raw logits of the vanilla head
  /output/policy_<head>   [N,1858] every other policy head (soft, optimistic_st, opponent)
  /output/wdl             [N,3]    softmax of the winner head (W, D, L)
  /output/value           [N,1]    tanh of a one-output winner head instead of /output/wdl
  /output/value_<head>    [N,1]    tanh of scalar head q or st (/output/wdl_<head> if 3 outputs)
  /output/value[_<head>]_err [N,1] sigmoid of a head's error output
  /output/value[_<head>]_cat [N,nb] raw logits of a head's categorical output
  /output/mlh             [N,1]    moves-left (relu), where the net has it
"""

import math

import numpy as np

POLICY_HEADS = ("vanilla", "optimistic_st", "soft", "opponent")
VALUE_HEADS = ("winner", "q", "st")


class Heads:
    def __init__(self, b, net, arch):
        self.b, self.net, self.arch = b, net, arch
        self.outputs = []  # (name, width)

    def t(self, name):
        return self.net.get(name)

    def output(self, inputs, name, width, op, **attrs):
        """The last node of a head, named as the graph output."""
        self.outputs.append((name, width))
        return self.b.node(op, inputs, name, **attrs)

    # ---- policy (section 6) ----
    def policy(self, y):
        b, t, a = self.b, self.t, self.arch
        d = a["d"]
        we = t("weights.policy_heads.ip_pol_w")
        de = we.size // d
        p0 = b.linear("/policy/embed", y, we.reshape(de, d), t("weights.policy_heads.ip_pol_b"),
                      a["default_activation"])
        index = b.ints("/policy/map", self.arch["policy_map"])
        for pre, name, sfx in self.present("policy", POLICY_HEADS, "ip2_pol_w"):
            full = self.attention_policy(name, pre, p0, de)
            self.output([full, index], f"/output/policy{sfx}", 1858, "Gather", axis=1)

    def present(self, kind, heads, probe):
        """(field prefix, node name, output suffix) of each head the net has;
        the first head of the list is the unnamed one ("/policy", "/value")."""
        for head in heads:
            pre = f"weights.{kind}_heads.{head}."
            if self.t(pre + probe) is not None:
                first = head == heads[0]
                yield pre, f"/{kind}" if first else f"/{kind}/{head}", "" if first else f"_{head}"

    def attention_policy(self, name, pre, p0, de):
        """The 4288 attention slots [N][4288]: 64x64 from-to logits, then the
        8x8x3 promotion slots 4096 + i*24 + j*3 + r (policy_head/cf_policy_map.h)."""
        b, t = self.b, self.t
        wq = t(pre + "ip2_pol_w")
        dp = wq.size // de
        qp = b.linear(name + "/Q", p0, wq.reshape(dp, de), t(pre + "ip2_pol_b"))
        kp = b.linear(name + "/K", p0, t(pre + "ip3_pol_w").reshape(dp, de), t(pre + "ip3_pol_b"))
        kt = b.transpose(name + "/K/T", kp, [0, 2, 1])
        logits = b.node("MatMul", [qp, kt], name + "/QK")
        logits = b.node("Mul", [logits, b.scalar(name + "/scale", 1.0 / math.sqrt(dp))],
                        name + "/QK/scale")  # [N][64 from][64 to]
        # Promotions from rank 7 (tokens 48..55) to rank 8 (56..63).
        base = b.slice(name + "/promo/logits", logits, [48, 56], [56, 64], [1, 2])  # [N][8][8]
        base = b.node("Unsqueeze", [base, b.ints(name + "/promo/axis3", [3])],
                      name + "/promo/logits4")  # [N][8 i][8 j][1]
        ppo = t(pre + "ip4_pol_w")
        if ppo is not None:
            k8 = b.slice(name + "/promo/keys", kp, [56], [64], [1])  # [N][8 j][dp]
            o = b.node("MatMul", [k8, b.weight(name + "/promo/ppo", ppo.reshape(4, dp).T)],
                       name + "/promo/offsets")  # [N][8 j][4: q r b n]
            qrb = b.slice(name + "/promo/qrb", o, [0], [3], [2])
            kn = b.slice(name + "/promo/n", o, [3], [4], [2])
            o = b.node("Add", [qrb, kn], name + "/promo/plus_n")  # [N][8 j][3]
            o = b.node("Unsqueeze", [o, b.ints(name + "/promo/axis1", [1])],
                       name + "/promo/offsets4")  # [N][1][8 j][3]
        else:
            o = b.weight(name + "/promo/zero", np.zeros((1, 1, 8, 3), np.float32))
        promo = b.node("Add", [base, o], name + "/promo")  # [N][8][8][3]
        promo = b.reshape(name + "/promo/flat", promo, [-1, 192])
        flat = b.reshape(name + "/QK/flat", logits, [-1, 4096])
        return b.node("Concat", [flat, promo], name + "/slots", axis=1)

    # ---- value and moves-left (section 7) ----
    def dense_head(self, name, y, we, be_, w1, b1):
        """act(W1 flatten(act(We y + be)) + b1): the shared trunk of a head."""
        b, a = self.b, self.arch
        d, act = a["d"], a["default_activation"]
        cv = we.size // d
        v = b.linear(name + "/embed", y, we.reshape(cv, d), be_, act)
        v = b.reshape(name + "/flat", v, [-1, 64 * cv])
        hidden = w1.size // (64 * cv)
        return b.linear(name + "/dense1", v, w1.reshape(hidden, 64 * cv), b1, act), hidden

    def values(self, y):
        b, t = self.b, self.t
        for pre, name, sfx in self.present("value", VALUE_HEADS, "ip_val_w"):
            h, hidden = self.dense_head(name, y, t(pre + "ip_val_w"), t(pre + "ip_val_b"),
                                        t(pre + "ip1_val_w"), t(pre + "ip1_val_b"))
            w2 = t(pre + "ip2_val_w")
            outs = w2.size // hidden
            v = b.linear(name + "/dense2", h, w2.reshape(outs, hidden), t(pre + "ip2_val_b"))
            if outs == 3:
                self.output([v], f"/output/wdl{sfx}", 3, "Softmax", axis=1)
            else:
                self.output([v], f"/output/value{sfx}", 1, "Tanh")
            if t(pre + "ip_val_err_w") is not None:
                e = b.linear(name + "/err", h, t(pre + "ip_val_err_w").reshape(1, hidden),
                             t(pre + "ip_val_err_b"))
                self.output([e], f"/output/value{sfx}_err", 1, "Sigmoid")
            wc = t(pre + "ip_val_cat_w")
            if wc is not None:
                nb = wc.size // hidden
                c = b.linear(name + "/cat", h, wc.reshape(nb, hidden), t(pre + "ip_val_cat_b"))
                self.output([c, b.ints(name + "/cat/shape", [-1, nb])],
                            f"/output/value{sfx}_cat", nb, "Reshape")

    def moves_left(self, y):
        b, t = self.b, self.t
        if t("weights.ip_mov_w") is None:
            return
        h, hidden = self.dense_head("/mlh", y, t("weights.ip_mov_w"), t("weights.ip_mov_b"),
                                    t("weights.ip1_mov_w"), t("weights.ip1_mov_b"))
        m = b.linear("/mlh/dense2", h, t("weights.ip2_mov_w").reshape(1, hidden),
                     t("weights.ip2_mov_b"))
        self.output([m], "/output/mlh", 1, "Relu")
