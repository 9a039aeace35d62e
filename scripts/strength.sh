#!/usr/bin/env bash
# Reproduces the numbers of docs/STRENGTH.md for a network (default: the
# shipped default network): puzzle accuracy of the agents by rating band, a
# fixed-node ladder of the search against the value agent, matches against
# Stockfish 15.1 with UCI_LimitStrength at a fixed time per move, and speed.
#
#   scripts/strength.sh [NET.pb.gz]
#   STEPS="ladder" NODES="1 32 100" GAMES=100 scripts/strength.sh
#   STEPS="stockfish" ELOS="1500 1800" AGENTS=search MOVETIME=1000 scripts/strength.sh
#   STEPS=levels LEVELS="1200 1400 1600" GAMES=60 MOVETIME=200 CONCURRENCY=1 scripts/strength.sh
#
# Settings (environment):
#   STEPS        which parts to run, any of: puzzles ladder stockfish bench levels
#                (default: the first four)
#   GAMES        games per match (default 100)
#   CONCURRENCY  games played at once (default 2)
#   NODES        ladder: the search's visits per move (default "1 32 100 400";
#                smart pruning off, so every move gets exactly that)
#   AGENTS       stockfish: cformer's agents (default "search")
#   ELOS         stockfish: its UCI_Elo levels (default "1500 1800")
#   LEVELS       levels: cformer's UCI_Elo settings (UCI_LimitStrength on), each
#                against Stockfish's UCI_Elo at the same number, or its lowest
#                (1350) below that (default "1200 1400 1600")
#   MOVETIME     stockfish, levels: milliseconds per move for both sides (default 1000)
#   OVERHEAD     cformer's MoveOverheadMs in the matches (default 50: the
#                match tool sends `go movetime` and allows a 2 s margin, so
#                Lc0's GUI reserve of 200 ms would only waste time)
#   OUT          output folder (default strength-out/)
#   BUILD        build folder (default build/)
# Results: puzzles.txt, ladder-N.txt/.pgn, match-AGENT-ELO.txt/.pgn,
# level-ELO.txt/.pgn, bench.txt in $OUT, each with the load average at its start.
set -euo pipefail
cd "$(dirname "$0")/.."

net=${1:-weights/default/cformer-default.pb.gz}
build=${BUILD:-build}
out=${OUT:-strength-out}
steps=${STEPS:-puzzles ladder stockfish bench}
games=${GAMES:-100}
concurrency=${CONCURRENCY:-2}
nodes=${NODES:-1 32 100 400}
agents=${AGENTS:-search}
elos=${ELOS:-1500 1800}
levels=${LEVELS:-1200 1400 1600}
movetime=${MOVETIME:-1000}
overhead=${OVERHEAD:-50}

[ -f "$net" ] || { echo "strength.sh: no network file '$net'" >&2; exit 2; }
[ -x "$build/tools/cformer" ] || { echo "strength.sh: build first (no $build/tools/cformer)" >&2; exit 2; }
for s in $steps; do
  case "$s" in puzzles | ladder | stockfish | bench | levels) ;;
    *) echo "strength.sh: unknown step '$s' (puzzles ladder stockfish bench levels)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
weights=$(realpath "$net")
cformer=$(realpath "$build/tools/cformer")
match="$build/tools/match/cformer-match"
has() { [[ " $steps " == *" $1 "* ]]; }
load() { echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"; }

if has puzzles; then
  echo "== puzzles ($net)"
  { load; "$cformer" puzzles --weights "$weights"; } | tee "$out/puzzles.txt"
fi

if has ladder; then
  for n in $nodes; do
    echo "== ladder: search at $n nodes/move (smart pruning off) vs the value agent, $games games"
    { load; "$match" --cformer "$cformer --weights $weights --agent search --smart-pruning-factor 0" \
        --nodes "$n" --opponent "$cformer --weights $weights --agent value" --opponent-nodes 1000 \
        --games "$games" --concurrency "$concurrency" --pgn "$out/ladder-$n.pgn" --quiet; } |
      tee "$out/ladder-$n.txt"
  done
fi

if has stockfish; then
  for agent in $agents; do
    for elo in $elos; do
      echo "== match: $agent agent vs Stockfish UCI_Elo $elo, $games games, $movetime ms/move"
      { load; "$match" --cformer "$cformer" --copt "WeightsFile=$weights" --copt "Agent=$agent" \
          --copt "MoveOverheadMs=$overhead" --opponent-elo "$elo" --games "$games" \
          --movetime "$movetime" --concurrency "$concurrency" --pgn "$out/match-$agent-$elo.pgn" \
          --quiet; } | tee "$out/match-$agent-$elo.txt"
    done
  done
fi

if has levels; then
  for level in $levels; do
    sf=$((level < 1350 ? 1350 : level)) # Stockfish 15.1's UCI_Elo starts at 1350
    echo "== level: cformer UCI_Elo $level vs Stockfish UCI_Elo $sf, $games games, $movetime ms/move"
    { load; "$match" --cformer "$cformer" --copt "WeightsFile=$weights" \
        --copt "UCI_LimitStrength=true" --copt "UCI_Elo=$level" \
        --copt "MoveOverheadMs=$overhead" --opponent-elo "$sf" --games "$games" \
        --movetime "$movetime" --concurrency "$concurrency" --pgn "$out/level-$level.pgn" \
        --quiet; echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"; } |
      tee "$out/level-$level.txt"
  done
fi

if has bench; then
  echo "== speed"
  { load; "$cformer" bench --weights "$weights" --backend all --batches 1,8,32 --no-sgemm; } |
    tee "$out/bench.txt"
fi
