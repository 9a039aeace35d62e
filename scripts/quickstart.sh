#!/usr/bin/env bash
# The README's first command: install what is needed, build into build/,
# and run cformer's main job: the UCI engine on its embedded default
# network, analysing a few positions (best move, evaluation, W/D/L), then a
# two-game match against Stockfish at its lowest level.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
[ -f build/build.ninja ] || meson setup build
ninja -C build

positions=(
  "startpos"
  "fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
  "fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"
  "fen 8/8/4k3/8/8/3p4/4K3/8 w - - 0 1"
)

echo
echo "== cformer (UCI) on its embedded network: best move and evaluation =="
coproc ENGINE { build/tools/cformer uci --show-wdl true; }
send() { printf '%s\n' "$1" >&"${ENGINE[1]}"; }
# Prints the engine's lines up to (and including) one starting with $1.
until_line() {
  local line
  while IFS= read -r line <&"${ENGINE[0]}"; do
    case "$line" in info\ string*|info\ depth*|bestmove*) echo "  $line" ;; esac
    [[ "$line" == "$1"* ]] && return 0
  done
  return 1
}
send uci; until_line uciok > /dev/null
send isready; until_line readyok
for p in "${positions[@]}"; do
  echo "position $p"
  send "position $p"
  send "go"   # no limit: the search agent makes its default 800 visits
  until_line bestmove
done
send quit
wait "$ENGINE_PID" 2>/dev/null || true

if [ -x /usr/games/stockfish ]; then
  echo
  echo "== cformer-match: 2 games against Stockfish 15.1 at its lowest level =="
  # 500 ms a move, of which the search keeps 50 ms back (MoveOverheadMs; the
  # default 200 suits a GUI over a slower link).
  build/tools/match/cformer-match --games 2 --movetime 500 --copt MoveOverheadMs=50 \
    --opponent-elo 1350 || true
fi
