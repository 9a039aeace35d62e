"""A faster CPU formulation of model.py's RPE attention, for training.

model.py computes the relative-position terms by projecting every query and
key on all 225 offsets and gathering (and scatters the attention weights onto
the 225 offsets for the value term): 225/64 = 3.5 times the work the 64 x 64
square pairs need, plus large gathers. Here the tables are gathered once per
call into [H][64 q][64 k][dh] (small: they are parameters, not activations)
and each term is one einsum over the square pairs. Same parameters, same
names, same mathematics: outputs agree with model.py's forward within float32
rounding (tests/training/test_training.py checks values and gradients), so
checkpoints and exports are unaffected. On this machine a 4x64 training step
takes about 1.5-2.5x less CPU time (training/README.md).

install() switches model.Attention to it; train.py does so unless
--reference-attention is given.
"""

import math

import torch

import model

_reference_forward = model.Attention.forward


def fast_forward(self, x):  # x: [B][64][d]
    b = x.shape[0]

    def split(t):
        return t.view(b, 64, self.h, self.dh).transpose(1, 2)  # [B][H][64][dh]

    q, k, v = split(self.wq(x)), split(self.wk(x)), split(self.wv(x))
    # [H][225][dh] -> [H][64 q][64 k][dh]: the offset p(q, k) of every pair.
    eq, ek, ev = (self._heads(e)[:, self.idx] for e in (self.rpe_q, self.rpe_k, self.rpe_v))
    s = q @ k.transpose(-1, -2)
    s = s + torch.einsum("bhqi,hqki->bhqk", q, eq) + torch.einsum("bhki,hqki->bhqk", k, ek)
    a = torch.softmax(s / math.sqrt(self.dh), dim=-1)
    o = a @ v + torch.einsum("bhqk,hqki->bhqi", a, ev)
    return self.dense(o.transpose(1, 2).reshape(b, 64, self.h * self.dh))


def install(fast=True):
    model.Attention.forward = fast_forward if fast else _reference_forward
