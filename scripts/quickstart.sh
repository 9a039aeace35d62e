#!/usr/bin/env bash
# The README's first command: install what is needed, build into build/,
# and run cformer's main job.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
[ -f build/build.ninja ] || meson setup build
ninja -C build

# Main job: until the UCI engine lands this runs the move generator check
# (perft of the start position to depth 5: 4,865,609 nodes).
echo
echo "== cformer perft --depth 5 (start position) =="
build/tools/cformer perft --depth 5
