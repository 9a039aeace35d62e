"""Opening networks: built in, file, bytes, options; info; life cycle;
version."""
import re
import threading

import numpy as np
import pytest

import cformer
from conftest import START_FEN

PARITY_NET = "lc0-smolgen-relu2"


def test_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", cformer.__version__)
    assert cformer.__version__.split(".")[0] == "0"


def test_builtin_info(net):
    info = net.info
    assert isinstance(info, cformer.NetInfo)
    assert info.backend and info.layers > 0 and info.d_model > 0 and info.heads > 0
    assert info.dff > 0 and info.params > 0 and info.max_batch == 64
    assert info.input_format > 0 and isinstance(info.has_moves_left, bool)
    assert "cformer.Net" in repr(net)


def test_file_and_bytes(testdata):
    path = testdata / "parity" / (PARITY_NET + ".pb.gz")
    with cformer.Net(path, backend="ref") as a, \
            cformer.Net.from_bytes(path.read_bytes(), backend="ref") as b, \
            cformer.Net.from_bytes(bytearray(path.read_bytes()), "ref", name="x") as c:
        assert a.info == b.info == c.info
        assert a.info.backend == "ref" and a.info.layers == 2 and a.info.d_model == 64
        pos = (None, ["d2d4", "g8f6"])
        ea, eb, ec = a.evaluate(pos), b.evaluate(pos), c.evaluate(pos)
        np.testing.assert_array_equal(ea.wdl, eb.wdl)
        assert ea.logits == eb.logits == ec.logits
        assert ea.policy == eb.policy


def test_options(testdata):
    with cformer.Net(backend="ref", options="threads=1", max_batch=2) as net:
        assert net.info.backend == "ref" and net.info.max_batch == 2
        # More positions than max_batch: several passes.
        assert len(net.evaluate([START_FEN] * 5)) == 5
    with cformer.Net(backend="ref", options={"threads": 1}, threads=1,
                     history_fill="always") as net:
        assert net.info.backend == "ref"
    with cformer.Net(backend="auto", threads=1) as net:
        assert net.info.backend != "auto"


def test_history_fill_changes_planes():
    # A FEN with no history (rule-50 count 1, so canonical formats do not
    # cut the history short): "no" leaves the history planes empty, the
    # default fen_only fills them like "always" (not the start position).
    fen = "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"
    with cformer.Net(history_fill="no") as no, cformer.Net(history_fill="always") as always, \
            cformer.Net() as default:
        assert not np.array_equal(no.planes(fen), always.planes(fen))
        assert np.array_equal(default.planes(fen), always.planes(fen))
        assert not no.planes(fen)[13:104].any()


def test_close():
    net = cformer.Net()
    assert not net.closed
    net.close()
    assert net.closed
    net.close()  # idempotent
    assert "closed" in repr(net)
    with pytest.raises(ValueError, match="closed"):
        net.evaluate(START_FEN)
    with pytest.raises(ValueError, match="closed"):
        net.planes(START_FEN)
    with pytest.raises(ValueError, match="closed"):
        net.choose(START_FEN)
    with pytest.raises(ValueError, match="closed"):
        net.info


def test_context_manager():
    with cformer.Net() as net:
        assert net.evaluate(START_FEN).policy
    assert net.closed
    with pytest.raises(ValueError):
        with net:
            pass


def test_threads_serialised():
    """Calls on one Net from several threads are serialised, not a crash."""
    results, errors = [], []
    with cformer.Net() as net:
        want = net.evaluate(START_FEN).logits

        def work():
            try:
                for _ in range(5):
                    results.append(net.evaluate([START_FEN, (None, ["e2e4"])])[0].logits)
            except Exception as e:  # pragma: no cover
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors and len(results) == 15
    assert all(r.keys() == want.keys() for r in results)
