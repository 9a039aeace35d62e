#!/bin/sh
# run_startup_env.sh CFORMER: the variables libraries read when they load
# (tools/cf_startup_env.h). The binary runs with OMP_WAIT_POLICY=passive
# when the variable is unset (it executes itself again, once), and keeps a
# value the user set; libgomp shows the policy it runs with under
# OMP_DISPLAY_ENV=true (the last block printed is the one of the process
# that ran). Where OpenBLAS fell back to its Prescott kernels on this CPU,
# the same re-execution names faster ones, and a user's OPENBLAS_CORETYPE
# is kept. Exit 77 when the binary has no libgomp.
set -u
cformer="$1"
fail() { echo "FAIL: $*"; exit 1; }
shown() { grep "OMP_WAIT_POLICY" | tail -n 1 | sed "s/.*= *'\(.*\)'.*/\1/"; }
blocks() { grep -c 'OPENMP DISPLAY ENVIRONMENT BEGIN'; }
# The OpenMP checks with OpenBLAS's variable set, so that only the policy
# can cause a re-execution.
out=$(env -u OMP_WAIT_POLICY OPENBLAS_CORETYPE=Haswell OMP_DISPLAY_ENV=true "$cformer" --version 2>&1)
echo "$out" | grep -q OMP_WAIT_POLICY || { echo "no libgomp in this build: skipped"; exit 77; }
[ "$(echo "$out" | shown)" = PASSIVE ] || fail "unset: runs with $(echo "$out" | shown)"
[ "$(echo "$out" | grep -c '^cformer ')" -eq 1 ] || fail "the version printed $(echo "$out" | grep -c '^cformer ') times"
[ "$(echo "$out" | blocks)" -eq 2 ] || fail "not exactly one re-execution"
out=$(OMP_WAIT_POLICY=active OPENBLAS_CORETYPE=Haswell OMP_DISPLAY_ENV=true "$cformer" --version 2>&1)
[ "$(echo "$out" | shown)" = ACTIVE ] || fail "the user's active became $(echo "$out" | shown)"
[ "$(echo "$out" | blocks)" -eq 1 ] || fail "re-executed with the variable set"
out=$(GOMP_SPINCOUNT=10000 OPENBLAS_CORETYPE=Haswell OMP_DISPLAY_ENV=verbose "$cformer" --version 2>&1)
[ "$(echo "$out" | blocks)" -eq 1 ] || fail "re-executed with GOMP_SPINCOUNT set"
# With both unset: still one re-execution at most.
out=$(env -u OMP_WAIT_POLICY -u OPENBLAS_CORETYPE OMP_DISPLAY_ENV=true "$cformer" --version 2>&1)
[ "$(echo "$out" | blocks)" -eq 2 ] || fail "both unset: $(echo "$out" | blocks) runs, not 2"
# The engine's stdin survives the re-execution.
echo quit | env -u OMP_WAIT_POLICY "$cformer" > /dev/null || fail "uci after re-execution"
printf 'isready\n' | env -u OMP_WAIT_POLICY "$cformer" -w "<built in>" | grep -qx readyok ||
  fail "no readyok after re-execution"
# OpenBLAS: the load line names its kernels; the binary never runs on the
# fallback when it knows better, and a user's choice stands.
if "$cformer" bench --help 2>&1 | grep -q 'registered:.*openblas'; then
  load() { printf 'setoption name Backend value openblas\nposition startpos\ngo nodes 1\nquit\n' |
             "$@" "$cformer" 2>&1 | grep 'loaded network'; }
  line=$(load env -u OPENBLAS_CORETYPE)
  echo "$line"
  echo "$line" | grep -q 'OpenBLAS ' || fail "the load line does not name OpenBLAS's kernels: $line"
  echo "$line" | grep -q 'fallback' && fail "ran on OpenBLAS's fallback: $line"
  line=$(load env OPENBLAS_CORETYPE=Prescott)
  echo "$line" | grep -q 'OpenBLAS Prescott' || fail "the user's Prescott was not kept: $line"
  echo "$line" | grep -q 'fallback' && fail "advised against the user's own choice: $line"
fi
echo PASS
