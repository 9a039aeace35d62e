"""test_datagen_progress: datagen.py's progress line (rates and ETA) and
its duration text, without Stockfish.

usage: test_datagen_progress.py SOURCE_ROOT
"""

import os
import sys

ROOT = sys.argv[1]
sys.path.insert(0, os.path.join(ROOT, "training"))

import datagen  # noqa: E402


def main():
    fmt = datagen.format_duration
    assert fmt(0.2) == "0m01s", fmt(0.2)
    assert fmt(42.4) == "0m42s"
    assert fmt(200) == "3m20s"
    assert fmt(7170) == "2h00m"
    assert fmt(3900) == "1h05m"

    # 10 games of 100 played in 600 s: 60 games/hour, 90 left = 1.5 h.
    line = datagen.progress_line(1, 10, 100, 10, 250, 600.0)
    assert line == (
        "worker 1: game 10/100, 250 positions this run, 1500 positions/hour, "
        "60.0 games/hour, elapsed 10m00s, ETA 1h30m"
    ), line
    # A resumed run: 40 games were done before; 10 played now in 600 s, so
    # the rate is 10 games / 600 s and the 50 left take 50 min.
    line = datagen.progress_line(0, 50, 100, 10, 250, 600.0)
    assert line.endswith("60.0 games/hour, elapsed 10m00s, ETA 50m00s"), line
    # The last game: done, no ETA.
    line = datagen.progress_line(0, 100, 100, 100, 2500, 6000.0)
    assert line.endswith(", done"), line
    print("ok")


if __name__ == "__main__":
    main()
