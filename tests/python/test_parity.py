"""The Python API reproduces the parity case files (data/parity/README.md):
W/D/L, q, moves-left and every legal move's policy logit within 1e-4, the
input planes and the canonical transform, on the reference backend and on
the default one."""
import json
import math

import numpy as np
import pytest

import cformer

TOL = 1e-4  # data/parity/README.md: float32 implementations
NETS = ["cf-rpe-rms", "cf-rpe-ln-canonical", "lc0-smolgen-relu2", "lc0-smolgen-relu2-bf16",
        "lc0-smolgen-relu2-f32", "lc0-map-classic"]


def load_cases(testdata, name):
    with open(testdata / "parity" / (name + ".jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def expected_planes(case):
    planes = np.zeros((112, 64), dtype=np.float64)
    assert len(case["planes"]) == 112
    for j, p in enumerate(case["planes"]):
        mask = int(p["mask"], 16)
        for sq in range(64):
            if mask >> sq & 1:
                planes[j, sq] = p["value"]
    return planes


@pytest.fixture(scope="module", params=NETS)
def parity_net(request, testdata):
    return request.param, testdata / "parity" / (request.param + ".pb.gz"), \
        load_cases(testdata, request.param)


@pytest.mark.parametrize("backend", ["ref", None])
def test_outputs(parity_net, backend):
    name, path, cases = parity_net
    with cformer.Net(path, backend=backend) as net:
        assert net.info.input_format == cases[0]["input_format"]
        assert net.info.has_moves_left == (cases[0]["moves_left"] is not None)
        # One batch of all the cases, as dicts and tuples alternately.
        positions = [{"fen": c["fen"], "moves": c["moves"]} if i % 2 else (c["fen"], c["moves"])
                     for i, c in enumerate(cases)]
        results = net.evaluate(positions)
        backend = net.info.backend
    assert len(results) == len(cases)
    for case, ev in zip(cases, results):
        tag = "%s/%s on %s" % (name, case["id"], backend)
        assert ev.wdl.dtype == np.float32 and ev.wdl.shape == (3,)
        np.testing.assert_allclose(ev.wdl, case["wdl"], rtol=0, atol=TOL, err_msg=tag)
        assert abs(ev.q - case["q"]) <= TOL, tag
        if case["moves_left"] is None:
            assert math.isnan(ev.moves_left), tag
        else:
            assert abs(ev.moves_left - case["moves_left"]) <= TOL, tag
        want = case["policy"]["vanilla"]
        assert set(ev.logits) == set(want), tag
        assert list(ev.logits) == list(ev.policy), tag
        for move, logit in want.items():
            assert abs(ev.logits[move] - logit) <= TOL, "%s %s: %r vs %r" % (
                tag, move, ev.logits[move], logit)


def test_planes(parity_net):
    name, path, cases = parity_net
    with cformer.Net(path, backend="ref") as net:
        for case in cases:
            planes, transform = net.planes((case["fen"], case["moves"]), with_transform=True)
            tag = "%s/%s" % (name, case["id"])
            assert transform == case["transform"], tag
            want = expected_planes(case)
            np.testing.assert_allclose(planes, want, rtol=0, atol=TOL, err_msg=tag)
            # Masks exactly: where a plane's value is not 0, the set squares.
            for j, p in enumerate(case["planes"]):
                if p["value"] != 0:
                    assert np.array_equal(planes[j] != 0, want[j] != 0), "%s plane %d" % (tag, j)
            # Without the transform.
            assert np.array_equal(net.planes((case["fen"], case["moves"])), planes)
