"""Positions in every accepted form: "startpos", (fen, moves), dicts and board
objects with .fen() and a move stack (python-chess's Board is one; this
machine's Debian has no python3-chess, so a look-alike with the same
methods stands in for it)."""
import numpy as np
import pytest

import cformer
from conftest import START_FEN

LINE = ["e2e4", "e7e5", "g1f3", "b8c6"]


class FakeMove:
    """The part of chess.Move the package uses."""

    def __init__(self, uci):
        self._uci = uci

    def uci(self):
        return self._uci


class FakeBoard:
    """The part of chess.Board the package uses: fen(), move_stack, root().
    fen() here is the *final* position's FEN only in name: it is a marker
    string, so a test can tell whether the package read the history (root
    FEN + moves) or the final FEN."""

    def __init__(self, root_fen=START_FEN, moves=(), final_fen=None):
        self._root = root_fen
        self.move_stack = [FakeMove(m) for m in moves]
        self._final = final_fen

    def fen(self):
        return self._final if self._final is not None else self._root

    def root(self):
        return FakeBoard(self._root)


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
