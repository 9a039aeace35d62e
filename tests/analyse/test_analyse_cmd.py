"""`cformer analyse` end to end: every input format (PGN plain, gzip and
zstd, EPD, FEN lines, Lichess puzzles), the three outputs, the search
fields, searches of a batch of positions grouped giving the records of
one at a time, malformed games skipped with one warning each, empty and
unreadable inputs, an unwritable output, and --resume after kill -9 giving
exactly the uninterrupted output.

    python3 test_analyse_cmd.py CFORMER DATA_DIR
"""

import csv
import gzip
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

CFORMER = DATA = None

GOOD_1 = """[Event "one"]
[White "W"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 {the Morphy} 4. Ba4 Nf6 5. O-O Be7 $1 (5... b5 6. Bb3) 1-0
"""
GOOD_2 = """[Event "two"]
[FEN "r3k2r/6P1/8/8/8/8/8/R3K2R b KQkq - 0 30"]
[SetUp "1"]

30... 0-0-0 31. gxh8=Q Rxh8 32. 0-0 *
"""


def run(*args, check=True, **kw):
    p = subprocess.run([CFORMER, "analyse", *args], capture_output=True, **kw)
    if check and p.returncode != 0:
        raise AssertionError("cformer analyse %s: exit %d\n%s" % (args, p.returncode,
                                                                   p.stderr.decode()))
    return p


def read(path):
    with open(path) as f:
        return f.read()


def records(text):
    return [json.loads(line) for line in text.splitlines() if line]


class Analyse(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="cf-analyse-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def path(self, name, data=None):
        p = os.path.join(self.dir, name)
        if data is not None:
            with open(p, "wb") as f:
                f.write(data if isinstance(data, bytes) else data.encode())
        return p

    def test_pgn_records_carry_source_and_fen(self):
        pgn = self.path("g.pgn", GOOD_1 + "\n" + GOOD_2)
        out = records(run(pgn, "--quiet").stdout.decode())
        self.assertEqual(len(out), 11 + 5)  # plies 0..10 and 0..4
        self.assertEqual([(r["game"], r["ply"]) for r in out[:2]], [(1, 0), (1, 1)])
        self.assertEqual(out[0]["file"], pgn)
        self.assertEqual(out[0]["fen"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
        self.assertEqual(out[0]["played"], "e4")
        self.assertEqual(out[8]["played_uci"], "e1g1")
        self.assertNotIn("played", out[10])  # the game's last position
        last = out[-1]
        self.assertEqual((last["game"], last["ply"]), (2, 4))
        self.assertEqual(last["fen"], "2k4r/8/8/8/8/8/8/R4RK1 b - - 1 32")
        for r in out:
            self.assertAlmostEqual(sum(r["wdl"]), 1.0, places=4)
            self.assertAlmostEqual(r["q"], r["wdl"][0] - r["wdl"][2], places=4)
            self.assertEqual(len(r["policy"]), min(5, r["legal"]))
            ps = [p for _, p in r["policy"]]
            self.assertEqual(ps, sorted(ps, reverse=True))

    def test_compressed_inputs_read_the_same(self):
        text = (GOOD_1 + "\n" + GOOD_2).encode()
        plain = run(self.path("g.pgn", text), "--quiet", "--source-name=x").stdout
        gz = run(self.path("g.pgn.gz", gzip.compress(text)), "--quiet", "--source-name=x").stdout
        self.assertEqual(gz, plain)
        if shutil.which("zstd"):
            zst = subprocess.run(["zstd", "-q", "-c"], input=text, capture_output=True).stdout
            out = run(self.path("g.pgn.zst", zst), "--quiet", "--source-name=x").stdout
            self.assertEqual(out, plain)
        bad = run(self.path("bad.pgn.gz", gzip.compress(text)[:-20]), "--quiet", check=False)
        self.assertEqual(bad.returncode, 1)
        self.assertIn(b"gzip", bad.stderr)

    def test_malformed_games_skipped_with_one_warning_each(self):
        games = [
            GOOD_1,
            '[Event "bad san"]\n\n1. e4 e5 2. Nf9 *\n',
            '[Event "illegal"]\n\n1. e4 e5 2. Ke3 *\n',
            '[Event "comment"]\n\n1. e4 {never closed\n2. d4 *\n',
            '[Event "variation"]\n\n1. e4 (1. d4 d5\n2. c4 *\n',
            '[Event "fen"]\n[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n\n1. e4 *\n',
            '[Event "junk"]\n\n1. e4 \x01\x02\xff\xfe e5 *\n',
            '[Event "long"]\n\n1. e4 {' + "x" * (10 * 1024 * 1024) + '} e5 *\n',
            GOOD_2,
        ]
        pgn = self.path("m.pgn", "\n".join(games))
        p = run(pgn)
        out = records(p.stdout.decode())
        # a game stopping at a bad move is analysed up to it: plies 0..2
        self.assertEqual(sorted({r["game"] for r in out}), [1, 2, 3, 9])
        for game in (2, 3):
            self.assertEqual([r["ply"] for r in out if r["game"] == game], [0, 1, 2])
        stderr = p.stderr.decode()
        cut = [w for w in stderr.splitlines() if "(analysed up to it)" in w]
        self.assertEqual(len(cut), 2, stderr)
        self.assertIn("%s: game 2: line 10: malformed move 'Nf9' (ply 3)" % pgn, cut[0])
        self.assertIn("%s: game 3: line 14: illegal move 'Ke3' (ply 3)" % pgn, cut[1])
        warnings = [w for w in stderr.splitlines() if "(skipped)" in w]
        self.assertEqual(len(warnings), 5, stderr)
        for n, w in zip(range(4, 9), warnings):
            self.assertIn("%s: game %d: line " % (pgn, n), w)
        self.assertIn("unterminated comment", warnings[0])
        self.assertIn("unterminated variation", warnings[1])
        self.assertIn("bad FEN tag", warnings[2])
        self.assertIn("control byte", warnings[3])
        self.assertIn("longer than", warnings[4])
        self.assertIn("5 unreadable game(s) skipped", stderr)

    def test_line_formats(self):
        epd = self.path("p.epd", "# a comment\n"
                        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id \"e4\";\n"
                        "not a position\n\n"
                        "6k1/5ppp/8/8/8/8/8/R5K1 w - - id \"mate\";\n")
        p = run(epd, "--quiet")
        out = records(p.stdout.decode())
        self.assertEqual([(r["game"], r["ply"], r.get("id")) for r in out],
                         [(2, 0, "e4"), (5, 0, "mate")])
        self.assertIn("record 3: line 3", p.stderr.decode())
        fen = self.path("p.fen", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\n")
        self.assertEqual(len(records(run(fen, "--quiet").stdout.decode())), 1)
        puzzles = os.path.join(DATA, "puzzles", "lichess_puzzles_public.csv")
        with open(puzzles) as f:
            head = "".join(f.readline() for _ in range(4))
        out = records(run(self.path("p.csv", head), "--quiet").stdout.decode())
        self.assertEqual(len(out), 3)
        row = next(csv.reader(io.StringIO(head.splitlines()[1])))
        self.assertEqual(out[0]["id"], row[0])
        self.assertEqual(out[0]["ply"], 1)
        self.assertEqual(out[0]["solution"], row[2].split()[1])

    def test_empty_and_unreadable_inputs(self):
        for name in ("e.pgn", "e.fen", "e.csv"):
            p = run(self.path(name, ""), "--quiet")
            self.assertEqual(p.stdout, b"")
        p = run(os.path.join(self.dir, "missing.pgn"), check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"cannot open", p.stderr)
        p = run(self.path("x.bin", "1"), check=False)
        self.assertEqual(p.returncode, 2)  # no format from the name

    def test_unwritable_output(self):
        pgn = self.path("g.pgn", GOOD_1)
        p = run(pgn, "-O", os.path.join(self.dir, "no", "such", "dir", "o.jsonl"), check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"cannot write", p.stderr)

    def test_search_fields_and_multipv(self):
        pgn = self.path("g.pgn", GOOD_2)
        out = records(run(pgn, "--quiet", "--nodes=40", "--multipv=3").stdout.decode())
        self.assertEqual(len(out), 5)
        for r in out:
            self.assertEqual(r["agent"], "search")
            self.assertEqual(len(r["lines"]), min(3, r["legal"]))
            self.assertEqual(r["best"], r["lines"][0]["move"])
            self.assertEqual(r["pv"][0], r["best"])
            self.assertEqual(sum(r["visits"].values()) + 1, r["nodes"])  # the root's own visit
            self.assertEqual(set(r["visits"]), {m for m in r["visits"]})
        one_ply = records(run(pgn, "--quiet", "--nodes=40", "--agent=value",
                              "--multipv=2").stdout.decode())
        self.assertEqual(one_ply[0]["agent"], "value")
        self.assertEqual(len(one_ply[0]["lines"]), 2)

    def test_searches_grouped_as_alone(self):
        # A batch of positions searched at once (their leaves in shared
        # network calls) gives the records one at a time gives, whatever
        # the batch; 16 positions, so batches of 7 end mid-game.
        pgn = self.path("g.pgn", GOOD_1 + "\n" + GOOD_2)
        alone = run(pgn, "--quiet", "--nodes=60", "--multipv=2", "--batch=1").stdout.decode()
        self.assertEqual(len(records(alone)), 16)
        for batch in ("7", "64"):
            grouped = run(pgn, "--quiet", "--nodes=60", "--multipv=2",
                          "--batch=" + batch).stdout.decode()
            self.assertEqual(grouped.splitlines(), alone.splitlines(), "--batch=" + batch)

    def test_csv_and_annotated_pgn(self):
        pgn = self.path("g.pgn", GOOD_1 + "\n" + GOOD_2)
        csv_out = self.path("o.csv")
        run(pgn, "--quiet", "-O", csv_out)
        with open(csv_out) as f:
            rows = list(csv.DictReader(f))
        jsonl = records(run(pgn, "--quiet").stdout.decode())
        self.assertEqual(len(rows), len(jsonl))
        self.assertEqual([r["fen"] for r in rows], [r["fen"] for r in jsonl])
        pgn_out = self.path("o.pgn")
        run(pgn, "--quiet", "-O", pgn_out, "--nodes=20")
        text = read(pgn_out)
        self.assertEqual(text.count("[Annotator \"cformer analyse\"]"), 2)
        # the annotated games read back as the same games
        again = records(run(pgn_out, "--quiet", "--source-name=" + pgn).stdout.decode())
        self.assertEqual([r["fen"] for r in again], [r["fen"] for r in jsonl])
        p = run(self.path("p.fen", "8/8/8/8/8/8/8/K1k5 w - - 0 1\n"), "--output-format=pgn",
                check=False)
        self.assertEqual(p.returncode, 2)

    def test_resume_after_kill_9(self):
        # enough games that the run is still going when it is killed
        games = "\n".join(GOOD_1.replace('"one"', '"g%d"' % i) for i in range(120))
        pgn = self.path("many.pgn", games)
        full = self.path("full.jsonl")
        run(pgn, "--quiet", "-O", full, "--batch=8", "--shard-size=7")
        for kind in ("jsonl", "csv"):
            out = self.path("part." + kind)
            ref = full if kind == "jsonl" else self.path("full.csv")
            if kind == "csv":
                run(pgn, "--quiet", "-O", ref, "--batch=8", "--shard-size=7")
            proc = subprocess.Popen([CFORMER, "analyse", pgn, "--quiet", "-O", out, "--batch=8",
                                     "--shard-size=7"], stderr=subprocess.DEVNULL)
            deadline = time.time() + 60
            while time.time() < deadline and (not os.path.exists(out) or
                                               os.path.getsize(out) < 20000):
                time.sleep(0.01)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            with open(out, "ab") as f:  # a torn last record, as a kill mid-write leaves
                f.write(b'{"file":"torn')
            p = run(pgn, "-O", out, "--resume", "--batch=8", "--shard-size=7")
            self.assertIn(b"resuming after", p.stderr)
            self.assertIn(b"torn", p.stderr)
            with open(out, "rb") as a, open(ref, "rb") as b:
                got, want = a.read().splitlines(), b.read().splitlines()
            self.assertEqual(len(got), len(want))
            self.assertEqual(len(set(got)), len(got))  # nothing twice
            self.assertEqual(got, want)

    def test_resume_annotated_pgn(self):
        games = "\n".join(GOOD_1.replace('"one"', '"g%d"' % i) for i in range(6))
        pgn = self.path("six.pgn", games)
        full, part = self.path("full.pgn"), self.path("part.pgn")
        run(pgn, "--quiet", "-O", full)
        text = read(full)
        cut = text.index("[Event \"g3\"]") + 30  # inside the fourth game
        with open(part, "w") as f:
            f.write(text[:cut])
        run(pgn, "--quiet", "-O", part, "--resume")
        self.assertEqual(read(part), text)


if __name__ == "__main__":
    CFORMER, DATA = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1] + sys.argv[3:], verbosity=1)
