#!/usr/bin/env bash
# Builds cformer for the browser with Debian's emscripten (package
# emscripten; scripts/install-deps.sh installs it): meson with the cross
# file web/emscripten.ini into build-wasm/ (or $1), then ninja. Nothing is
# downloaded: zlib and protobuf-c are replaced by the tree's own code
# (weights/meson.build). Extra arguments after the folder go to meson setup,
# or meson configure when the folder exists (e.g. -Dweb_threads=true: the
# threaded build). Safe to re-run: the second run is incremental.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/build-wasm}"
shift || true
if ! command -v emcc >/dev/null 2>&1; then
  echo "build-wasm: emcc not found: install Debian's emscripten (scripts/install-deps.sh)" >&2
  exit 1
fi
# Debian's emscripten runs its JavaScript tools with node and finds their
# modules (acorn) among Debian's node packages; a node from elsewhere
# (nodesource) does not look there by itself.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"
# One build at a time per folder (tests may call this concurrently).
mkdir -p "$out"
exec 9>"$out/.build-wasm.lock"
flock 9
if [ ! -f "$out/build.ninja" ]; then
  meson setup "$out" "$root" --cross-file "$root/web/emscripten.ini" -Dwerror=true "$@"
elif [ $# -gt 0 ]; then
  meson configure "$out" "$@" # options given again: a folder set up before takes them
fi
ninja -C "$out"
