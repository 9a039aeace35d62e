#!/bin/sh
# run_pgn_write.sh CFORMER_MATCH CFORMER: a --pgn file that cannot be
# written. One that cannot be opened stops the run before any game (exit 1,
# the path and the reason named); one whose writes fail (/dev/full: no
# space) is named once, the games go on to their summary, and the exit
# status is 1 because the record is not whole.
set -u
match="$1" cformer="$2"
tmp=$(mktemp -d /tmp/cf_pgn_write_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
common="--games 2 --movetime 30 --quiet --cformer $cformer --oopt Agent=policy --opponent $cformer"

"$match" $common --pgn "$tmp/no/such/dir/x.pgn" > "$tmp/open.out" 2>&1
rc=$?
cat "$tmp/open.out"
[ $rc -eq 1 ] || fail "unopenable --pgn: exit $rc, wanted 1"
grep -q "cannot write '$tmp/no/such/dir/x.pgn': No such file or directory" "$tmp/open.out" ||
  fail "unopenable --pgn: not named with its reason"
grep -q " games: " "$tmp/open.out" && fail "unopenable --pgn: games were played"

if [ -w /dev/full ]; then
  "$match" $common --pgn /dev/full > "$tmp/full.out" 2>&1
  rc=$?
  cat "$tmp/full.out"
  [ $rc -eq 1 ] || fail "/dev/full: exit $rc, wanted 1"
  [ "$(grep -c "cannot write '/dev/full'" "$tmp/full.out")" -eq 1 ] ||
    fail "/dev/full: the failed write is not named exactly once"
  grep -q ": 2 games: " "$tmp/full.out" || fail "/dev/full: the games did not go on"
fi
echo "pgn write failures named"
