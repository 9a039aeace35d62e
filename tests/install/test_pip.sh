#!/usr/bin/env bash
# test_pip.sh: `pip install .` of the source tree into a fresh virtual
# environment of Debian's python3, offline (--no-index: the tree's own build
# backend needs nothing from an index), bundling the libcformer.so just
# built; then the environment's python imports the package with no
# PYTHONPATH, no CFORMER_LIBRARY and no LD_LIBRARY_PATH, from outside the
# tree, and finds the library inside the installed package.
#
#   test_pip.sh SOURCE_ROOT LIBCFORMER_SO
#
# Exit 77 (skipped) when python3 cannot make a virtual environment with pip
# (Debian: python3-venv) or lacks NumPy (python3-numpy).
set -euo pipefail
src=$(cd "$1" && pwd)
lib=$2
py=/usr/bin/python3
"$py" -c 'import numpy' 2>/dev/null || { echo "SKIP: $py lacks numpy (python3-numpy)"; exit 77; }

work=$(mktemp -d /tmp/cformer-pip-XXXXXX)
trap 'rm -rf "$work"' EXIT
if ! "$py" -m venv --system-site-packages "$work/venv" >"$work/venv.log" 2>&1 ||
   [ ! -x "$work/venv/bin/pip" ]; then
  cat "$work/venv.log"
  echo "SKIP: $py -m venv cannot make an environment with pip (python3-venv)"
  exit 77
fi
fail() { echo "FAIL: $*" >&2; exit 1; }

# Offline and unconfigured: no index, no find-links, no user config.
export PIP_NO_INDEX=1 PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL
(cd "$work" && "$work/venv/bin/pip" install --no-cache-dir --config-settings "library=$lib" "$src") \
  >"$work/pip.log" 2>&1 || { cat "$work/pip.log" >&2; fail "pip install . failed"; }

env_args=(-u PYTHONPATH -u CFORMER_LIBRARY -u LD_LIBRARY_PATH)
if [ -n "${CF_ASAN_RUNTIME:-}" ]; then
  env_args+=(LD_PRELOAD="$CF_ASAN_RUNTIME" ASAN_OPTIONS=detect_leaks=0)
fi
out=$(cd / && env "${env_args[@]}" "$work/venv/bin/python" -c '
import cformer
with cformer.Net() as net:
    a = net.evaluate_arrays(["startpos", ("startpos", ["e2e4"])])
    print("pip ok", a.wdl.shape, int(a.legal.sum()))
print("package", cformer.__file__)
print("library", cformer.library_path)
')
echo "$out"
grep -q "pip ok (2, 3) 40" <<<"$out" || fail "the installed package did not evaluate"
ls "$work"/venv/lib/python3*/site-packages/cformer/py.typed >/dev/null 2>&1 ||
  fail "the wheel has no py.typed"
grep -q "package $work/venv/lib/python3[.0-9]*/site-packages/cformer/__init__.py" <<<"$out" ||
  fail "imported from outside the environment"
grep -q "library $work/venv/lib/python3[.0-9]*/site-packages/cformer/libcformer.so.0" <<<"$out" ||
  fail "the bundled library was not the one loaded"
# Uninstalling removes it again.
"$work/venv/bin/pip" uninstall -y cformer >/dev/null
if (cd / && env "${env_args[@]}" "$work/venv/bin/python" -c 'import cformer' 2>/dev/null); then
  fail "cformer still importable after pip uninstall"
fi
echo "pip install . works offline"
