"""`cformer analyse` over Dask: a 2-worker local cluster with one worker
killed mid-run loses and duplicates nothing and gives the single-process
command's records; `--workers 2` from the command line does the same, also
from the build tree with no environment variables at all (the binary finds
its own Python package and library) and with the plain run's closing
"N unreadable game(s) skipped" line; an
unreachable scheduler is a clear error (no hang); a network that fails
to load on the workers stops the run with their error and leaves no
output. Skips (77) without Debian's python3-distributed.

    python3 test_analyse_dask.py CFORMER
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

# Under a sanitizer build libcformer.so (imported with the package) needs
# the ASan runtime loaded before anything else in python3 (CF_ASAN_RUNTIME,
# set by meson); Python's own allocations are not ours to leak-check.
if os.environ.get("CF_ASAN_RUNTIME") and not os.environ.get("LD_PRELOAD"):
    os.environ["LD_PRELOAD"] = os.environ["CF_ASAN_RUNTIME"]
    os.environ["ASAN_OPTIONS"] = "detect_leaks=0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

try:
    from distributed import Client, LocalCluster
except ImportError:
    print("skip: python3-distributed is not installed")
    sys.exit(77)

import cformer.dask

CFORMER = None

GAME = """[Event "g%d"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 1-0
"""


def read(path):
    with open(path, "rb") as f:
        return f.read()


class Dask(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="cf-analyse-dask-")
        cls.pgn = os.path.join(cls.dir, "games.pgn")
        with open(cls.pgn, "w") as f:
            f.write("\n".join(GAME % i for i in range(24)))
            f.write('\n[Event "bad"]\n\n1. e4 { never closed *\n')
            f.write('\n[Event "cut"]\n\n1. e4 Ke7 *\n')  # analysed up to the illegal move
        cls.args = ["--nodes=30", "--multipv=2"]
        cls.single = os.path.join(cls.dir, "single.jsonl")
        subprocess.run([CFORMER, "analyse", cls.pgn, "--quiet", "-O", cls.single, "--shard-size=3",
                        *cls.args], check=True, stderr=subprocess.DEVNULL)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def test_worker_killed_mid_run_loses_and_duplicates_nothing(self):
        out = os.path.join(self.dir, "killed.jsonl")
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            result = {}

            def work():
                try:
                    result["n"] = cformer.dask.analyse(
                        client, self.pgn, out, binary=CFORMER, shard_size=3,
                        serve_args=self.args, quiet=True)
                except BaseException as e:  # reported by the main thread
                    result["error"] = e

            t = threading.Thread(target=work)
            t.start()
            shards = out + ".shards"
            deadline = time.time() + 120
            while time.time() < deadline and not (os.path.isdir(shards) and os.listdir(shards)):
                time.sleep(0.05)
            # a worker in the middle of a shard
            victim = None
            while time.time() < deadline and victim is None:
                for addr, keys in client.processing().items():
                    if keys:
                        victim = addr
                        break
                time.sleep(0.02)
            self.assertIsNotNone(victim, "no worker was busy")
            pid = client.run(os.getpid, workers=[victim])[victim]
            os.kill(pid, signal.SIGKILL)
            t.join(timeout=300)
            self.assertFalse(t.is_alive())
            self.assertNotIn("error", result, result.get("error"))
        got, want = read(out).splitlines(), read(self.single).splitlines()
        self.assertEqual(len(got), 24 * 11 + 2)
        self.assertEqual(len(set(got)), len(got))  # 0 duplicated
        self.assertEqual(sorted(got), sorted(want))  # 0 lost, record for record
        self.assertEqual(got, want)  # and in the input's order, as joined
        self.assertFalse(os.path.exists(out + ".shards"))

    def test_command_line_workers(self):
        out = os.path.join(self.dir, "cli.jsonl")
        p = subprocess.run([CFORMER, "analyse", self.pgn, "--workers=2", "--shard-size=3",
                            "-O", out, "--quiet", *self.args], capture_output=True)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        self.assertEqual(read(out), read(self.single))
        self.assertIn(b"game 25", p.stderr)  # the bad game, reported once by the reader
        self.assertEqual(p.stderr.count(b"(skipped)"), 1)

    def test_command_line_workers_with_a_clean_environment(self):
        out = os.path.join(self.dir, "clean.jsonl")
        env = {"PATH": "/usr/bin:/bin", "HOME": self.dir}
        for name in ("LD_PRELOAD", "ASAN_OPTIONS"):  # a sanitizer build's plumbing only
            if name in os.environ:
                env[name] = os.environ[name]
        p = subprocess.run([CFORMER, "analyse", self.pgn, "--workers=2", "--shard-size=3",
                            "-O", out, *self.args], capture_output=True, env=env, cwd=self.dir)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        self.assertEqual(read(out), read(self.single))
        plain = subprocess.run([CFORMER, "analyse", self.pgn, "--shard-size=3", "-O",
                                os.path.join(self.dir, "plain.jsonl"), *self.args],
                               capture_output=True, env=env, check=True)
        want = [l for l in plain.stderr.splitlines() if b"skipped" in l]
        self.assertEqual(len(want), 2, plain.stderr.decode())  # the game, then the summary
        self.assertEqual([l for l in p.stderr.splitlines() if b"skipped" in l], want)
        cut = [l for l in plain.stderr.splitlines() if b"(analysed up to it)" in l]
        self.assertEqual(len(cut), 1, plain.stderr.decode())
        self.assertIn(b"game 26: ", cut[0])
        self.assertEqual([l for l in p.stderr.splitlines() if b"(analysed up to it)" in l], cut)

    def test_unreachable_scheduler(self):
        # The connection attempt gives up after CONNECT_TIMEOUT_S; the
        # subprocess timeout only catches a hang (no wall-clock bound here:
        # importing Dask alone takes seconds on a busy machine).
        p = subprocess.run([CFORMER, "analyse", self.pgn, "--scheduler=tcp://127.0.0.1:9",
                            "-O", os.path.join(self.dir, "never.jsonl")],
                           capture_output=True, timeout=120)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"cannot reach the Dask scheduler at tcp://127.0.0.1:9", p.stderr)

    def test_network_failing_to_load_on_workers(self):
        bad_net = os.path.join(self.dir, "bad.pb.gz")
        with open(bad_net, "wb") as f:
            f.write(b"not a network")
        out = os.path.join(self.dir, "badnet.jsonl")
        p = subprocess.run([CFORMER, "analyse", self.pgn, "--workers=1", "--shard-size=3",
                            "--weights=" + bad_net, "-O", out, "--quiet"],
                           capture_output=True, timeout=120)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"worker tcp://", p.stderr)
        self.assertIn(bad_net.encode(), p.stderr)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    CFORMER = os.path.abspath(sys.argv[1])
    unittest.main(argv=sys.argv[:1] + sys.argv[2:], verbosity=1)
