"""Net.search: every root move's visits, prior, Q and PV, MultiPV lines, a
mate, and a search without limits ended by Net.stop() from another thread."""
import math
import threading
import time

import numpy as np
import pytest

import cformer
from conftest import MATE_IN_1


def test_root_moves(net):
    r = net.search(("startpos", ["e2e4", "e7e5"]), nodes=200, multipv=3)
    assert isinstance(r, cformer.SearchResult)
    assert len(r.moves) == 29
    assert r.moves[0].move == r.move
    assert [m.move for m in r.lines] == [m.move for m in r.moves[:3]]
    assert r.pv == r.moves[0].pv and r.pv[0] == r.move and r.pv[1] == r.ponder
    assert sum(m.visits for m in r.moves) in (r.visits, r.visits - 1)
    assert sum(m.prior for m in r.moves) == pytest.approx(1.0, abs=1e-3)
    for m in r.moves:
        if m.visits:
            assert -1 <= m.q <= 1
            assert m.q == pytest.approx(float(m.wdl[0] - m.wdl[2]), abs=1e-4)
            assert m.pv and m.pv[0] == m.move
        else:
            assert math.isnan(m.q)
    assert not r.stopped
    assert r.evaluations >= 1


def test_mate_and_no_moves(net):
    r = net.search(MATE_IN_1, nodes=100)
    assert r.move == "a1a8" and r.mate == 1 and r.moves[0].mate == 1
    r = net.search("7k/5QQ1/8/8/8/8/8/K7 b - - 0 1", nodes=10)
    assert r.move is None and r.moves == [] and r.pv == []
    assert (r.q, r.wdl.tolist(), r.mate, r.visits) == (-1, [0, 0, 1], 0, 0)
    r = net.search("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", nodes=10, multipv=3)  # stalemated
    assert r.move is None and r.lines == [] and r.pv == []
    assert (r.q, r.wdl.tolist(), r.mate, r.cp) == (0, [0, 1, 0], 0, 0)


def test_stop_from_another_thread():
    # An infinite search ends only because another thread stops it.
    with cformer.Net() as net:
        assert not net.stop()  # nothing running: nothing happens
        box = {}
        th = threading.Thread(target=lambda: box.setdefault(
            "r", net.search("startpos", infinite=True)))
        th.start()
        deadline = time.monotonic() + 60
        while not net.searching and th.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)
        assert net.stop()
        th.join(60)
        assert not th.is_alive(), "the search did not stop"
        r = box["r"]
        assert r.stopped and r.visits >= 1 and len(r.moves) == 20
        # The next search is not stopped by the old request.
        r = net.search("startpos", nodes=50)
        assert not r.stopped and r.visits > 1


def test_bad_input(net):
    with pytest.raises(cformer.ArgumentError, match="stop flag|position 0"):
        net.search("bad fen", nodes=10)
    with pytest.raises(ValueError, match="multipv"):
        net.search("startpos", multipv=0)
    with pytest.raises(ValueError):
        net.search("startpos", nodes=-1)
    with pytest.raises(TypeError):
        net.search(["startpos"])
    assert net.search("startpos", nodes=20).move is not None
