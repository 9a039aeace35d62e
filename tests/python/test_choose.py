"""Choosing moves with the library's agents."""
import pytest

import cformer
from conftest import MATE_IN_1, START_FEN


def test_agents():
    names = cformer.agents()
    assert "policy" in names and "value" in names
    assert all(isinstance(n, str) for n in names)


def test_policy_agent_is_argmax(net):
    for pos in [START_FEN, (None, ["e2e4", "c7c5"]), "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"]:
        ev = net.evaluate(pos)
        best = max(ev.logits, key=ev.logits.get)
        ch = net.choose(pos, agent="policy")
        assert ch.move == best
        assert isinstance(ch, cformer.Choice)


def test_value_agent_legal(net):
    pos = (None, ["e2e4", "e7e5"])
    ch = net.choose(pos, agent="value")
    assert ch.move in net.evaluate(pos).policy
    assert -1 <= ch.q <= 1 and ch.wdl.shape == (3,)
    assert ch.evaluations > 0 and isinstance(ch.stopped, bool)
    assert ch.ponder is None or isinstance(ch.ponder, str)


def test_value_agent_mates(net):
    ch = net.choose(MATE_IN_1, agent="value")
    assert ch.move == "a1a8"
    assert ch.mate == 1 and ch.q == pytest.approx(1.0)


def test_default_agent(net):
    assert net.choose(START_FEN).move in net.evaluate(START_FEN).policy


def test_limits(net):
    ch = net.choose(START_FEN, agent="value", nodes=3)
    assert ch.move in net.evaluate(START_FEN).policy
    assert ch.evaluations <= 3 + 1
    ch = net.choose(START_FEN, agent="value", movetime=0.05)
    assert ch.move is not None
    ch = net.choose(START_FEN, agent="policy", temperature=0.5, nodes=10, movetime=1.0)
    assert ch.move is not None


@pytest.mark.parametrize("agent", ["search", "policy", "value"])
def test_no_legal_move(net, agent):
    # The game's result as the score (UCI's mate 0 / cp 0), no move.
    ch = net.choose("7k/5QQ1/8/8/8/8/8/K7 b - - 0 1", agent=agent)  # checkmated
    assert ch.move is None and ch.ponder is None
    assert (ch.q, ch.wdl.tolist(), ch.mate, ch.evaluations) == (-1, [0, 0, 1], 0, 0)
    ch = net.choose("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", agent=agent)  # stalemated
    assert ch.move is None and ch.ponder is None
    assert (ch.q, ch.wdl.tolist(), ch.mate, ch.cp) == (0, [0, 1, 0], 0, 0)


def test_unknown_agent(net):
    with pytest.raises(cformer.ArgumentError, match="unknown agent 'nope'") as e:
        net.choose(START_FEN, agent="nope")
    assert e.value.status == cformer.Status.ARG
    assert net.choose(START_FEN, agent="policy").move  # still fine


@pytest.mark.parametrize("kwargs", [dict(nodes=-1), dict(movetime=-0.5),
                                    dict(movetime=float("inf")), dict(temperature=-1.0),
                                    dict(temperature=float("inf")), dict(temperature=float("nan"))])
def test_bad_limits(net, kwargs):
    # Checked by the library (or the binding), never silently used.
    with pytest.raises((cformer.ArgumentError, ValueError)):
        net.choose(START_FEN, agent="policy", **kwargs)
    assert net.choose(START_FEN, agent="policy").move
