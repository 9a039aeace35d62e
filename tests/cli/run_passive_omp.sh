#!/bin/sh
# run_passive_omp.sh CFORMER: the binary runs with OMP_WAIT_POLICY=passive
# when the variable is unset (it executes itself again, once:
# tools/cf_passive_omp.h), and keeps a value the user set. libgomp shows the
# policy it runs with under OMP_DISPLAY_ENV=true (the last block printed is
# the one of the process that ran). Exit 77 when the binary has no libgomp.
set -u
cformer="$1"
fail() { echo "FAIL: $*"; exit 1; }
shown() { grep "OMP_WAIT_POLICY" | tail -n 1 | sed "s/.*= *'\(.*\)'.*/\1/"; }
out=$(env -u OMP_WAIT_POLICY OMP_DISPLAY_ENV=true "$cformer" --version 2>&1)
echo "$out" | grep -q OMP_WAIT_POLICY || { echo "no libgomp in this build: skipped"; exit 77; }
[ "$(echo "$out" | shown)" = PASSIVE ] || fail "unset: runs with $(echo "$out" | shown)"
[ "$(echo "$out" | grep -c '^cformer ')" -eq 1 ] || fail "the version printed $(echo "$out" | grep -c '^cformer ') times"
[ "$(echo "$out" | grep -c 'OPENMP DISPLAY ENVIRONMENT BEGIN')" -eq 2 ] || fail "not exactly one re-execution"
out=$(OMP_WAIT_POLICY=active OMP_DISPLAY_ENV=true "$cformer" --version 2>&1)
[ "$(echo "$out" | shown)" = ACTIVE ] || fail "the user's active became $(echo "$out" | shown)"
[ "$(echo "$out" | grep -c 'OPENMP DISPLAY ENVIRONMENT BEGIN')" -eq 1 ] || fail "re-executed with the variable set"
out=$(GOMP_SPINCOUNT=10000 OMP_DISPLAY_ENV=verbose "$cformer" --version 2>&1)
[ "$(echo "$out" | grep -c 'OPENMP DISPLAY ENVIRONMENT BEGIN')" -eq 1 ] || fail "re-executed with GOMP_SPINCOUNT set"
# The engine's stdin survives the re-execution.
echo quit | env -u OMP_WAIT_POLICY "$cformer" > /dev/null || fail "uci after re-execution"
printf 'isready\n' | env -u OMP_WAIT_POLICY "$cformer" -w "<built in>" | grep -qx readyok ||
  fail "no readyok after re-execution"
echo PASS
