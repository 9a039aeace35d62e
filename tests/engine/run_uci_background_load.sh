#!/bin/sh
# run_uci_background_load.sh CFORMER: the binary while a network loads
# slowly (the ref backend's create_delay_ms testing option). quit during a
# 20 s load must end the process well before the load would (the 15 s
# timeout fails a hang; the 3 s bound is checked only as a benchmark, with
# CF_TEST_LATENCY=assert, since a busy machine stretches it); at end of input without quit
# what was read is still answered (a script's go waits for the load). Every
# run has a timeout, so a hang fails the test.
set -u
cformer="$1"
fail() { echo "FAIL: $*"; exit 1; }
now_ms() { date +%s%3N; }

t0=$(now_ms)
out=$( (printf 'setoption name BackendOptions value create_delay_ms=20000\nisready\ngo wtime 5000 btime 5000\n';
        sleep 0.3; printf 'quit\n') |
      timeout 15 "$cformer" -w "<built in>" -b ref)
rc=$?
took=$(( $(now_ms) - t0 ))
echo "quit during a 20 s load: exit status $rc after $took ms"
[ $rc -eq 0 ] || fail "exit status $rc (124: it hung)"
echo "  latency: quit during a 20 s load: $took ms (bound 3000 ms)"
if [ "${CF_TEST_LATENCY:-}" = assert ]; then [ $took -lt 3000 ] || fail "quit took $took ms"; fi
echo "$out" | grep -q readyok && fail "readyok before the load ended"

out=$(printf 'position startpos moves e2e4\ngo nodes 1\n' |
      timeout 30 "$cformer" -w "<built in>" -b ref -o create_delay_ms=500 --agent policy)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "end of input during a load: exit status $rc"
echo "$out" | grep -q '^info string loaded network <built in>' || fail "no load line"
echo "$out" | grep -q '^bestmove ' || fail "the go read before end of input got no bestmove"
echo PASS
