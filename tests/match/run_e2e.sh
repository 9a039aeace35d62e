#!/bin/sh
# run_e2e.sh CFORMER_MATCH CFORMER FAKE_ENGINE OPENINGS: the real cformer
# binary over pipes through complete games against Stockfish at its lowest
# level, both agents, several openings; then the adjudication of faults
# with a misbehaving engine. Checks: no illegal move or other fault by
# cformer, every game ended by the rules, PGN written, and no engine
# process left behind. Exit 77 (skip) without Stockfish.
set -u
match="$1" cformer="$2" fake="$3" openings="$4"
stockfish=/usr/games/stockfish
[ -x "$stockfish" ] || { echo "no $stockfish: skipped"; exit 77; }
tmp=$(mktemp -d /tmp/cf_e2e_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# Unique paths, so the processes of this test can be told from any other.
ln -s "$(readlink -f "$cformer")" "$tmp/cformer-e2e"
ln -s "$stockfish" "$tmp/stockfish-e2e"
fail() { echo "FAIL: $*"; exit 1; }

run() { # name openings-file agent games
  "$match" --cformer "$tmp/cformer-e2e --agent $3" --opponent "$tmp/stockfish-e2e" \
    --opponent-elo 1350 --oopt "Skill Level=0" --games "$4" --movetime 20 --margin 10000 \
    --concurrency 2 --openings "$2" --pgn "$tmp/$1.pgn" > "$tmp/$1.out" 2>&1
  rc=$?
  cat "$tmp/$1.out"
  [ $rc -eq 0 ] || fail "$1: exit status $rc"
  grep -q ": $4 games: " "$tmp/$1.out" || fail "$1: not all $4 games played"
  grep -q "faults (illegal move, crash, timeout): cformer 0, opponent 0; adjudicated draws 0" \
    "$tmp/$1.out" || fail "$1: a game did not end by the rules"
  [ "$(grep -c '^\[Result ' "$tmp/$1.pgn")" -eq "$4" ] || fail "$1: PGN lacks games"
  grep -q '^1\. ' "$tmp/$1.pgn" || fail "$1: PGN lacks moves"
}

# The value agent over the first two openings, the policy agent over
# another (each opening with both colours).
run value "$openings" value 4
sed -n '/^[a-h]/p' "$openings" | sed -n '20p' > "$tmp/openings2.txt"
run policy "$tmp/openings2.txt" policy 2

# cformer's policy agent against itself is deterministic (one evaluation a
# move, never cut short by the clock): an opening that comes round again with
# the same colours replays the same game, and the match says so.
sed -n '/^[a-h]/p' "$openings" | sed -n '1p' > "$tmp/openings1.txt"
"$match" --cformer "$tmp/cformer-e2e --agent policy" --opponent "$tmp/cformer-e2e --agent policy" --games 4 --movetime 20 \
  --margin 10000 --max-plies 40 --openings "$tmp/openings1.txt" > "$tmp/self.out" 2>&1
rc=$?
cat "$tmp/self.out"
[ $rc -eq 0 ] || fail "self: exit status $rc"
grep -q "^note: 4 games over 1 openings: from game 3 on" "$tmp/self.out" || fail "self: no note on repeats"
grep -q "^distinct games: 2 of 4 (the rest repeat" "$tmp/self.out" || fail "self: repeats not counted"
grep -q "^distinct games: 4 of 4$" "$tmp/value.out" || fail "value: Stockfish games counted as repeats"

# Fixed nodes per side: the search agent gets `go nodes 5` (smart pruning off,
# so every move counts exactly 5 visits, unless the search proves the result
# first: a mate found ends it), its opponent `go nodes 1`. cformer's log shows
# what it was sent and what it answered.
"$match" --cformer "$tmp/cformer-e2e --agent search --smart-pruning-factor 0 --logfile $tmp/nodes.log" --nodes 5 \
  --opponent "$tmp/cformer-e2e --agent policy" --opponent-nodes 1 --games 2 --max-plies 20 \
  --openings "$tmp/openings1.txt" --pgn "$tmp/nodes.pgn" > "$tmp/nodes.out" 2>&1
rc=$?
cat "$tmp/nodes.out"
[ $rc -eq 0 ] || fail "nodes: exit status $rc"
grep -q "^cformer-match: 2 games, cformer 5 nodes/move, opponent 1 nodes/move," "$tmp/nodes.out" ||
  fail "nodes: limits not announced"
moves=$(grep -c " << bestmove " "$tmp/nodes.log")
[ "$moves" -ge 10 ] || fail "nodes: only $moves cformer moves in its log"
[ "$(grep -c " >> go " "$tmp/nodes.log")" -eq "$moves" ] || fail "nodes: go commands and moves differ"
[ "$(grep -c " >> go nodes 5$" "$tmp/nodes.log")" -eq "$moves" ] || fail "nodes: cformer was not sent go nodes 5"
# The last info line before each bestmove: 5 visits, or a proven mate.
short=$(awk '/ << info .* nodes /{last=$0} / << bestmove /{if (last !~ / nodes 5 / && last !~ / score mate /) n++} END{print n+0}' "$tmp/nodes.log")
[ "$short" -eq 0 ] || fail "nodes: $short moves searched other than 5 nodes without a proof"
grep -qE "^cformer evaluations per move: [45]\.[0-9] " "$tmp/nodes.out" || fail "nodes: cformer did not search about 5 nodes a move"
[ "$(grep -c '^\[TimeControl "-"\]' "$tmp/nodes.pgn")" -eq 2 ] || fail "nodes: PGN TimeControl"
"$match" --nodes 0 > /dev/null 2>&1; [ $? -eq 2 ] || fail "--nodes 0 accepted"

# Options are checked against what each engine declares (exit 2, named);
# an engine's own error lines reach the user; progress lines carry an ETA.
"$match" --cformer "$tmp/cformer-e2e" --copt Bogus=1 --games 1 > /dev/null 2> "$tmp/opt.err"
[ $? -eq 2 ] || fail "unknown engine option: exit status"
grep -q "has no option 'Bogus' (it has: WeightsFile, " "$tmp/opt.err" || fail "unknown engine option not named"
"$match" --cformer "$tmp/cformer-e2e" --opponent "$tmp/stockfish-e2e" --opponent-elo 1000 --games 1 \
  > /dev/null 2> "$tmp/elo.err"
[ $? -eq 2 ] || fail "UCI_Elo out of range: exit status"
grep -q "option UCI_Elo: bad value '1000' (expected a whole number from 1350 to 2850)" "$tmp/elo.err" ||
  fail "UCI_Elo range not given"
"$match" --cformer "$tmp/cformer-e2e" --copt "Agent=mcts" --games 1 > /dev/null 2> "$tmp/combo.err"
[ $? -eq 2 ] && grep -q "option Agent: bad value 'mcts' (expected one of: policy value search)" \
  "$tmp/combo.err" || fail "combo value not checked"
"$match" --cformer "$tmp/cformer-e2e" --copt WeightsFile=/nonexistent.pb.gz \
  --opponent "$tmp/cformer-e2e --agent policy" --opponent-nodes 1 --games 2 --movetime 20 \
  --openings "$tmp/openings1.txt" > "$tmp/msg.out" 2> "$tmp/msg.err"
[ $? -eq 3 ] || fail "an engine without a network: exit status"
[ "$(grep -c 'says: error: /nonexistent.pb.gz' "$tmp/msg.err")" -eq 1 ] ||
  fail "the engine's error line not shown once"
grep -q "^game 1/2 .* ETA [0-9]*h[0-9][0-9]m[0-9][0-9]s$" "$tmp/msg.out" || fail "no ETA in the progress"

# Clocks (--tc): real games on a 3 s + 0.1 s clock end by the rules, with the
# time control in the PGN; an engine over its clock loses on time. (The
# clock's mechanics are under test, not the search's time management, so
# cformer plays its one-evaluation agent: other tests running beside this one
# must not make a side lose on time.)
"$match" --cformer "$tmp/cformer-e2e --agent policy" --opponent "$tmp/stockfish-e2e" \
  --opponent-elo 1350 --tc 3+0.1 --games 2 --concurrency 1 --openings "$tmp/openings1.txt" \
  --pgn "$tmp/tc.pgn" > "$tmp/tc.out" 2>&1
rc=$?
cat "$tmp/tc.out"
[ $rc -eq 0 ] || fail "tc: exit status $rc"
grep -q "^cformer-match: 2 games, clock 3+0.1 s," "$tmp/tc.out" || fail "tc: clock not announced"
# Every game ends by the rules or on the clock, never by an illegal move, a
# crash or an engine that stopped answering. That nobody loses on time at
# 3+0.1 holds on a quiet machine only (a busy one takes time from both
# sides): checked as a benchmark, with CF_TEST_LATENCY=assert.
[ "$(grep -c '^game [12]/2 ' "$tmp/tc.out")" -eq 2 ] || fail "tc: not both games played"
if grep '^game [12]/2 ' "$tmp/tc.out" | grep -E 'illegal move|crashed|lost on time( |$)' |
   grep -v 'lost on time (clock)'; then
  fail "tc: a game ended by a fault"
fi
if [ "${CF_TEST_LATENCY:-}" = assert ]; then
  grep -q "faults (illegal move, crash, timeout): cformer 0, opponent 0; adjudicated draws 0" \
    "$tmp/tc.out" || fail "tc: a game lost on time or by a fault"
fi
[ "$(grep -c '^\[TimeControl "3+0.1"\]' "$tmp/tc.pgn")" -eq 2 ] || fail "tc: PGN TimeControl"
"$match" --cformer "$fake slow" --opponent "$tmp/stockfish-e2e" --tc 1+0 --games 1 \
  --openings "$openings" > "$tmp/flag.out" 2>&1
[ $? -eq 3 ] || fail "flag: exit status"
grep -q "fake-slow lost on time (clock)" "$tmp/flag.out" || fail "flag: the slow side did not lose on time"
"$match" --tc 0+1 > /dev/null 2>&1; [ $? -eq 2 ] || fail "--tc 0+1 accepted"

# --sprt: bad hypotheses are refused before anything starts; an opponent that
# crashes at every move loses every pair, and the test accepts H1 and stops
# handing out games long before --games, with the games so far in the PGN.
"$match" --sprt 10,0 > /dev/null 2> "$tmp/sprt.err"
[ $? -eq 2 ] && grep -q "elo0 (10) must be below elo1 (0)" "$tmp/sprt.err" || fail "sprt: elo0 >= elo1 accepted"
"$match" --sprt 0,10,0.5,0.05 > /dev/null 2> "$tmp/sprt.err"
[ $? -eq 2 ] && grep -q "alpha (0.5) must lie strictly between 0 and 0.5" "$tmp/sprt.err" ||
  fail "sprt: alpha 0.5 accepted"
"$match" --cformer "$tmp/cformer-e2e --agent policy" --opponent "$fake crash" --sprt 0,200 \
  --games 100 --movetime 20 --margin 1500 --openings "$openings" --pgn "$tmp/sprt.pgn" > "$tmp/sprt.out" 2>&1
rc=$?
cat "$tmp/sprt.out"
[ $rc -eq 0 ] || fail "sprt: exit status $rc"
grep -q "^SPRT \[0, 200\] alpha 0.05 beta 0.05: LLR [0-9.]* (bounds -2.944, 2.944) after 8 pairs \[pentanomial 0 0 0 0 8\]: H1 accepted" \
  "$tmp/sprt.out" || fail "sprt: no H1 after 8 won pairs"
grep -q "^SPRT \[0, 200\].* after 7 pairs \[pentanomial 0 0 0 0 7\]$" "$tmp/sprt.out" ||
  fail "sprt: no LLR line without a verdict"
grep -q ": 16 games: W 16 D 0 L 0" "$tmp/sprt.out" || fail "sprt: did not stop at the decision"
[ "$(grep -c '^\[Result ' "$tmp/sprt.pgn")" -eq 16 ] || fail "sprt: PGN lacks the games played"

# A movetime at most cformer's MoveOverheadMs (200 by default) is warned of
# once; not when the overhead is lowered below it.
"$match" --cformer "$tmp/cformer-e2e --agent policy" --opponent "$fake crash" --games 2 \
  --movetime 100 --margin 1500 --openings "$openings" > /dev/null 2> "$tmp/overhead.err"
[ "$(grep -c "warning: --movetime 100 is at most cformer's MoveOverheadMs (200)" "$tmp/overhead.err")" -eq 1 ] ||
  fail "overhead: no single warning for --movetime 100"
"$match" --cformer "$tmp/cformer-e2e --agent policy" --copt MoveOverheadMs=20 --opponent "$fake crash" \
  --games 2 --movetime 100 --margin 1500 --openings "$openings" > /dev/null 2> "$tmp/overhead.err"
grep -q "MoveOverheadMs" "$tmp/overhead.err" && fail "overhead: warned with MoveOverheadMs 20"

# Faults are losses for the engine that commits them.
for mode in illegal silent crash; do
  "$match" --cformer "$fake $mode" --opponent "$tmp/stockfish-e2e" --games 2 --movetime 20 \
    --margin 1500 --openings "$openings" > "$tmp/$mode.out" 2>&1
  rc=$?
  cat "$tmp/$mode.out"
  [ $rc -eq 3 ] || fail "$mode: exit status $rc, expected 3"
  grep -q "W 0 D 0 L 2" "$tmp/$mode.out" || fail "$mode: faults not scored as losses"
done
grep -q "illegal move 'e2e5' by fake-illegal" "$tmp/illegal.out" || fail "illegal move not named"
grep -q "fake-silent lost on time" "$tmp/silent.out" || fail "timeout not adjudicated"
grep -Eq "fake-silent lost on time \(no bestmove 1520 ms after 'go movetime 20', move [0-9]+(\.\.\.)?\)" \
  "$tmp/silent.out" || fail "timeout: the wait, the command and the move not named"
grep -q "fake-crash crashed" "$tmp/crash.out" || fail "crash not adjudicated"

# Nothing left running.
sleep 0.2
if pgrep -f "$tmp/" > /dev/null; then
  pgrep -af "$tmp/"
  fail "engine processes left behind"
fi
echo "e2e: ok"
