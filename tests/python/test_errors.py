"""Library failures become exceptions carrying the library's message and
status; Python-side misuse is a TypeError/ValueError; nothing aborts."""
import pytest

import cformer
from conftest import START_FEN


def test_hierarchy():
    assert issubclass(cformer.ArgumentError, cformer.Error)
    assert issubclass(cformer.ArgumentError, ValueError)
    assert issubclass(cformer.FileError, OSError)
    for cls in (cformer.FormatError, cformer.UnsupportedError, cformer.BackendError,
                cformer.OutOfMemoryError, cformer.InternalError):
        assert issubclass(cls, cformer.Error)


def test_bad_fen(net):
    with pytest.raises(cformer.ArgumentError, match="FEN") as e:
        net.evaluate("not a fen")
    assert e.value.status == cformer.Status.ARG and e.value.message == str(e.value)
    with pytest.raises(cformer.ArgumentError, match="position 1"):
        net.evaluate([START_FEN, "8/8/8/8 w - - 0 1"])
    with pytest.raises(cformer.ArgumentError):
        net.planes("not a fen")
    with pytest.raises(cformer.ArgumentError):
        net.choose("not a fen")
    assert net.evaluate(START_FEN).policy  # alive


def test_illegal_move(net):
    with pytest.raises(cformer.ArgumentError, match="move 2: illegal move 'e2e4'"):
        net.evaluate((None, ["e2e4", "e2e4"]))
    with pytest.raises(cformer.ArgumentError, match="illegal move"):
        net.planes((None, ["e2e5"]))
    with pytest.raises(cformer.ArgumentError, match="illegal move"):
        net.choose((None, ["e1e2"]))
    assert net.evaluate((None, ["e2e4"])).policy


def test_missing_file(tmp_path):
    path = tmp_path / "missing.pb.gz"
    with pytest.raises(cformer.FileError, match="missing.pb.gz") as e:
        cformer.Net(path)
    assert isinstance(e.value, OSError) and e.value.status == cformer.Status.IO


def test_corrupt_file(tmp_path):
    path = tmp_path / "corrupt.pb.gz"
    path.write_bytes(b"this is not a network \x00\x01\x02\xff" * 10)
    with pytest.raises(cformer.FormatError, match="corrupt.pb.gz") as e:
        cformer.Net(str(path))
    assert e.value.status == cformer.Status.FORMAT
    with pytest.raises(cformer.FormatError, match="garbage"):
        cformer.Net.from_bytes(path.read_bytes(), name="garbage")
    with pytest.raises(cformer.FormatError, match="empty"):
        cformer.Net.from_bytes(b"")


def test_unknown_backend():
    with pytest.raises(cformer.ArgumentError, match="unknown backend 'nope'"):
        cformer.Net(backend="nope")


def test_unknown_backend_option():
    with pytest.raises(cformer.ArgumentError, match="unknown option 'foo"):
        cformer.Net(backend="ref", options="foo=1")
    with pytest.raises(cformer.ArgumentError, match="unknown option 'foo"):
        cformer.Net(backend="ref", options={"foo": 1})
    with pytest.raises(cformer.ArgumentError, match="history fill"):
        cformer.Net(history_fill="sometimes")


def test_bad_types(net):
    with pytest.raises(TypeError):
        net.evaluate(42)
    with pytest.raises(TypeError):
        net.evaluate([START_FEN, 42])
    with pytest.raises(TypeError, match="moves"):
        net.evaluate((START_FEN, "e2e4"))          # moves must be a list
    with pytest.raises(TypeError, match="batch"):
        net.evaluate((START_FEN, START_FEN))       # a tuple is one position
    with pytest.raises(TypeError):
        net.evaluate((START_FEN, [42]))
    with pytest.raises(TypeError):
        net.evaluate((b"fen", []))
    with pytest.raises(TypeError):
        net.evaluate((START_FEN, ["e2e4"], "extra"))
    with pytest.raises(ValueError, match="unknown position keys"):
        net.evaluate({"fen": START_FEN, "move": ["e2e4"]})
    with pytest.raises(ValueError, match="NUL"):
        net.evaluate(START_FEN + "\0")
    with pytest.raises(TypeError):
        net.evaluate(START_FEN, temperature="hot")
    with pytest.raises(ValueError):
        net.evaluate(START_FEN, temperature=-1)
    with pytest.raises(ValueError):
        net.evaluate(START_FEN, temperature=float("nan"))
    with pytest.raises(TypeError):
        net.planes([START_FEN])
    with pytest.raises(TypeError):
        net.choose([START_FEN])
    with pytest.raises(TypeError):
        net.choose(START_FEN, nodes=1.5)
    with pytest.raises(ValueError):
        net.choose(START_FEN, nodes=-1)
    with pytest.raises(ValueError):
        net.choose(START_FEN, movetime=float("inf"))
    with pytest.raises(TypeError):
        net.choose(START_FEN, agent=1)
    with pytest.raises(TypeError):
        cformer.Net(42)
    with pytest.raises(TypeError):
        cformer.Net(backend=1)
    with pytest.raises(TypeError):
        cformer.Net(options=["threads=1"])
    with pytest.raises(ValueError):
        cformer.Net(options={"threads": "1,foo=2"})
    with pytest.raises(TypeError):
        cformer.Net(threads="2")
    with pytest.raises(ValueError):
        cformer.Net(threads=-1)
    with pytest.raises(TypeError):
        cformer.Net.from_bytes("not bytes")
    with pytest.raises(cformer.ArgumentError, match="max_batch"):
        cformer.Net(max_batch=100000)
    assert net.evaluate(START_FEN).policy  # alive
