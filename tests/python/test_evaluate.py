"""Evaluation results: shapes, probabilities, temperature, position forms,
input planes and history."""
import math

import numpy as np
import pytest

from conftest import START_FEN

MOVES = ["e2e4", "e7e5", "g1f3"]


def softmax(logits, t):
    x = np.array(logits, dtype=np.float64) / t
    e = np.exp(x - x.max())
    return e / e.sum()


def test_result_fields(net):
    ev = net.evaluate((START_FEN, MOVES))
    assert ev.wdl.dtype == np.float32 and ev.wdl.shape == (3,)
    assert abs(float(ev.wdl.sum()) - 1) < 1e-5
    assert abs(ev.q - float(ev.wdl[0] - ev.wdl[2])) < 1e-6
    assert isinstance(ev.q, float) and isinstance(ev.moves_left, float)
    assert net.info.has_moves_left or math.isnan(ev.moves_left)
    assert len(ev.policy) == 29  # black's legal moves after 1. e4 e5 2. Nf3
    assert all(isinstance(m, str) and isinstance(p, float) for m, p in ev.policy.items())
    assert ev.best_move == next(iter(ev.policy))


def test_probabilities(net):
    ev = net.evaluate(START_FEN)
    probs = list(ev.policy.values())
    assert abs(sum(probs) - 1) < 1e-5
    assert probs == sorted(probs, reverse=True)
    assert list(ev.logits.values()) == sorted(ev.logits.values(), reverse=True)
    assert list(ev.policy) == list(ev.logits)
    np.testing.assert_allclose(probs, softmax(list(ev.logits.values()), 1.0), atol=1e-6)


@pytest.mark.parametrize("t", [0.5, 2.0, 10.0])
def test_temperature(net, t):
    base = net.evaluate(START_FEN)
    ev = net.evaluate(START_FEN, temperature=t)
    assert ev.logits == base.logits
    np.testing.assert_array_equal(ev.wdl, base.wdl)
    moves = list(ev.logits)
    np.testing.assert_allclose([ev.policy[m] for m in moves],
                               softmax([ev.logits[m] for m in moves], t), atol=1e-6)
    assert abs(sum(ev.policy.values()) - 1) < 1e-5
    # Lower temperature sharpens: the top move gains.
    top = moves[0]
    assert (ev.policy[top] > base.policy[top]) == (t < 1)


def test_temperature_zero_is_one(net):
    assert net.evaluate(START_FEN, temperature=0).policy == net.evaluate(START_FEN).policy


def test_position_forms(net):
    single = net.evaluate((START_FEN, MOVES))
    forms = [(None, MOVES), {"fen": START_FEN, "moves": MOVES}, {"moves": tuple(MOVES)},
             (START_FEN, iter(MOVES))]
    for ev in net.evaluate(forms):
        # Batched passes may round differently from a batch of one.
        assert ev.logits.keys() == single.logits.keys()
        np.testing.assert_allclose(list(ev.logits.values()), list(single.logits.values()),
                                   atol=1e-4)
        np.testing.assert_allclose(ev.wdl, single.wdl, atol=1e-5)
    assert net.evaluate([]) == []
    assert isinstance(net.evaluate([START_FEN]), list)
    batch = net.evaluate(p for p in [START_FEN, (START_FEN, MOVES)])
    assert batch[1].logits.keys() == single.logits.keys()
    assert net.evaluate(START_FEN).logits == net.evaluate((None, [])).logits \
        == net.evaluate({"fen": None}).logits


def test_batch_matches_singles(net):
    positions = [START_FEN, (None, MOVES), "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
                 "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"]
    batch = net.evaluate(positions)
    for p, ev in zip(positions, batch):
        one = net.evaluate(p)
        np.testing.assert_allclose(ev.wdl, one.wdl, atol=1e-5)
        assert set(ev.logits) == set(one.logits)  # near-equal logits may swap places
        for m in one.logits:
            assert abs(ev.logits[m] - one.logits[m]) < 1e-4


def test_no_legal_moves(net):
    for fen in ["7k/5QQ1/8/8/8/8/8/K7 b - - 0 1",    # checkmated
                "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"]:   # stalemated
        ev = net.evaluate(fen)
        assert ev.policy == {} and ev.logits == {} and ev.best_move is None
        assert ev.wdl.shape == (3,)


def test_planes_shape(net):
    planes = net.planes(START_FEN)
    assert planes.shape == (112, 64) and planes.dtype == np.float32
    assert planes.flags.c_contiguous and planes.flags.writeable
    planes, transform = net.planes((None, MOVES), with_transform=True)
    assert planes.shape == (112, 64) and isinstance(transform, int)
    # Black to move: the planes are from black's side, black's pawns (ours,
    # plane 0) on the second rank of that view.
    assert planes[0].reshape(8, 8)[1].sum() == 7  # e-pawn has moved


def test_history_matters(net):
    # The start position again after the knights went out and back.
    via_moves = (None, ["g1f3", "g8f6", "f3g1", "f6g8"])
    via_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4 3"
    a, b = net.planes(via_moves), net.planes(via_fen)
    np.testing.assert_array_equal(a[:12], b[:12])  # the same pieces now
    assert not np.array_equal(a, b)                # not the same game
    assert net.evaluate(via_moves).logits != net.evaluate(via_fen).logits
