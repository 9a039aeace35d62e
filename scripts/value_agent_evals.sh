#!/usr/bin/env bash
# value_agent_evals.sh [CFORMER] [OPENINGS]: the value agent's network
# evaluations per move, averaged over the position after each opening of
# data/match/openings.txt (a full one-ply search: `go` with no limit, so
# the count does not depend on the machine's speed).
set -euo pipefail
cd "$(dirname "$0")/.."
cformer=${1:-build/tools/cformer}
openings=${2:-data/match/openings.txt}
coproc ENGINE { "$cformer" uci --agent value; }
send() { printf '%s\n' "$1" >&"${ENGINE[1]}"; }
nodes_of_search() {
  local line nodes=""
  while IFS= read -r line <&"${ENGINE[0]}"; do
    [[ "$line" == "info depth"* ]] && nodes=$(sed 's/.* nodes \([0-9]*\) .*/\1/' <<< "$line")
    [[ "$line" == bestmove* ]] && { echo "$nodes"; return; }
  done
}
send isready
while IFS= read -r line <&"${ENGINE[0]}"; do [[ "$line" == readyok ]] && break; done
total=0 count=0
while IFS= read -r entry; do
  moves=${entry%%#*}
  moves=$(echo $moves)
  [ -n "$moves" ] || continue
  send "position startpos moves $moves"
  send go
  n=$(nodes_of_search)
  total=$((total + n)); count=$((count + 1))
done < "$openings"
send quit
wait "$ENGINE_PID" 2>/dev/null || true
awk -v t="$total" -v c="$count" 'BEGIN { printf "value agent: %d positions, %d evaluations, mean %.1f evaluations per move\n", c, t, t / c }'
