"""The package as typed, documented API: py.typed (PEP 561), annotations on
every public function and method, docstrings naming every accepted
position type; and the centipawn score beside Q, Lc0's default formula, the
same as the C engine's (`cformer analyse`'s [%eval] read back)."""
import inspect
import json
import os
import pathlib
import re
import subprocess

import numpy as np
import pytest

import cformer
from conftest import START_FEN


def test_py_typed_ships_with_the_package():
    assert (pathlib.Path(cformer.__file__).parent / "py.typed").is_file()


def _public_callables():
    for name in cformer.__all__:
        obj = getattr(cformer, name)
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj) and obj.__module__.startswith("cformer"):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                if isinstance(member, (classmethod, staticmethod)):
                    member = member.__func__
                if isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member) and member.__module__.startswith("cformer"):
                    yield "%s.%s" % (name, attr), member


def test_every_public_function_is_annotated():
    missing = []
    seen = 0
    for name, fn in _public_callables():
        seen += 1
        sig = inspect.signature(fn)
        for p in sig.parameters.values():
            if p.name in ("self", "cls") or p.annotation is not inspect.Parameter.empty:
                continue
            missing.append("%s(%s)" % (name, p.name))
        if sig.return_annotation is inspect.Signature.empty:
            missing.append("%s -> ?" % name)
    assert seen > 25
    assert missing == []


@pytest.mark.parametrize("method", ["evaluate", "evaluate_arrays", "planes", "choose",
                                    "policy_indices", "search"])
def test_docstrings_name_every_position_type(method):
    doc = " ".join(getattr(cformer.Net, method).__doc__.split())
    for kind in ("FEN str", '"startpos"', "(fen, moves) tuple", '{"fen": ..., "moves": [...]}',
                 "chess.Board"):
        assert kind in doc, (method, kind)


def test_a_python_chess_board_is_taken(net):
    """What the docstrings promise, with a board-like object."""
    class Move:
        def __init__(self, uci):
            self._uci = uci

        def uci(self):
            return self._uci

    class Board:
        move_stack = [Move("e2e4")]

        def fen(self):
            return "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"

        def root(self):
            class Root:
                def fen(self):
                    return START_FEN
            return Root()

    assert net.evaluate(Board()).logits == net.evaluate((START_FEN, ["e2e4"])).logits


def test_centipawns_shape():
    cp = cformer.centipawns
    assert cp([0.3, 0.4, 0.3]) == 0
    assert cp([0.5, 0.0, 0.5]) == 0
    for wdl in ([0.3, 0.5, 0.2], [0.6, 0.3, 0.1], [0.05, 0.9, 0.05], [0.9, 0.09, 0.01]):
        assert cp(wdl) == -cp(wdl[::-1])
    # more winning, more centipawns, with the draws held (where the model fits;
    # near a decided result WDL_mu is not monotone, in Lc0 as here)
    scores = [cp([w, 0.3, 0.7 - w]) for w in np.linspace(0.1, 0.6, 30)]
    assert scores == sorted(scores) and scores[0] < 0 < scores[-1]
    assert cp(np.array([0.999, 0.001, 0.0], dtype=np.float32)) > 1000  # the fallback, finite
    assert isinstance(cp((0.4, 0.4, 0.2)), int)


def test_cp_beside_q_everywhere(net):
    ev = net.evaluate(("startpos", ["e2e4"]))
    assert ev.cp == cformer.centipawns(ev.wdl)
    assert (ev.cp > 0) == (ev.q > 0) or abs(ev.q) < 1e-3
    arrays = net.evaluate_arrays(["startpos", ("startpos", ["f2f3", "e7e5", "g2g4"])])
    assert arrays.centipawns().tolist() == [cformer.centipawns(w) for w in arrays.wdl]
    result = net.search("startpos", nodes=16)
    assert result.cp == cformer.centipawns(result.wdl)
    assert result.moves[0].cp == cformer.centipawns(result.moves[0].wdl)
    assert any(m.cp is None for m in result.moves)  # unvisited moves have no value
    choice = net.choose("startpos", agent="value")
    assert choice.cp == cformer.centipawns(choice.wdl)


def test_cp_is_the_c_engines(tmp_path):
    """`cformer analyse` writes [%eval] with the engine's formula (White's
    view, pawns); its JSONL records carry the W/D/L it came from."""
    binary = os.environ.get("CFORMER_BINARY")
    if not binary:
        pytest.skip("CFORMER_BINARY (the cformer binary) is not set")
    pgn = tmp_path / "g.pgn"
    pgn.write_text('[Event "x"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 '
                   '6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Na5 10. Bc2 c5 11. d4 Qc7 *\n')
    for kind in ("jsonl", "pgn"):
        subprocess.run([binary, "analyse", str(pgn), "-O", str(tmp_path / ("o." + kind)),
                        "--quiet"], check=True)
    records = [json.loads(l) for l in (tmp_path / "o.jsonl").read_text().splitlines()]
    text = " ".join((tmp_path / "o.pgn").read_text().split())
    evals = re.findall(r"\{ \[%eval (-?\d+\.\d\d)\]", re.sub(r"\([^()]*\)", "", text))
    assert len(evals) == 22 == len(records) - 1
    for ply, e in enumerate(evals, start=1):
        r = records[ply]
        white = r["fen"].split()[1] == "w"
        want = cformer.centipawns(r["wdl"]) * (1 if white else -1)
        assert abs(round(float(e) * 100) - want) <= 1, (ply, e, want, r["wdl"])
