"""Runs the package's pytest tests (tests/python/): `python3 -m pytest -q
<dir>`, or exits 77 (meson's skip) when numpy or pytest is missing."""
import importlib.util
import subprocess
import sys

missing = [m for m in ("numpy", "pytest") if importlib.util.find_spec(m) is None]
if missing:
    print("SKIP: %s lacks %s (Debian: apt install %s)"
          % (sys.executable, ", ".join(missing), " ".join("python3-" + m for m in missing)))
    sys.exit(77)
sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          sys.argv[1]]))
