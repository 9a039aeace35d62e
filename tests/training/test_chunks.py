"""training/chunks.py, the trainer's chunk loader: Lc0-written chunks
(tests/data/lc0-chunks) and a `cformer selfplay --training` run read into
the same counts and results as `cformer chunks describe`; the targets
(visit shares, result blended with Q, plies_left); the 112 planes of a
known position; truncated and foreign files refused by name; and, where
numpy and torch are installed, a tiny train.py run on chunks alone.

    python3 test_chunks.py CFORMER SOURCE_ROOT
"""

import glob
import os
import re
import subprocess
import sys
import tempfile
import unittest

CFORMER = ROOT = None
chunks = None


def describe(files):
    out = subprocess.run([CFORMER, "chunks", "describe"] + files, stdout=subprocess.PIPE,
                         check=True, timeout=120).stdout.decode()
    got = {}
    for line in out.splitlines():
        m = re.match(r"(.*): (\d+) records, .* W/D/L (\d+)/(\d+)/(\d+)", line)
        got[m.group(1)] = tuple(int(x) for x in m.groups()[1:])
    return got


def tally(records):
    res = [chunks.white_result(r) for r in records]
    return (len(records), res.count(1), res.count(0), res.count(-1))


class Chunks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = os.path.join(cls.tmp.name, "ch")
        subprocess.run([CFORMER, "selfplay", "--games", "2", "--visits", "2", "--seed", "1",
                        "--training", cls.dir, "--pgn", os.path.join(cls.tmp.name, "g.pgn")],
                       check=True, stderr=subprocess.DEVNULL, timeout=300)
        cls.lc0 = sorted(glob.glob(os.path.join(ROOT, "tests", "data", "lc0-chunks", "*.gz")))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_same_as_describe(self):
        files = self.lc0 + sorted(glob.glob(os.path.join(self.dir, "*.gz")))
        want = describe(files)
        for f in files:
            self.assertEqual(tally(chunks.read_chunk(f)), want[f], f)

    def test_lc0_targets(self):
        records = chunks.read_chunk(self.lc0[0])
        self.assertEqual([r["plies_left"] for r in records], [9.0 - i for i in range(9)])
        for r in records:
            self.assertEqual((r["version"], r["input_format"]), (6, 1))
            policy, legal, wdl, best, left = chunks.targets(r, q_ratio=0.25)
            self.assertAlmostEqual(sum(policy), 1.0, places=5)
            self.assertTrue(all(legal[i] or policy[i] == 0 for i in range(chunks.POLICY)))
            self.assertTrue(legal[r["played_idx"]] and legal[best])
            self.assertAlmostEqual(sum(wdl), 1.0, places=5)
            res = chunks.targets(r, q_ratio=0.0)[2]
            self.assertEqual(res, [1.0, 0.0, 0.0] if not chunks.black_to_move(r)
                             else [0.0, 0.0, 1.0])  # White won: W for White, L for Black
            q = chunks.targets(r, q_ratio=1.0)[2]
            for a, b_, c in zip(wdl, res, q):
                self.assertAlmostEqual(a, 0.75 * b_ + 0.25 * c, places=6)

    def test_start_position_planes(self):
        r = chunks.read_chunk(sorted(glob.glob(os.path.join(self.dir, "*.gz")))[0])[0]
        self.assertEqual(r["input_format"], 4)  # the built-in network's
        p = chunks.planes(r)
        self.assertEqual(p[0], (0xFF00, 1.0))                 # our pawns, rank 2
        self.assertEqual(p[6], (0x00FF000000000000, 1.0))     # theirs, rank 7
        self.assertEqual(p[5], (0x10, 1.0))                   # our king, e1
        self.assertEqual(p[104][0], 0x0100000000000001)       # queenside rooks a1, a8
        self.assertEqual(p[105][0], 0x8000000000000080)       # kingside rooks h1, h8
        self.assertEqual(p[111], ((1 << 64) - 1, 1.0))
        self.assertEqual(sum(1 for m, _ in p[13:104] if m), 0)  # HistoryFill no: empty history

    def test_refusals(self):
        with open(self.lc0[0], "rb") as f:
            data = f.read()
        cut = os.path.join(self.tmp.name, "cut.gz")
        with open(cut, "wb") as f:
            f.write(data[: len(data) // 2])
        with self.assertRaisesRegex(chunks.ChunkError, "cut.gz: truncated"):
            chunks.read_chunk(cut)
        with self.assertRaisesRegex(chunks.ChunkError, "README.md: not a training chunk"):
            chunks.read_chunk(os.path.join(ROOT, "tests", "data", "lc0-chunks", "README.md"))

    def test_decode(self):
        try:
            import numpy as np
        except ImportError:
            self.skipTest("needs numpy")
        records = chunks.read_chunk(sorted(glob.glob(os.path.join(self.dir, "*.gz")))[0])[:3]
        b = chunks.decode(records, q_ratio=0.25)
        self.assertEqual(b["planes"].shape, (3, 112, 64))
        self.assertEqual(b["planes"][0, 0].nonzero()[0].tolist(), list(range(8, 16)))
        self.assertTrue(np.allclose(b["policy"].sum(1), 1.0, atol=1e-5))
        self.assertTrue(np.allclose(b["wdl"].sum(1), 1.0, atol=1e-5))
        self.assertEqual(b["legal"][0].sum(), 20)  # the start position's moves
        self.assertEqual(b["plies_left"][0] - b["plies_left"][1], 1.0)

    def train(self, *args):
        try:
            import numpy  # noqa: F401
            import torch  # noqa: F401
        except ImportError as e:
            self.skipTest(f"needs numpy and torch ({e.name} missing)")
        run = os.path.join(self.tmp.name, "run-%d" % len(os.listdir(self.tmp.name)))
        p = subprocess.run([sys.executable, os.path.join(ROOT, "training", "train.py"),
                            "--run", run, "--steps", "2", "--batch", "4",
                            "--layers", "1", "--d", "16", "--heads", "2", "--warmup", "1",
                            "--val-every", "1", "--val-positions", "4", "--log-every", "1",
                            *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout.decode())
        self.assertTrue(os.path.exists(os.path.join(run, "latest.pt")))
        self.assertIn("val step 2", p.stdout.decode())
        return p.stdout.decode()

    def test_tiny_training_run(self):
        self.train("--chunks", self.dir)

    def test_tiny_run_mixed_with_packed_data(self):
        data = os.path.join(self.tmp.name, "packed")
        subprocess.run([CFORMER, "pack-data", "--out", data, "--val-fraction", "0.2",
                        os.path.join(ROOT, "training", "sample", "sample.tsv")],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out = self.train("--data", data, "--chunks", self.dir, "--chunk-share", "0.5")
        self.assertRegex(out, r"\d+ chunk positions mixed in, 0.5 of each batch")


if __name__ == "__main__":
    CFORMER, ROOT = sys.argv[1], sys.argv[2]
    sys.path.insert(0, os.path.join(ROOT, "training"))
    import chunks  # noqa: E402
    unittest.main(argv=sys.argv[:1], verbosity=2)
