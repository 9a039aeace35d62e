"""The Chessformer network in PyTorch, exactly as docs/NETWORK.md
describes it (the semantics cformer's C forward pass implements):

  * "old" embedding: the 112 input features per square, a dense layer to d
    with the default activation (mish), then multiplicative/additive gating;
  * L post-norm encoder layers with DeepNorm residuals (alpha = (2L)^-1/4),
    RMSNorm (eps 1e-5), q/k/v without biases, Shaw relative-position terms
    rpe_q, rpe_k, rpe_v indexed by p(q, k) = 15 (dr + 7) + (df + 7);
  * attention policy head (vanilla) with promotion offsets, gathered to Lc0's
    1858-move order;
  * WDL value head (winner), optional moves-left head.

With pos_encoding="lc0-map" the body is instead the layout Lc0's own
backends run (input embedding PE_MAP with F = 176, docs/NETWORK.md section 4):
the 112 features of each token followed by Lc0's fixed 64-channel positional
table (pos_table(), the rule of encoder/cf_pos_table.c), no RPE tables,
q/k/v biases (Lc0 reads the attention width from q_b) and LayerNorm with
betas, eps 1e-6 (Lc0's epsilon for such nets; its blas backend has no
RMSNorm). A network trained this way runs in Lc0 and in cformer alike.

Parameter names are "our trainer's naming" documented in docs/TRAINER_NAMES.md
and accepted by `netconv import`; every 2-D weight is nn.Linear's [out][in].
"""

import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


def rpe_index():
    """p(q, k) for every query/key square pair: LongTensor [64, 64]."""
    sq = torch.arange(64)
    rank, file = sq // 8, sq % 8
    dr = rank[:, None] - rank[None, :] + 7
    df = file[:, None] - file[None, :] + 7
    return 15 * dr + df


POS_ENCODINGS = ("rpe", "lc0-map")


def pos_table():
    """Lc0's PE_MAP table, [64 token][64 channel]: -1 on the token's own
    square, 1 where a queen or a knight standing on it would reach on an
    empty board, 0 elsewhere (the rule cf_pos_table_at implements in C)."""
    sq = torch.arange(64)
    df = (sq[:, None] % 8 - sq[None, :] % 8).abs()
    dr = (sq[:, None] // 8 - sq[None, :] // 8).abs()
    queen = (df == 0) | (dr == 0) | (df == dr)
    knight = ((df == 1) & (dr == 2)) | ((df == 2) & (dr == 1))
    t = (queen | knight).float()
    t[sq, sq] = -1.0
    return t


def policy_gather_index(path=None):
    """Index into the 4288 attention-policy vector for each of the 1858 moves."""
    if path is None:
        path = os.path.join(HERE, "..", "data", "policy_index_1858.txt")
    promo_rank = {"q": 0, "r": 1, "b": 2}
    out = []
    with open(path) as f:
        for line in f:
            m = line.strip()
            if not m:
                continue
            fr = (ord(m[0]) - 97) + 8 * (int(m[1]) - 1)
            to = (ord(m[2]) - 97) + 8 * (int(m[3]) - 1)
            if len(m) == 5 and m[4] in promo_rank:
                out.append(4096 + (fr % 8) * 24 + (to % 8) * 3 + promo_rank[m[4]])
            else:
                out.append(fr * 64 + to)
    assert len(out) == 1858, len(out)
    return torch.tensor(out, dtype=torch.long)


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Attention(nn.Module):
    """Multi-head self-attention over the 64 squares with Shaw RPE."""

    def __init__(self, d, heads, rpe_idx):
        super().__init__()
        self.h, self.dh = heads, d // heads
        self.wq = nn.Linear(d, d, bias=False)
        self.wk = nn.Linear(d, d, bias=False)
        self.wv = nn.Linear(d, d, bias=False)
        self.dense = nn.Linear(d, d)
        # [225][dh*H], element (p, i*H + h): depth-major, head-minor (spec section 2).
        self.rpe_q = nn.Parameter(torch.randn(225, d) * 0.02)
        self.rpe_k = nn.Parameter(torch.randn(225, d) * 0.02)
        self.rpe_v = nn.Parameter(torch.randn(225, d) * 0.02)
        self.register_buffer("idx", rpe_idx, persistent=False)

    def _heads(self, e):
        # [225][dh*H] (i*H + h) -> [H][225][dh]
        return e.view(225, self.dh, self.h).permute(2, 0, 1)

    def forward(self, x):  # x: [B][64][d]
        b = x.shape[0]
        split = lambda t: t.view(b, 64, self.h, self.dh).transpose(1, 2)  # [B][H][64][dh]
        q, k, v = split(self.wq(x)), split(self.wk(x)), split(self.wv(x))
        eq, ek, ev = self._heads(self.rpe_q), self._heads(self.rpe_k), self._heads(self.rpe_v)
        idx = self.idx
        s = q @ k.transpose(-1, -2)  # [B][H][64 q][64 k]
        # Q[q] . Eq[p(q,k)]: project on all 225 offsets, then gather per (q, k).
        qe = torch.einsum("bhqi,hpi->bhqp", q, eq)
        s = s + torch.gather(qe, 3, idx.expand(b, self.h, 64, 64))
        # K[k] . Ek[p(q,k)]: ke[b,h,k,p]; need ke[k][p(q,k)] placed at (q, k).
        ke = torch.einsum("bhki,hpi->bhkp", k, ek)
        s = s + torch.gather(ke, 3, idx.t().expand(b, self.h, 64, 64)).transpose(-1, -2)
        a = torch.softmax(s / math.sqrt(self.dh), dim=-1)
        o = a @ v
        # Σ_k A[q][k] Ev[p(q,k)]: scatter A onto the 225 offsets, then one matmul.
        ap = torch.zeros(b, self.h, 64, 225, dtype=a.dtype, device=a.device)
        ap.scatter_add_(3, idx.expand(b, self.h, 64, 64), a)
        o = o + ap @ ev
        o = o.transpose(1, 2).reshape(b, 64, self.h * self.dh)
        return self.dense(o)


class PlainAttention(nn.Module):
    """Multi-head self-attention without position terms, with q/k/v biases:
    the attention of the lc0-map layout (the positions enter through the
    embedding's table instead)."""

    def __init__(self, d, heads):
        super().__init__()
        self.h, self.dh = heads, d // heads
        self.wq = nn.Linear(d, d)
        self.wk = nn.Linear(d, d)
        self.wv = nn.Linear(d, d)
        self.dense = nn.Linear(d, d)

    def forward(self, x):  # x: [B][64][d]
        b = x.shape[0]
        split = lambda t: t.view(b, 64, self.h, self.dh).transpose(1, 2)  # [B][H][64][dh]
        q, k, v = split(self.wq(x)), split(self.wk(x)), split(self.wv(x))
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(self.dh), dim=-1)
        return self.dense((a @ v).transpose(1, 2).reshape(b, 64, self.h * self.dh))


class EncoderLayer(nn.Module):
    def __init__(self, d, heads, dff, alpha, rpe_idx):
        super().__init__()
        # rpe_idx None: the lc0-map layout (plain attention, LayerNorm 1e-6).
        if rpe_idx is None:
            self.mha = PlainAttention(d, heads)
            norm = lambda: nn.LayerNorm(d, eps=1e-6)
        else:
            self.mha = Attention(d, heads, rpe_idx)
            norm = lambda: RMSNorm(d)
        self.ln1 = norm()
        self.ffn1 = nn.Linear(d, dff)
        self.ffn2 = nn.Linear(dff, d)
        self.ln2 = norm()
        self.alpha = alpha

    def forward(self, x):
        x = self.ln1(x + self.alpha * self.mha(x))
        return self.ln2(x + self.alpha * self.ffn2(F.mish(self.ffn1(x))))


class Chessformer(nn.Module):
    def __init__(self, layers=6, d=128, heads=8, dff=256, policy_d=None, value_cv=32,
                 moves_left_cm=0, inputs=112, pos_encoding="rpe"):
        super().__init__()
        if pos_encoding not in POS_ENCODINGS:
            raise ValueError(f"pos_encoding {pos_encoding!r}: expected one of {POS_ENCODINGS}")
        self.config = dict(layers=layers, d=d, heads=heads, dff=dff, policy_d=policy_d or d,
                           value_cv=value_cv, moves_left_cm=moves_left_cm, inputs=inputs,
                           pos_encoding=pos_encoding)
        alpha = (2.0 * layers) ** -0.25
        self.lc0_map = pos_encoding == "lc0-map"
        idx = None if self.lc0_map else rpe_index()
        if self.lc0_map:
            # Not a parameter: fixed, and not in the state_dict (the C side
            # generates the same table).
            self.register_buffer("pos_table", pos_table(), persistent=False)
        self.embedding = nn.Linear(inputs + (64 if self.lc0_map else 0), d)
        self.mult_gate = nn.Parameter(torch.ones(d, 64))  # [d][64]: channel c of token t at c*64+t
        self.add_gate = nn.Parameter(torch.zeros(d, 64))
        self.encoder = nn.ModuleList(EncoderLayer(d, heads, dff, alpha, idx) for _ in range(layers))
        pd = policy_d or d
        self.policy_embedding = nn.Linear(d, pd)
        self.policy_wq = nn.Linear(pd, pd)
        self.policy_wk = nn.Linear(pd, pd)
        self.policy_ppo = nn.Linear(pd, 4, bias=False)  # [4][dp], rows q r b n
        self.value_embedding = nn.Linear(d, value_cv)
        self.value_dense1 = nn.Linear(64 * value_cv, 128)
        self.value_dense2 = nn.Linear(128, 3)
        self.moves_left_cm = moves_left_cm
        if moves_left_cm:
            self.ml_embedding = nn.Linear(d, moves_left_cm)
            self.ml_dense1 = nn.Linear(64 * moves_left_cm, 128)
            self.ml_dense2 = nn.Linear(128, 1)
        self.register_buffer("gather1858", policy_gather_index(), persistent=False)
        self._deepnorm_init(layers)

    def _deepnorm_init(self, layers):
        # DeepNorm: xavier-normal with gain beta = (8L)^-1/4 on v, output and FFN weights.
        beta = (8.0 * layers) ** -0.25
        for layer in self.encoder:
            for lin, gain in ((layer.mha.wq, 1.0), (layer.mha.wk, 1.0), (layer.mha.wv, beta),
                              (layer.mha.dense, beta), (layer.ffn1, beta), (layer.ffn2, beta)):
                nn.init.xavier_normal_(lin.weight, gain=gain)
                if lin.bias is not None:
                    nn.init.zeros_(lin.bias)

    def body(self, planes):  # planes: [B][112][64] float
        x = planes.transpose(1, 2)  # [B][64 tokens][112 features]
        if self.lc0_map:
            x = torch.cat([x, self.pos_table.to(x.dtype).expand(x.shape[0], 64, 64)], dim=2)
        e = F.mish(self.embedding(x))
        e = e * self.mult_gate.t() + self.add_gate.t()
        for layer in self.encoder:
            e = layer(e)
        return e

    def policy(self, y):  # -> [B][1858] raw logits
        p0 = F.mish(self.policy_embedding(y))
        qp, kp = self.policy_wq(p0), self.policy_wk(p0)
        dp = qp.shape[-1]
        logits = qp @ kp.transpose(1, 2) / math.sqrt(dp)  # [B][64 from][64 to]
        o = self.policy_ppo(kp[:, 56:64, :])  # [B][8 files][4]
        o = o[:, :, :3] + o[:, :, 3:4]  # q, r, b offsets plus the knight's
        promo = logits[:, 48:56, 56:64].unsqueeze(-1) + o.unsqueeze(1)  # [B][8 i][8 j][3]
        full = torch.cat([logits.reshape(-1, 4096), promo.reshape(-1, 192)], dim=1)
        return full[:, self.gather1858]

    def value(self, y):  # -> [B][3] WDL logits
        v = F.mish(self.value_embedding(y)).flatten(1)
        return self.value_dense2(F.mish(self.value_dense1(v)))

    def moves_left(self, y):
        m = F.mish(self.ml_embedding(y)).flatten(1)
        return F.relu(self.ml_dense2(F.mish(self.ml_dense1(m)))).squeeze(-1)

    def forward(self, planes):
        y = self.body(planes)
        out = {"policy": self.policy(y), "wdl": self.value(y)}
        if self.moves_left_cm:
            out["moves_left"] = self.moves_left(y)
        return out
