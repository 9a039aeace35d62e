"""`cformer selfplay` and `cformer chunks describe` end to end: a run with
noise and temperature repeating exactly from its seed (whatever
--parallelism), chunks that describe to the PGN's games, Lc0-written chunks
described, bad input stopping with its reason (an opening with an illegal
move, a chunk directory that cannot be made, a truncated chunk), and
--resume after kill -9 giving exactly the uninterrupted run's games; games
sharing network calls (--batch-games) identical to the games played alone.

    python3 test_selfplay_cmd.py CFORMER LC0_CHUNKS_DIR
"""

import glob
import gzip
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

CFORMER = LC0 = None
NOISY = ["--noise-epsilon", "0.25", "--temperature", "1", "--tempdecay-moves", "10",
         "--visits", "4"]


def run(*args, check=True):
    p = subprocess.run([CFORMER] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=600)
    if check and p.returncode != 0:
        raise AssertionError("cformer %s: exit %d\n%s" % (" ".join(args), p.returncode,
                                                           p.stderr.decode()))
    return p


def games_by_round(pgn_text):
    """{round: game text without the Date tag}."""
    out = {}
    for g in re.split(r"(?m)^(?=\[Event )", pgn_text):
        m = re.search(r'\[Round "(\d+)"\]', g)
        if m:
            n = int(m.group(1))
            assert n not in out, "round %d twice" % n
            out[n] = re.sub(r'\[Date "[^"]*"\]\n', "", g)
    return out


def chunk_bytes(folder):
    return {os.path.basename(p): gzip.open(p).read()
            for p in sorted(glob.glob(os.path.join(folder, "training.*.gz")))}


class Selfplay(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def p(self, name):
        return os.path.join(self.d, name)

    def play(self, name, *extra):
        run("selfplay", "--games", "3", "--seed", "9", "--training", self.p(name), "--pgn",
            self.p(name + ".pgn"), *NOISY, *extra)
        with open(self.p(name + ".pgn")) as f:
            return games_by_round(f.read()), chunk_bytes(self.p(name))

    def test_seed_repeats_and_chunks_describe_the_games(self):
        a_pgn, a_chunks = self.play("a", "--parallelism", "2")
        b_pgn, b_chunks = self.play("b", "--parallelism", "1")
        self.assertEqual(sorted(a_pgn), [1, 2, 3])
        self.assertEqual(a_pgn, b_pgn)          # the same games, move by move
        self.assertEqual(a_chunks, b_chunks)    # and the same records
        c_pgn, _ = self.play("c", "--seed", "10")
        self.assertNotEqual(a_pgn, c_pgn)       # another seed, other games
        files = sorted(glob.glob(self.p("a/training.*.gz")))
        out = run("chunks", "describe", *files).stdout.decode()
        for n, path in enumerate(files, 1):
            plies = int(re.search(r'\[PlyCount "(\d+)"\]', a_pgn[n]).group(1))
            result = re.search(r'\[Result "([^"]*)"\]', a_pgn[n]).group(1)
            wdl = {"1-0": "%d/0/0", "1/2-1/2": "0/%d/0", "0-1": "0/0/%d"}[result] % plies
            self.assertIn("%s: %d records, version 6, input format" % (path, plies), out)
            self.assertIn("W/D/L " + wdl, out)
        self.assertEqual(len(a_chunks[os.path.basename(files[0])]) % 8356, 0)

    def test_batched_games_are_the_games_played_alone(self):
        # --batch-games: a thread's games share network calls; each game,
        # its PGN and its chunk stay byte for byte what it is alone (the
        # PGN's games come in the order they end, so by round), with
        # resignation and its playthrough in play
        resign = ["--games", "6", "--resign-percentage", "10", "--resign-playthrough", "30"]
        alone_pgn, alone_chunks = self.play("alone", *resign)
        for name, extra in (("b4", ["--batch-games", "4"]),
                            ("p2b2", ["--parallelism", "2", "--batch-games", "2"])):
            pgn, chunks = self.play(name, *resign, *extra)
            self.assertEqual(sorted(pgn), list(range(1, 7)))
            self.assertEqual(pgn, alone_pgn, name)
            self.assertEqual(chunks, alone_chunks, name)
        self.assertTrue(any("{resignation}" in g for g in alone_pgn.values()))

    def test_chunk_dir_of_another_run_refused(self):
        run("selfplay", "--visits", "2", "--seed", "1", "--training", self.p("t"), "--pgn",
            self.p("t.pgn"))
        before = chunk_bytes(self.p("t"))
        p = run("selfplay", "--visits", "2", "--seed", "2", "--training", self.p("t"), "--pgn",
                self.p("t2.pgn"), check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("already holds chunks of a run: --resume continues it", p.stderr.decode())
        self.assertEqual(chunk_bytes(self.p("t")), before)

    def test_lc0_chunks_described(self):
        files = sorted(glob.glob(os.path.join(LC0, "game_*.gz")))
        out = run("chunks", "describe", *files).stdout.decode()
        self.assertIn("game_000000.gz: 9 records, version 6, input format 1, W/D/L 9/0/0", out)
        self.assertIn("game_000001.gz: 1 records, version 6, input format 1, W/D/L 0/1/0", out)
        self.assertIn("total: 11 records, version 6, input format 1, W/D/L 10/1/0", out)

    def test_truncated_chunk_refused_by_name(self):
        with open(os.path.join(LC0, "game_000000.gz"), "rb") as f:
            data = f.read()
        cut = self.p("cut.gz")
        with open(cut, "wb") as f:
            f.write(data[: len(data) // 2])
        p = run("chunks", "describe", os.path.join(LC0, "game_000001.gz"), cut, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("cut.gz", p.stderr.decode())
        p = run("chunks", "describe", os.path.join(LC0, "README.md"), check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("README.md: not a training chunk", p.stderr.decode())

    def test_illegal_opening_names_game_and_move(self):
        with open(self.p("open.pgn"), "w") as f:
            f.write('[Event "fine"]\n\n1. e4 e5 *\n\n[Event "bad"]\n\n1. d4 d5 2. Ke3 *\n')
        p = run("selfplay", "--openings-pgn", self.p("open.pgn"), "--visits", "2", "--pgn",
                self.p("o.pgn"), check=False)
        self.assertEqual(p.returncode, 1)
        err = p.stderr.decode()
        self.assertIn("open.pgn: game 2, ply 3", err)
        self.assertIn("Ke3", err)

    def test_tablebase_adjudication(self):
        with open(self.p("tb.pgn"), "w") as f:  # the queen takes the last rook: KQ v K
            f.write('[SetUp "1"]\n[FEN "8/8/8/8/8/2k5/1r6/KQ6 w - - 0 1"]\n\n1. Qxb2+ *\n')
        syzygy = os.path.join(os.path.dirname(LC0), "..", "..", "data", "syzygy")
        run("selfplay", "--openings-pgn", self.p("tb.pgn"), "--visits", "2", "--syzygy-paths",
            syzygy, "--training", self.p("tb"), "--pgn", self.p("tb-games.pgn"))
        with open(self.p("tb-games.pgn")) as f:
            game = f.read()
        self.assertIn('[Result "1-0"]', game)
        self.assertIn('[Termination "adjudication"]', game)
        self.assertIn("{tablebase} 1-0", game)

    def test_unwritable_chunk_dir(self):
        with open(self.p("file"), "w") as f:
            f.write("x")
        p = run("selfplay", "--visits", "2", "--training", self.p("file/chunks"), "--pgn",
                self.p("u.pgn"), check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("--training %s: cannot make the directory" % self.p("file/chunks"),
                      p.stderr.decode())
        # a directory that goes away mid-run: the run stops with the reason,
        # the chunks closed before stay whole
        os.mkdir(self.p("gone"))
        args = ["selfplay", "--games", "40", "--visits", "2", "--seed", "4", "--training",
                self.p("gone"), "--pgn", self.p("g.pgn")]
        proc = subprocess.Popen([CFORMER] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        while not glob.glob(self.p("gone/training.*.gz")) and proc.poll() is None:
            time.sleep(0.005)
        kept = self.p("kept")
        os.rename(self.p("gone"), kept)
        _, err = proc.communicate(timeout=600)
        if proc.returncode == 0:
            self.skipTest("the run ended before its directory was moved")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("cformer selfplay: chunks: cannot", err.decode())
        done = sorted(glob.glob(os.path.join(kept, "training.*.gz")))
        self.assertEqual(run("chunks", "describe", *done).returncode, 0)

    def test_resume_after_kill(self):
        args = ["selfplay", "--games", "8", "--seed", "3", *NOISY]
        run(*args, "--training", self.p("ref"), "--pgn", self.p("ref.pgn"))
        # killed and resumed with games sharing network calls: the games in
        # play at the kill are dropped and played again, as without
        live = args + ["--training", self.p("r"), "--pgn", self.p("r.pgn"), "--batch-games", "3"]
        proc = subprocess.Popen([CFORMER] + live, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        whole = re.compile(r"\} (1-0|0-1|1/2-1/2)\n\n")

        def one_game_written():
            if not os.path.exists(self.p("r.pgn")):
                return False
            with open(self.p("r.pgn")) as f:
                return whole.search(f.read()) is not None

        while proc.poll() is None and not one_game_written():
            time.sleep(0.002)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate()
        with open(self.p("r.pgn")) as f:
            before = games_by_round(f.read())
        if len(before) == 8:
            self.skipTest("the run ended before the kill")
        self.assertGreaterEqual(len(before), 1)  # games finished before the kill are kept
        # a game cut off in the middle of its PGN, as a kill can leave one
        with open(self.p("r.pgn"), "a") as f:
            f.write('[Event "cformer selfplay"]\n[Round "8"]\n\n1. e4 e5 2. N')
        out = run(*live, "--resume")
        self.assertIn("resuming", out.stderr.decode())
        with open(self.p("r.pgn")) as f:
            resumed = games_by_round(f.read())
        with open(self.p("ref.pgn")) as f:
            ref = games_by_round(f.read())
        self.assertEqual(resumed, ref)   # every game once, as the uninterrupted run played it
        self.assertEqual(chunk_bytes(self.p("r")), chunk_bytes(self.p("ref")))
        self.assertEqual(glob.glob(self.p("r/.*")), [])  # no temporary chunk left


if __name__ == "__main__":
    CFORMER, LC0 = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)
