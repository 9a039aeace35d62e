#!/bin/sh
# run_time_soak.sh CFORMER_MATCH CFORMER OPENINGS B_SANITIZE [GAMES]: the
# slow suite's clock soak. cformer (its defaults: the search agent, the
# built-in net, MoveOverheadMs 200) plays GAMES (default 50) games against
# Stockfish 15.1 at UCI_Elo 1350 on a real clock, first at 1 s + 0 and then
# at 0.3 s + 0 sudden death: cformer-match sends go wtime/btime, takes the
# round trip off the mover's clock and scores a side whose clock runs out
# as lost on time. Passes when cformer loses no game on time and faults in
# none (illegal move, crash). Exit 77 (skip) when Stockfish is missing or
# the build is sanitized (a sanitized engine is not the product whose clock
# handling this measures).
set -u
match="$1" cformer="$2" openings="$3" sanitize="$4" games="${5:-50}"
case "$sanitize" in *address* | *undefined* | *thread*) echo "sanitized build ($sanitize): skipped"; exit 77 ;; esac
stockfish=/usr/games/stockfish
[ -x "$stockfish" ] || stockfish=$(command -v stockfish 2>/dev/null || true)
[ -n "$stockfish" ] && [ -x "$stockfish" ] || { echo "no stockfish: skipped"; exit 77; }
tmp=$(mktemp -d /tmp/cf_time_soak_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
status=0
for tc in 1+0 0.3+0; do
  echo "== $games games at $tc, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  "$match" --cformer "$cformer" --opponent "$stockfish" --opponent-elo 1350 --tc "$tc" \
    --games "$games" --openings "$openings" --pgn "$tmp/games.pgn" --quiet > "$tmp/out.txt" 2>&1
  rc=$?
  cat "$tmp/out.txt"
  [ "$rc" -eq 0 ] || { echo "FAIL: cformer-match exited $rc at $tc"; status=1; continue; }
  played=$(grep -c '^\[Result ' "$tmp/games.pgn")
  [ "$played" -eq "$games" ] || { echo "FAIL: $played of $games games in the PGN at $tc"; status=1; }
  lost=$(grep -c 'cformer[^}]* lost on time' "$tmp/games.pgn")
  [ "$lost" -eq 0 ] || { echo "FAIL: cformer lost $lost game(s) on time at $tc"; status=1; }
  grep -q '^faults (illegal move, crash, timeout): cformer 0,' "$tmp/out.txt" ||
    { echo "FAIL: cformer faulted at $tc"; status=1; }
done
[ "$status" -eq 0 ] && echo "no game lost on time, no fault"
exit $status
