"""Runs the package's pytest tests (tests/python/): `python3 -m pytest -q
<dir>`, or exits 77 (meson's skip) when numpy or pytest is missing."""
import importlib.util
import os
import subprocess
import sys

missing = [m for m in ("numpy", "pytest") if importlib.util.find_spec(m) is None]
if missing:
    print("SKIP: %s lacks %s (Debian: apt install %s)"
          % (sys.executable, ", ".join(missing), " ".join("python3-" + m for m in missing)))
    sys.exit(77)
env = dict(os.environ)
# Under a sanitizer build libcformer.so needs the ASan runtime loaded before
# anything else in python3 (CF_ASAN_RUNTIME, set by meson); Python's own
# allocations are not ours to leak-check.
asan = env.get("CF_ASAN_RUNTIME")
if asan:
    env["LD_PRELOAD"] = asan
    env["ASAN_OPTIONS"] = "detect_leaks=0"
sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          sys.argv[1]], env=env))
