"""Net.evaluate_arrays against Net.evaluate, position by position: the same
W/D/L, Q, moves left and legal-move logits; the mask, the planes and the
chunking of long batches."""
import numpy as np
import pytest

import cformer
from cformer import _arrays
from conftest import MATE_IN_1, START_FEN

POSITIONS = [
    "startpos",
    ("startpos", ["e2e4", "e7e5", "g1f3"]),
    "8/P6k/8/8/8/8/8/K7 w - - 0 1",                  # promotions, a transformed frame
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",          # castling both ways, black
    MATE_IN_1,
    "7k/5QQ1/8/8/8/8/8/K7 b - - 0 1",                # mated: no legal move
    {"fen": START_FEN, "moves": ["d2d4", "g8f6", "c2c4"]},
]


def check_rows(net, arrays, positions):
    evs = net.evaluate(positions)
    assert len(arrays) == len(positions)
    for i, (p, ev) in enumerate(zip(positions, evs)):
        np.testing.assert_allclose(arrays.wdl[i], ev.wdl, rtol=0, atol=1e-6)
        assert arrays.q[i] == pytest.approx(ev.q, abs=1e-6)
        if np.isnan(ev.moves_left):
            assert np.isnan(arrays.moves_left[i])
        else:
            assert arrays.moves_left[i] == pytest.approx(ev.moves_left, abs=1e-4)
        idx = net.policy_indices(p)
        assert set(idx) == set(ev.logits)
        assert arrays.legal[i].sum() == len(ev.logits)
        for move, logit in ev.logits.items():
            assert arrays.legal[i, idx[move]]
            assert arrays.policy[i, idx[move]] == pytest.approx(logit, abs=1e-5)
        # The probabilities over the legal entries are evaluate's policy.
        probs = arrays.probabilities()[i]
        for move, prob in ev.policy.items():
            assert probs[idx[move]] == pytest.approx(prob, abs=1e-5)
        assert probs[~arrays.legal[i]].sum() == 0


def test_equal_to_evaluate(net):
    a = net.evaluate_arrays(POSITIONS)
    assert a.wdl.shape == (len(POSITIONS), 3) and a.wdl.dtype == np.float32
    assert a.q.shape == a.moves_left.shape == a.transform.shape == (len(POSITIONS),)
    assert a.policy.shape == a.legal.shape == (len(POSITIONS), 1858)
    assert a.policy.dtype == np.float32 and a.legal.dtype == np.bool_
    assert a.planes is None
    assert np.isfinite(a.policy).all()  # every entry has a logit, legal or not
    assert (a.transform != 0).any()
    check_rows(net, a, POSITIONS)


def test_reference_backend_too():
    with cformer.Net(backend="ref") as ref:
        check_rows(ref, ref.evaluate_arrays(POSITIONS), POSITIONS)


def test_planes_on_request(net):
    a = net.evaluate_arrays(POSITIONS, planes=True)
    assert a.planes.shape == (len(POSITIONS), 112, 8, 8) and a.planes.dtype == np.float32
    for i, p in enumerate(POSITIONS):
        planes, transform = net.planes(p, with_transform=True)
        np.testing.assert_array_equal(a.planes[i].reshape(112, 64), planes)
        assert a.transform[i] == transform


def test_single_position_and_empty_batch(net):
    a = net.evaluate_arrays(("startpos", ["e2e4"]))
    assert a.wdl.shape == (1, 3)
    assert a.legal.sum() == 20
    empty = net.evaluate_arrays([])
    assert empty.policy.shape == (0, 1858)


def test_entry_names():
    assert cformer.policy_move(0) == "a1b1"
    assert cformer.policy_move(0, black_to_move=True) == "a8b8"
    with pytest.raises(cformer.ArgumentError, match="out of range"):
        cformer.policy_move(1858)


def test_chunks(net, monkeypatch):
    # Several library calls for one batch; errors name the whole batch's index.
    monkeypatch.setattr(_arrays, "CHUNK", 3)
    a = net.evaluate_arrays(POSITIONS)
    check_rows(net, a, POSITIONS)
    bad = POSITIONS[:4] + [("startpos", ["e2e5"])]
    with pytest.raises(cformer.ArgumentError, match="position 4"):
        net.evaluate_arrays(bad)


def test_bad_input(net):
    with pytest.raises(cformer.ArgumentError, match="position 1"):
        net.evaluate_arrays(["startpos", "not a fen"])
    with pytest.raises(TypeError):
        net.evaluate_arrays(12)
    # The net is fine afterwards.
    assert net.evaluate_arrays("startpos").legal.sum() == 20
