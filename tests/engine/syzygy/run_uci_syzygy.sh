#!/bin/sh
# run_uci_syzygy.sh: SyzygyPath through the binary, with Lc0's flags.
#   run_uci_syzygy.sh CFORMER TABLES_DIR
# -s and --syzygy-paths load at isready and name what they found; a missing
# directory beside a good one is an `info string error` and the rest load;
# setoption SyzygyPath swaps them; the search then reports tbhits.
set -eu
cformer=$1
tables=$2
fail() { echo "FAIL: $*"; echo "$out"; exit 1; }

# A build without libfathom-dev reads no tables (and says so): skip.
# (what the tables say comes with the next go: isready gets readyok alone)
out=$(printf 'isready\ngo nodes 1\nquit\n' | "$cformer" -w "<built in>" -s "$tables" 2>/dev/null)
if echo "$out" | grep -q "this build reads no Syzygy tables"; then
  echo "skip: this build reads no Syzygy tables (built without libfathom-dev)"
  exit 77
fi

out=$(printf 'isready\ngo nodes 1\nquit\n' | "$cformer" -w "<built in>" -s "$tables:$tables/../no-such-dir" 2>/dev/null)
echo "$out" | grep -qx "info string Syzygy: 11 WDL and 11 DTZ tables found, up to 4 pieces" || fail "-s: no table count"
echo "$out" | grep -q "^info string error: SyzygyPath: .*no-such-dir" || fail "-s: missing directory not reported"
echo "$out" | grep -qx "readyok" || fail "-s: no readyok"

out=$(printf 'isready\nposition fen 8/8/8/8/8/2k5/3R4/K7 b - - 0 1\ngo nodes 50\nisready\nquit\n' |
  "$cformer" -w "<built in>" --syzygy-paths="$tables" 2>/dev/null)
echo "$out" | grep -q "^info string Syzygy: 11 WDL" || fail "--syzygy-paths: no table count"
echo "$out" | grep -q "^info depth .* tbhits [1-9]" || fail "no tbhits in the info lines"
echo "$out" | grep -qx "bestmove c3d2.*" || fail "the only drawing move was not played"

out=$(printf 'setoption name SyzygyPath value %s/../no-such-dir\nisready\nposition fen 8/8/8/8/8/2k5/3R4/K7 b - - 0 1\ngo nodes 5\nquit\n' "$tables" |
  "$cformer" -w "<built in>" 2>/dev/null)
echo "$out" | grep -q "^info string error: SyzygyPath: .*no-such-dir" || fail "setoption: missing directory not reported"
echo "$out" | grep -qx "info string Syzygy: no tables loaded; playing on without them" || fail "setoption: no fallback line"
echo "$out" | grep -q "^bestmove " || fail "setoption: no bestmove after a bad path"
echo "$out" | grep -q "tbhits" && fail "tbhits shown without tables"
echo "ok"
