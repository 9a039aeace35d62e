"""Positions in every accepted form: "startpos", (fen, moves), dicts and board
objects with .fen() and a move stack (python-chess's Board is one; Debian
12 has no python3-chess, so fake_chess's look-alike stands in for it)."""
import numpy as np
import pytest

import cformer
from conftest import START_FEN
from fake_chess import Board as FakeBoard

LINE = ["e2e4", "e7e5", "g1f3", "b8c6"]


class FenOnly:
    """An object with fen() and nothing else: its FEN alone is the position."""

    def __init__(self, fen):
        self._fen = fen

    def fen(self):
        return self._fen


def same(a, b):
    np.testing.assert_array_equal(a.wdl, b.wdl)
    assert a.logits == b.logits


def test_startpos_forms(net):
    ref = net.evaluate((None, LINE))
    same(net.evaluate(("startpos", LINE)), ref)
    same(net.evaluate({"fen": "startpos", "moves": LINE}), ref)
    same(net.evaluate(("startpos", [])), net.evaluate("startpos"))
    same(net.evaluate("startpos"), net.evaluate(START_FEN))


def test_board_object_uses_its_history(net):
    ref = net.evaluate((None, LINE))
    # The final FEN is nonsense: only the root and the move stack are read.
    board = FakeBoard(moves=LINE, final_fen="not read")
    same(net.evaluate(board), ref)
    # Boards are single positions; a list of them is a batch.
    evs = net.evaluate([board, FakeBoard()])
    same(evs[0], ref)
    same(evs[1], net.evaluate("startpos"))
    assert net.choose(board, agent="policy").move == ref.best_move


def test_object_with_only_fen(net):
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    same(net.evaluate(FenOnly(fen)), net.evaluate(fen))


def test_board_errors(net):
    with pytest.raises(cformer.ArgumentError, match="move 2"):
        net.evaluate(FakeBoard(moves=["e2e4", "e2e4"]))

    class BadStack(FakeBoard):
        def __init__(self):
            super().__init__()
            self.move_stack = [42]

    with pytest.raises(TypeError, match="move 1 of the board"):
        net.evaluate(BadStack())
    with pytest.raises(TypeError, match="not a str"):
        net.evaluate(FenOnly(7))
    with pytest.raises(TypeError, match="board"):
        net.evaluate(3.5)
