#!/usr/bin/env bash
# Installs the Debian packages cformer builds, tests and runs with.
# Used by the README's first command and by .ci/run; safe to re-run.
set -euo pipefail

packages=(
  # toolchain and build
  gcc libc6-dev pkg-config meson ninja-build
  # weights/: protobuf-c (runtime + protoc-c generator) and zlib
  libprotobuf-c-dev protobuf-c-compiler zlib1g-dev
  # cformer analyse: .pgn.zst input (.gz is zlib above), and its Dask path
  libzstd-dev python3-distributed
  # backends/: oneDNN and OpenBLAS
  libdnnl-dev libopenblas-dev
  # engine/syzygy/: Syzygy tablebases (Fathom prober)
  libfathom-dev
  # JSON (cformer eval) and YAML (netconv configs)
  libcjson-dev libyaml-dev
  # bench tests: SVG charts are checked with an XML parser
  libexpat1-dev
  # libFuzzer targets (clang + its sanitizer/fuzzer runtimes; libomp for the
  # CPU backends' OpenMP when built with clang)
  clang libclang-rt-14-dev libomp-14-dev
  # calibrated opponent and data labeller (engine tests, tools/match, training)
  stockfish
  # helper scripts, the trainer (training/) and its tests: Debian's python3
  # with NumPy and PyTorch (CPU), and pytest for the Python tests
  python3 python3-numpy python3-torch python3-pytest
  # training curves (training/plot_curve.py draws them with matplotlib)
  python3-matplotlib
  # netconv export --onnx: Debian's ONNX Python package (graph builder,
  # checker, shape inference)
  python3-onnx
  # man pages (man/): groff renders them in the man/pages test
  groff-base
  # the WebAssembly build (scripts/build-wasm.sh, web/): emscripten with
  # its clang, lld and binaryen; its tests run under node, the page's in
  # Chromium (driven by npm's playwright-core, below)
  emscripten chromium
  # backends tests: the CPU backends on an emulated CPU without AVX
  # (qemu-x86_64 -cpu Nehalem, tests/backends/run_on_old_cpu.sh)
  qemu-user
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo_cmd=(sudo)
  else
    echo "install-deps: not root and no sudo; install these packages yourself: ${packages[*]}" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
echo "install-deps: ${#packages[@]} packages present"

# onnxruntime for the ONNX export's runtime test and scripts/bench_vs_ort.py:
# npm's onnxruntime-node at the version pinned in
# tools/netconv/onnx_export/package-lock.json, into that folder's
# node_modules (not tracked). --onnxruntime-node-install=skip skips its
# optional CUDA download (the CPU runtime ships in the package). Without
# npm, Debian's nodejs and npm are installed first. A failure here is not
# fatal: the runtime test then skips (exit 77) and says why.
if ! command -v npm >/dev/null 2>&1; then
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null || true
fi
onnx_dir="$(cd "$(dirname "$0")/.." && pwd)/tools/netconv/onnx_export"
if command -v npm >/dev/null 2>&1 &&
   npm ci --prefix "$onnx_dir" --no-audit --no-fund --loglevel=error \
     --onnxruntime-node-install=skip >/dev/null; then
  echo "install-deps: onnxruntime-node $(node -p "require('$onnx_dir/node_modules/onnxruntime-node/package.json').version" 2>/dev/null) present"
else
  echo "install-deps: warning: onnxruntime-node could not be installed; the ONNX runtime test will skip" >&2
fi

# The page's board and rules (cm-chessboard, chess.js) and its browser
# tests' driver (playwright-core, which uses Debian's Chromium above and
# downloads no browser): npm, at the versions pinned in web/package-lock.json,
# into web/node_modules (not tracked). Without them the web/page test fails
# and says what is missing.
web_dir="$(cd "$(dirname "$0")/.." && pwd)/web"
if command -v npm >/dev/null 2>&1 &&
   npm ci --prefix "$web_dir" --no-audit --no-fund --loglevel=error >/dev/null; then
  echo "install-deps: web/node_modules present (cm-chessboard, chess.js, playwright-core)"
else
  echo "install-deps: warning: npm ci --prefix web failed; the web/page test will fail" >&2
fi
