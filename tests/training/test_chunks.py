"""training/chunks.py, the trainer's chunk loader: Lc0-written chunks
(tests/data/lc0-chunks) and a `cformer selfplay --training` run read into
the same counts and results as `cformer chunks describe`; the targets
(visit shares, result blended with Q, plies_left); the 112 planes of a
known position; truncated and foreign files refused by name; and, where
numpy and torch are installed, a tiny train.py run on chunks alone, one
mixed with packed data, and one with a moves-left head trained on
plies_left (lczero-training's Huber loss, checked by hand), exported and
imported by netconv with its moves-left head.

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
        if "--run" in args:
            run = args[args.index("--run") + 1]
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

    def test_moves_left_loss(self):
        try:
            import torch
        except ImportError:
            self.skipTest("needs torch")
        import train
        plies = torch.tensor([10.0, 20.0, 5.0])
        target = torch.tensor([30.0, 25.0, float("nan")])
        # |10 - 30| / 20 = 1 > 0.5: 0.5 x (1 - 0.25); |20 - 25| / 20 = 0.25:
        # 0.25^2 / 2; the NaN target (a pack-data position) counts for nothing
        want = (0.5 * (1.0 - 0.25) + 0.25 ** 2 / 2) / 2
        self.assertAlmostEqual(train.moves_left_loss(plies, target).item(), want, places=6)
        self.assertEqual(train.moves_left_loss(plies, torch.full((3,), float("nan"))).item(), 0)

    def test_tiny_run_with_moves_left_head(self):
        run = os.path.join(self.tmp.name, "ml-run")
        out = self.train("--chunks", self.dir, "--moves-left-cm", "4", "--run", run)
        import json
        import torch
        with open(os.path.join(run, "log.jsonl")) as f:
            log = [json.loads(x) for x in f]
        ml = [e["moves_left_loss"] for e in log if "policy_loss" in e]
        self.assertEqual(len(ml), 2)
        self.assertTrue(all(x > 0 and x == x for x in ml), ml)
        self.assertIn("moves left", out)
        ck = torch.load(os.path.join(run, "latest.pt"))["model"]
        self.assertEqual(tuple(ck["ml_embedding.weight"].shape), (4, 16))
        with open(os.path.join(run, "config.json")) as f:
            self.assertEqual(json.load(f)["model"]["moves_left_cm"], 4)
        netconv = os.environ.get("CF_NETCONV")
        if not netconv or not os.path.exists(netconv):
            return
        st = os.path.join(self.tmp.name, "ml.safetensors")
        net = os.path.join(self.tmp.name, "ml.pb.gz")
        subprocess.run([sys.executable, os.path.join(ROOT, "training", "export.py"),
                        os.path.join(run, "latest.pt"), "-o", st], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([netconv, "import", st, "-o", net], check=True, stdout=subprocess.DEVNULL)
        d = json.loads(subprocess.run([netconv, "describe", net, "--json"], check=True,
                                      stdout=subprocess.PIPE).stdout)
        self.assertTrue(d["moves_left"], d)

    def test_tiny_run_mixed_with_packed_data(self):
        data = os.path.join(self.tmp.name, "packed")
        subprocess.run([CFORMER, "pack-data", "--out", data, "--val-fraction", "0.2",
                        os.path.join(ROOT, "training", "sample", "sample.tsv")],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # with a moves-left head: the packed positions have no plies_left
        out = self.train("--data", data, "--chunks", self.dir, "--chunk-share", "0.5",
                         "--moves-left-cm", "2")
        self.assertRegex(out, r"\d+ chunk positions mixed in, 0.5 of each batch")
        self.assertRegex(out, r"moves left \d+\.\d+")


if __name__ == "__main__":
    CFORMER, ROOT = sys.argv[1], sys.argv[2]
    sys.path.insert(0, os.path.join(ROOT, "training"))
    import chunks  # noqa: E402
    unittest.main(argv=sys.argv[:1], verbosity=2)
