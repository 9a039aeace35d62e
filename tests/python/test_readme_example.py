"""The notebook example of python/README.md runs, cell after cell, and prints
what the README shows wherever that does not depend on the backend's
arithmetic (shapes, counts, flags). python-chess is optional: without it
fake_chess stands in as the `chess` module."""
import contextlib
import io
import pathlib
import re
import sys
import types

import fake_chess

README = pathlib.Path(__file__).resolve().parents[2] / "python" / "README.md"


def _stand_in_chess():
    mod = types.ModuleType("chess")
    mod.Board, mod.Move = fake_chess.Board, fake_chess.Move
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
