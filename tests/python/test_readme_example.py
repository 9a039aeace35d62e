"""The notebook example of python/README.md runs, cell after cell, and prints
what the README shows wherever that does not depend on the backend's
arithmetic (shapes, counts, flags). python-chess is optional: without it a
stand-in `chess` module with the three methods the example uses is put in
its place."""
import contextlib
import io
import pathlib
import re
import sys
import types

README = pathlib.Path(__file__).resolve().parents[2] / "python" / "README.md"


def _stand_in_chess():
    mod = types.ModuleType("chess")

    class Move:
        def __init__(self, uci):
            self._uci = uci

        def uci(self):
            return self._uci

    class Board:
        def __init__(self, fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"):
            self._root = fen
            self.move_stack = []

        def push_uci(self, uci):
            self.move_stack.append(Move(uci))

        def root(self):
            return Board(self._root)

        def fen(self):
            assert not self.move_stack, "the stand-in knows only its root's FEN"
            return self._root

    mod.Board, mod.Move = Board, Move
    return mod


def cells():
    text = README.read_text()
    section = text.split("## Example: a notebook session", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_notebook_cells(monkeypatch):
    try:
        import chess
        real = hasattr(chess, "Board")  # not the tree's own chess/ folder
    except ImportError:
        real = False
    if not real:
        monkeypatch.setitem(sys.modules, "chess", _stand_in_chess())
    found = cells()
    assert len(found) >= 4
    scope = {}
    compared = 0
    for cell in found:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(cell, str(README), "exec"), scope)
        shown, prev_prints = [], False
        for line in cell.splitlines():
            # An output line: a comment right under a print(...) or another one.
            if line.startswith("# ") and prev_prints:
                shown.append(line[2:])
            else:
                prev_prints = "print(" in line
        printed = out.getvalue().splitlines()
        assert len(printed) == len(shown), (cell, printed)
        for want, got in zip(shown, printed):
            if "." not in want and not want.startswith("<"):
                assert got == want
                compared += 1
    assert compared >= 3
