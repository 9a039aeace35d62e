#!/usr/bin/env bash
# Reproduces the numbers of docs/STRENGTH.md for a network (default: the
# shipped default network): puzzle accuracy of both agents by rating band,
# matches against Stockfish 15.1 with UCI_LimitStrength, and speed.
#
#   scripts/strength.sh [NET.pb.gz]
#   GAMES=200 ELOS="1350 1500" AGENTS="value policy" CONCURRENCY=2 scripts/strength.sh
#
# Results go to $OUT (default strength-out/): puzzles.txt, match-AGENT-ELO.txt
# and .pgn, bench.txt. Stockfish plays 100 ms per move (MOVETIME), as does
# cformer, which keeps MOVE_OVERHEAD ms (default 10) of it back: its
# MoveOverheadMs applies to every agent, and the UCI default of 200 would
# leave nothing of 100 ms (the value agent would play its policy's move).
# Needs a build in $BUILD (default build/).
set -euo pipefail
cd "$(dirname "$0")/.."

net=${1:-weights/default/cformer-default.pb.gz}
build=${BUILD:-build}
out=${OUT:-strength-out}
games=${GAMES:-200}
elos=${ELOS:-1350}
agents=${AGENTS:-value policy}
movetime=${MOVETIME:-100}
overhead=${MOVE_OVERHEAD:-10}
concurrency=${CONCURRENCY:-2}

[ -f "$net" ] || { echo "strength.sh: no network file '$net'" >&2; exit 2; }
[ -x "$build/tools/cformer" ] || { echo "strength.sh: build first (no $build/tools/cformer)" >&2; exit 2; }
mkdir -p "$out"

echo "== puzzles ($net)"
"$build/tools/cformer" puzzles --weights "$net" | tee "$out/puzzles.txt"

for agent in $agents; do
  for elo in $elos; do
    echo "== match: $agent agent vs Stockfish UCI_Elo $elo, $games games, $movetime ms/move"
    "$build/tools/match/cformer-match" --copt "WeightsFile=$(realpath "$net")" \
      --copt "Agent=$agent" --copt "MoveOverheadMs=$overhead" \
      --opponent-elo "$elo" --games "$games" --movetime "$movetime" \
      --concurrency "$concurrency" --pgn "$out/match-$agent-$elo.pgn" --quiet |
      tee "$out/match-$agent-$elo.txt"
  done
done

echo "== speed"
"$build/tools/cformer" bench --weights "$net" --backend all --batches 1,8,32 --no-sgemm |
  tee "$out/bench.txt"
