"""test_datagen_dask: training/datagen.py's Dask path on a 2-worker local
cluster against the real Stockfish at a tiny budget: every line has the 9
shard fields and `cformer pack-data --strict` accepts it; the games do not
depend on the chunking (one game per task or two give the same lines);
a rerun finds every chunk written and plays nothing (resume).

usage: test_datagen_dask.py CFORMER SOURCE_ROOT   (exit 77: no Stockfish or Dask)
"""

import glob
import os
import subprocess
import sys
import tempfile

if not os.access("/usr/games/stockfish", os.X_OK):
    print("/usr/games/stockfish not installed: skipped")
    sys.exit(77)
try:
    import distributed  # noqa: F401
except ImportError:
    print("python3-distributed not installed: skipped")
    sys.exit(77)

CFORMER, ROOT = sys.argv[1:3]
DATAGEN = os.path.join(ROOT, "training", "datagen.py")


def run(out, chunk):
    cmd = [sys.executable, DATAGEN, "--out", out, "--games", "4", "--workers", "2",
           "--label-nodes", "200", "--play-nodes", "50", "--max-plies", "40",
           "--sample-rate", "0.5", "--dask-local", "2", "--chunk-games", str(chunk)]
    return subprocess.run(cmd, check=True, timeout=240, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True).stdout


def lines(out):
    got = []
    for path in sorted(glob.glob(os.path.join(out, "shard-*.tsv"))):
        with open(path) as f:
            got += f.read().splitlines()
    return got


with tempfile.TemporaryDirectory() as tmp:
    one, two = os.path.join(tmp, "one"), os.path.join(tmp, "two")
    progress = run(one, 1)
    assert "dask: chunk 4/4," in progress, progress
    a = lines(one)
    assert len(glob.glob(os.path.join(one, "shard-*.tsv"))) == 4
    assert a and all(len(l.split("\t")) == 9 for l in a), a[:3]
    assert {int(l.split("\t")[0]) for l in a} <= {0, 1, 10000000, 10000001}
    run(two, 2)
    assert sorted(lines(two)) == sorted(a), "the games depend on the chunking"
    # every line replays: pack-data --strict checks each history window
    subprocess.run([CFORMER, "pack-data", "--strict", "--out", os.path.join(tmp, "packed"),
                    *sorted(glob.glob(os.path.join(one, "shard-*.tsv")))], check=True,
                   stdout=subprocess.DEVNULL)
    # resume: nothing left to play, nothing written twice
    again = run(one, 1)
    assert "dask: chunk" not in again, again
    assert sorted(lines(one)) == sorted(a)
    assert not glob.glob(os.path.join(one, "*.tmp-*"))
print("ok")
