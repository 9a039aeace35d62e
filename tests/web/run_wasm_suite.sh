#!/usr/bin/env bash
# The WebAssembly builds' own tests, from the native test suite: builds
# both (scripts/build-wasm.sh, incremental): single-threaded into
# WASM_BUILD_DIR and with threads into WASM_BUILD_DIR-threads, then runs
# `meson test` in each (under node, the page in Chromium). Skips (77),
# saying why, only when emscripten or node is missing; .ci/run installs
# both (scripts/install-deps.sh).
#   run_wasm_suite.sh SOURCE_ROOT [WASM_BUILD_DIR [NATIVE_BUILD_DIR]]
# The native build (its cformer-match) plays 2 games against the browser
# engine through web/uci-bridge.js (tests/web/bridge_test.js).
set -uo pipefail
root="$1"
out="${2:-$root/build-wasm}"
if [ $# -ge 3 ]; then export CF_NATIVE_BUILD="$3"; fi
if ! command -v emcc >/dev/null 2>&1; then
  echo "skipped: emcc not found (Debian package emscripten; scripts/install-deps.sh installs it)"
  exit 77
fi
if ! command -v node >/dev/null 2>&1; then
  echo "skipped: node not found (Debian package nodejs)"
  exit 77
fi
bash "$root/scripts/build-wasm.sh" "$out" || { echo "the WebAssembly build failed"; exit 1; }
bash "$root/scripts/build-wasm.sh" "$out-threads" -Dweb_threads=true ||
  { echo "the threaded WebAssembly build failed"; exit 1; }
status=0
meson test -C "$out-threads" --print-errorlogs || status=1
meson test -C "$out" --print-errorlogs || status=1 # the page here takes both builds
exit $status
