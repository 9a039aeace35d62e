#!/usr/bin/env bash
# test_install.sh: `meson install` into a DESTDIR, then, with the source and
# build trees hidden (a private mount namespace lays an empty tmpfs over
# them), the installed tools, libcformer through pkg-config (the example of
# docs/LIBRARY.md, shared and static), and the installed Python package
# imported by a plain python3 (no PYTHONPATH) from the installed tree alone.
#
#   test_install.sh SOURCE_ROOT BUILD_ROOT
#
# Exit 77 (skipped) only when this machine cannot make a mount namespace.
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)

if ! unshare -m true 2>/dev/null && ! unshare -rm true 2>/dev/null; then
  echo "cannot create a mount namespace here (unshare -m / -rm): skipped" >&2
  exit 77
fi

work=$(mktemp -d /tmp/cformer-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
case "$work" in "$src"/*|"$build"/*) echo "temporary folder inside the tree" >&2; exit 1 ;; esac

meson install -C "$build" --no-rebuild --quiet --destdir "$work/dest" >"$work/install.log" 2>&1 || {
  cat "$work/install.log" >&2
  exit 1
}
prefix_rel=$(meson introspect "$build" --buildoptions |
  /usr/bin/python3 -c 'import json,sys; o={x["name"]:x["value"] for x in json.load(sys.stdin)}; print(o["prefix"])')
libdir_rel=$(meson introspect "$build" --buildoptions |
  /usr/bin/python3 -c 'import json,sys; o={x["name"]:x["value"] for x in json.load(sys.stdin)}; print(o["libdir"])')

# What the hidden run needs from the tree, copied out first.
/usr/bin/python3 - "$src/docs/LIBRARY.md" "$work/example.c" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"```c\n(.*?)```", text, re.S)
assert blocks, "no C example in docs/LIBRARY.md"
open(sys.argv[2], "w").write(blocks[0])
EOF
cp "$src/python/site_dir.py" "$work/site_dir.py"

cat >"$work/inner.sh" <<'INNER'
set -euo pipefail
work=$1 src=$2 build=$3 prefix_rel=$4 libdir_rel=$5
unset LD_LIBRARY_PATH # meson points it into the build tree
# A sanitized build: programs we compile here link the same sanitizers, and
# python3 gets the ASan runtime preloaded (it must come first).
san_flags=() py_env=()
if [ -n "${CF_SANITIZE:-}" ] && [ "$CF_SANITIZE" != none ]; then
  san_flags=(-fsanitize="$CF_SANITIZE")
  [ -z "${CF_ASAN_RUNTIME:-}" ] || py_env=(LD_PRELOAD="$CF_ASAN_RUNTIME" ASAN_OPTIONS=detect_leaks=0)
fi
p=$work/dest$prefix_rel
lib=$p/$libdir_rel
fail() { echo "FAIL: $*" >&2; exit 1; }
check() { # check NAME TEXT PATTERN
  grep -q -- "$3" <<<"$2" || { echo "$2" >&2; fail "$1: output lacks '$3'"; }
}

[ ! -e "$src/meson.build" ] || fail "the source tree is still visible"
[ ! -e "$build/build.ninja" ] || fail "the build tree is still visible"
cd "$work"

# Everything the install promises is there.
for f in bin/cformer bin/netconv bin/cformer-match include/cformer.h \
         "$libdir_rel/libcformer.so" "$libdir_rel/libcformer.a" "$libdir_rel/pkgconfig/cformer.pc" \
         share/cformer/bench/positions.txt share/cformer/match/openings.txt \
         share/cformer/puzzles/lichess_puzzles_public.csv share/cformer/policy_index_1858.txt \
         share/man/man1/cformer.1 share/man/man1/netconv.1 share/man/man1/cformer-match.1; do
  [ -e "$p/$f" ] || fail "not installed: $f"
done
# Internal headers stay internal.
n_headers=$(find "$p/include" -name '*.h' | wc -l)
[ "$n_headers" -eq 1 ] || fail "$n_headers headers installed, expected cformer.h alone"

# The engine on its built-in network.
out=$(printf 'uci\nisready\nposition startpos moves e2e4\ngo nodes 1\nquit\n' | "$p/bin/cformer")
check "cformer uci" "$out" "^bestmove "

# bench, puzzles and cformer-match read their shipped data from share/cformer.
out=$("$p/bin/cformer" bench --arch 1x32 --positions 2 --batches 1 --agents policy \
        --min-time 0 --min-calls 1 --no-sgemm --quiet 2>&1)
check "cformer bench" "$out" "share/cformer/bench/positions.txt"
out=$("$p/bin/cformer" puzzles --agent policy --limit 3 --quiet 2>&1)
check "cformer puzzles" "$out" "(3 puzzles)"
out=$("$p/bin/cformer-match" --games 2 --movetime 50 --quiet --opponent "$p/bin/cformer" \
        --oopt Agent=policy 2>&1)
check "cformer-match" "$out" "openings from $p/bin/../share/cformer/match/openings.txt"
check "cformer-match" "$out" "2 games"

# The override, and a missing file named with the override that fixes it.
if out=$(CFORMER_DATA_DIR=$work/nowhere "$p/bin/cformer" puzzles --limit 1 --quiet 2>&1); then
  fail "puzzles with an empty CFORMER_DATA_DIR succeeded"
fi
check "override" "$out" "CFORMER_DATA_DIR=$work/nowhere"
mkdir -p "$work/data/puzzles"
head -n 3 "$p/share/cformer/puzzles/lichess_puzzles_public.csv" >"$work/data/puzzles/lichess_puzzles_public.csv"
out=$(CFORMER_DATA_DIR=$work/data "$p/bin/cformer" puzzles --agent policy --quiet 2>&1)
check "override" "$out" "(2 puzzles)"
mv "$p/share/cformer/match" "$work/match.away"
if out=$("$p/bin/cformer-match" --games 1 --quiet 2>&1); then fail "match without openings succeeded"; fi
check "missing data" "$out" "match/openings.txt"
check "missing data" "$out" "CFORMER_DATA_DIR"
mv "$work/match.away" "$p/share/cformer/match"

# netconv writes and reads a network; the installed cformer evaluates it.
"$p/bin/netconv" random --layers 1 --embedding 32 --heads 2 --dff 32 --seed 3 -o "$work/tiny.pb.gz" >/dev/null
out=$("$p/bin/netconv" describe "$work/tiny.pb.gz")
check "netconv describe" "$out" "1 layer"
# export --onnx runs the installed exporter (share/cformer/onnx_export).
if /usr/bin/python3 -c 'import onnx, numpy' 2>/dev/null; then
  out=$("$p/bin/netconv" export "$work/tiny.pb.gz" --onnx "$work/tiny.onnx" 2>&1)
  check "netconv export --onnx" "$out" "ONNX opset 17"
  [ -s "$work/tiny.onnx" ] || fail "netconv export --onnx wrote nothing"
fi
out=$(echo '{"id": "s"}' | "$p/bin/cformer" eval --weights "$work/tiny.pb.gz")
check "cformer eval" "$out" '"wdl"'

# The CUDA module, when built, is found in the install (without a GPU the
# backend then reports the missing device, not a missing module).
if [ -e "$lib/cformer/libcformer_cuda.so" ]; then
  out=$(echo '{"id": "s"}' | "$p/bin/cformer" eval --weights "$work/tiny.pb.gz" --backend cuda 2>&1 || true)
  if grep -q "was not found" <<<"$out"; then echo "$out" >&2; fail "installed CUDA module not found"; fi
fi

# libcformer through pkg-config: the documented example, shared and static.
export PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$work/dest
cc -std=c11 -Wall -Wextra -Werror "${san_flags[@]}" example.c $(pkg-config --cflags --libs cformer) \
  -o example_shared
out=$(LD_LIBRARY_PATH=$lib ./example_shared)
check "example (shared)" "$out" "value agent plays"
check "example (shared)" "$out" "as expected: .*illegal move 'e2e5'"
cc -std=c11 "${san_flags[@]}" example.c \
  $(pkg-config --static --cflags --libs cformer | sed 's/-lcformer /-l:libcformer.a /') -o example_static
if ldd ./example_static | grep -q libcformer; then fail "the static example links libcformer.so"; fi
out=$(./example_static "$work/tiny.pb.gz")
check "example (static)" "$out" "value agent plays"
# Only the public names are exported.
if nm -D --defined-only "$lib/libcformer.so" | awk '{print $3}' | grep -v '^cformer_\|^CFORMER_0' | grep -q .; then
  fail "libcformer.so exports more than cformer_*"
fi

# The Python package where Debian's python3 imports from for this prefix
# (site_dir.py asks the interpreter), found by a plain python3 with no
# PYTHONPATH: the installed prefix is laid over the real one (/usr/local by
# default) when that hides neither python3 nor NumPy (not so for /usr).
read -r site where <<<"$(/usr/bin/python3 "$work/site_dir.py" "$prefix_rel" | paste -sd' ')"
[ -f "$work/dest$site/cformer/__init__.py" ] || fail "the Python package is not in $site"
[ -f "$work/dest$site/cformer/_paths.py" ] || fail "no _paths.py in the installed package"
[ -f "$work/dest$site/cformer/py.typed" ] || fail "no py.typed in the installed package"
numpy_dir=$(/usr/bin/python3 -c 'import numpy, os; print(os.path.dirname(numpy.__file__))')
py_real=$(readlink -f /usr/bin/python3)
overlaid=0
if [ "$where" = on-path ] && [ -d "$prefix_rel" ] && [ "$prefix_rel" != / ] &&
   [[ "$py_real" != "$prefix_rel"/* && "$numpy_dir" != "$prefix_rel"/* ]]; then
  mount --bind "$p" "$prefix_rel"
  overlaid=1
else
  echo "prefix $prefix_rel ($where): imported with PYTHONPATH=$work/dest$site" >&2
  py_env+=(PYTHONPATH="$work/dest$site")
fi
# env's -u options come before its NAME=VALUE ones (the sanitizer's preload)
out=$(cd / && env -u PYTHONPATH -u CFORMER_LIBRARY "${py_env[@]}" /usr/bin/python3 -c '
import cformer
with cformer.Net() as net:
    r = net.evaluate(("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", ["e2e4"]))
    a = net.evaluate_arrays(["startpos"])
    print("python ok", round(float(sum(r.wdl)), 3), len(r.policy), int(a.legal.sum()))
    print("package", cformer.__file__)
    print("library", cformer.library_path)
')
check "python" "$out" "python ok 1.0 20 20"
if [ "$overlaid" = 1 ]; then
  check "python" "$out" "package $site/cformer/__init__.py"
  check "python" "$out" "library $prefix_rel/$libdir_rel/libcformer.so"
fi
echo "python: overlaid=$overlaid ($site)"

# `cformer analyse --workers` finds the installed package and library beside
# the binary, with no PYTHONPATH or CFORMER_LIBRARY (needs python3-distributed).
if /usr/bin/python3 -c 'import distributed' 2>/dev/null; then
  printf '[Event "a"]\n\n1. e4 e5 *\n\n[Event "b"]\n\n1. e4 { open *\n' >"$work/g.pgn"
  out=$(cd "$work" && env -u PYTHONPATH -u CFORMER_LIBRARY "${py_env[@]}" "$p/bin/cformer" analyse \
        g.pgn -O g.jsonl --workers 1 2>&1) || { echo "$out" >&2; fail "analyse --workers 1"; }
  check "analyse --workers" "$out" "1 unreadable game(s) skipped"
  [ "$(wc -l <"$work/g.jsonl")" -eq 3 ] || fail "analyse --workers 1 wrote $(wc -l <"$work/g.jsonl") records"
fi
echo "installed tree works on its own"
INNER

# Hide the source tree (the build tree is inside it, or hidden the same way).
hide="mount -t tmpfs none '$src'"
case "$build" in "$src"/*) ;; *) hide="$hide && mount -t tmpfs none '$build'" ;; esac
run="$hide && exec bash '$work/inner.sh' '$work' '$src' '$build' '$prefix_rel' '$libdir_rel'"
if unshare -m true 2>/dev/null; then
  unshare -m bash -c "$run"
else
  unshare -rm bash -c "$run"
fi
