#!/bin/sh
# run_uci_background_load.sh CFORMER: the binary while a network loads
# slowly (the ref backend's create_delay_ms testing option). quit during a
# 2 s load waits for it: the isready and the go read before quit are
# answered (readyok, bestmove), as Lc0 answers them, and the process ends;
# at end of input without quit what was read is still answered (a script's
# go waits for the load). Every run has a timeout, so a hang fails the test
# (the bound on quit's wait for a hung load is tested in the library).
set -u
cformer="$1"
fail() { echo "FAIL: $*"; exit 1; }

out=$( (printf 'setoption name BackendOptions value create_delay_ms=2000\nisready\ngo wtime 5000 btime 5000\n';
        sleep 0.3; printf 'quit\n') |
      timeout 25 "$cformer" -w "<built in>" -b ref)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "quit during a load: exit status $rc (124: it hung)"
echo "$out" | grep -q '^readyok$' || fail "quit during a load: the isready before it got no readyok"
echo "$out" | grep -q '^bestmove ' || fail "quit during a load: the go before it got no bestmove"

out=$(printf 'position startpos moves e2e4\ngo nodes 1\n' |
      timeout 30 "$cformer" -w "<built in>" -b ref -o create_delay_ms=500 --agent policy)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "end of input during a load: exit status $rc"
echo "$out" | grep -q '^info string loaded network <built in>' || fail "no load line"
echo "$out" | grep -q '^bestmove ' || fail "the go read before end of input got no bestmove"
echo PASS
