#!/bin/sh
# run_uci_binary.sh CFORMER DEFAULT_NET: the real `cformer` binary over
# pipes: UCI with no arguments, Lc0-style flags (and their errors), weights
# that are not a regular file, --weights-max-mb, WeightsFile autodiscovery
# beside the binary, isready's replies, NUL bytes
# and control bytes in the input, the Threads warning, stop/quit during go
# infinite, end of input without quit, --preload.
set -u
cformer="$1" net="$2"
tmp=$(mktemp -d /tmp/cf_uci_bin_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$(printf 'uci\nquit\n' | "$cformer") || fail "no-argument UCI exit status"
echo "$out" | grep -q '^uciok$' || fail "no-argument cformer is not UCI"

out=$(printf 'isready\nquit\n' | "$cformer" -w /nonexistent/x.pb.gz) || fail "-w: exit status"
echo "$out" | grep -q '^info string error: .*/nonexistent/x.pb.gz' || fail "-w: no error for a missing file"
echo "$out" | grep -q '^readyok$' || fail "-w: no readyok after a missing file"

out=$(printf 'position startpos\ngo nodes 1\n' | "$cformer" uci --weights='<built in>' \
      --agent policy --show-wdl true -t 2 -b auto -o '') || fail "flags: exit status"
echo "$out" | grep -q 'untrained' && fail "flags: the built-in net warns untrained (the shipped default is trained)"
echo "$out" | grep -q ' nodes 1 score .* wdl [0-9]* [0-9]* [0-9]* nps .* pv ' || fail "flags: --show-wdl/--agent not applied"
echo "$out" | grep -q '^bestmove ' || fail "flags: no bestmove before end of input"

# Weights that are not a regular file are refused at once: a FIFO nobody
# writes to (a blocking open would hang: timeout fails it), and /dev/stdin,
# which would swallow the GUI's next command (isready must be answered).
mkfifo "$tmp/fifo.pb.gz" || fail "mkfifo"
out=$(printf 'isready\nquit\n' | timeout 10 "$cformer" -w "$tmp/fifo.pb.gz") || fail "-w FIFO: exit status (hung?)"
echo "$out" | grep -q 'fifo.pb.gz: is a FIFO, not a regular file' || fail "-w FIFO: not refused"
echo "$out" | grep -q '^readyok$' || fail "-w FIFO: no readyok"
out=$(printf 'setoption name WeightsFile value /dev/stdin\nisready\nquit\n' | timeout 10 "$cformer") \
  || fail "WeightsFile /dev/stdin: exit status (hung?)"
echo "$out" | grep -q '/dev/stdin: is a FIFO, not a regular file' || fail "/dev/stdin: not refused"
echo "$out" | grep -q '^readyok$' || fail "/dev/stdin: the isready after it was swallowed"
# --weights-max-mb: the default net inflates to ~2.4 MB.
out=$(printf 'isready\nquit\n' | "$cformer" -w "$net" --weights-max-mb 1) || fail "--weights-max-mb: exit status"
echo "$out" | grep -q 'exceeds the limit of 1048576 bytes (as set); raise the limit with WeightsMaxMb (--weights-max-mb)' \
  || fail "--weights-max-mb 1: not refused with a message naming it"
# (what a load says comes with the next go: isready is answered with readyok alone)
out=$(printf 'isready\ngo nodes 1\nquit\n' | "$cformer" -w "$net" --weights-max-mb=3) || fail "--weights-max-mb=3: exit status"
echo "$out" | grep -q '^info string loaded network ' || fail "--weights-max-mb 3: not loaded"

# Lc0's spellings of booleans: bare, --no-..., =value.
out=$(printf 'position startpos\ngo nodes 1\n' | "$cformer" -w '<built in>' --agent=policy --show-wdl) ||
  fail "bare --show-wdl: exit status"
echo "$out" | grep -q ' wdl [0-9]* [0-9]* [0-9]* nps .* pv ' || fail "bare --show-wdl not applied"
out=$(printf 'position startpos\ngo nodes 1\n' | "$cformer" -w '<built in>' --agent policy --no-show-wdl) ||
  fail "--no-show-wdl: exit status"
echo "$out" | grep -q ' wdl ' && fail "--no-show-wdl not applied"
out=$(printf 'position startpos\ngo nodes 1\n' | "$cformer" -w '<built in>' --agent policy --show-wdl=false) ||
  fail "--show-wdl=false: exit status"
echo "$out" | grep -q ' wdl ' && fail "--show-wdl=false not applied"
# A flag given again: the last one wins.
out=$(printf 'position startpos\ngo nodes 1\n' | "$cformer" -w '<built in>' --agent policy --show-wdl --no-show-wdl) ||
  fail "--show-wdl --no-show-wdl: exit status"
echo "$out" | grep -q ' wdl ' && fail "--show-wdl --no-show-wdl: the last did not win"
out=$(printf 'position startpos\ngo nodes 1\n' | "$cformer" -w /nonexistent.pb.gz --agent value -w '<built in>' --agent=policy --no-show-wdl --show-wdl=true) ||
  fail "repeated flags: exit status"
echo "$out" | grep -q ' nodes 1 score .* wdl [0-9]* [0-9]* [0-9]* nps .* pv ' || fail "repeated flags: the last did not win"

"$cformer" --agent mcts < /dev/null 2> "$tmp/err"; [ $? -eq 2 ] || fail "bad flag value accepted"
grep -q "bad value 'mcts' for --agent: expected policy, value or search" "$tmp/err" || fail "bad flag value not explained"
"$cformer" uci --bogus 1 < /dev/null 2> "$tmp/err"; [ $? -eq 2 ] || fail "unknown flag accepted"
grep -q "unknown flag '--bogus'" "$tmp/err" || fail "unknown flag not named"
"$cformer" uci --weights < /dev/null 2> /dev/null; [ $? -eq 2 ] || fail "flag without value accepted"
"$cformer" --weights-max-mb lots < /dev/null 2> "$tmp/err"; [ $? -eq 2 ] || fail "bad --weights-max-mb accepted"
grep -q "bad value 'lots' for --weights-max-mb" "$tmp/err" || fail "bad --weights-max-mb not explained"
"$cformer" uci --help | grep -q -- '-w, --weights' || fail "--help lacks the flags"

# Autodiscover: a network file beside the binary.
cp "$cformer" "$tmp/cformer"
cp "$net" "$tmp/mynet.pb.gz"
out=$(printf 'isready\ngo nodes 1\nquit\n' | "$tmp/cformer") || fail "autodiscover: exit status"
echo "$out" | grep -q "loaded network $tmp/mynet.pb.gz" || fail "autodiscover: the file beside the binary was not used"

# isready: readyok alone, and nothing on stderr (python-chess's ping warns
# on any other line, and on every stderr line), also right after a
# WeightsFile change: quit comes while the second load may still run, and
# waits for it, so both readyoks come however busy the machine is.
out=$(printf 'isready\nsetoption name WeightsFile value %s\nisready\nquit\n' "$net" | "$cformer" 2> "$tmp/err") \
  || fail "isready: exit status"
[ -s "$tmp/err" ] && fail "isready: the engine wrote to stderr: $(cat "$tmp/err")"
[ "$(echo "$out" | tr '\n' ' ')" = "readyok readyok " ] \
  || fail "isready: replies other than readyok: $out"
[ "$(echo "$out" | tail -n 1)" = "readyok" ] || fail "isready: something came after readyok"

# The reader keeps NUL bytes: a line with one is an error, not a shorter
# line; control bytes and invalid UTF-8 from the input come back escaped.
out=$(printf 'position startpos moves e2e4\nposition startpos\000 moves d2d4\nsetoption name Agent value policy\ngo searchmoves e7e5\nquit\n' | "$cformer")
echo "$out" | grep -q '^info string error: input line has a NUL byte' || fail "NUL: no error"
echo "$out" | grep -q '^bestmove e7e5' || fail "NUL: the line was run in part"
out=$(printf 'xy\001\033[2J\377 1\nquit\n' | "$cformer")
[ "$out" = "info string error: unknown command 'xy\\x01\\x1b[2J\\xff'" ] || fail "control bytes not escaped: $out"

# More threads than cores online: accepted with a warning (the flag too).
cores=$(getconf _NPROCESSORS_ONLN)
if [ "$cores" -lt 128 ]; then
  out=$(printf 'isready\nquit\n' | "$cformer" -t $((cores + 1))) || fail "-t above the cores: exit status"
  echo "$out" | grep -q "^info string warning: Threads $((cores + 1)) is more than the $cores CPU cores online" \
    || fail "-t above the cores: no warning"
  echo "$out" | grep -q '^readyok$' || fail "-t above the cores: no readyok"
fi

# quit during go infinite: bestmove, then an exit (before the input ends;
# the timeout only catches a hang, so a busy machine does not fail it).
out=$( (printf 'isready\ngo infinite\n'; sleep 1; printf 'quit\n'; sleep 9) | timeout 8 "$cformer")
[ $? -eq 0 ] || fail "quit during go infinite did not end the engine"
echo "$out" | grep -q '^bestmove ' || fail "no bestmove after quit during go infinite"
out=$( (printf 'isready\ngo infinite\n'; sleep 1; printf 'stop\n'; sleep 1; printf 'isready\n') | timeout 15 "$cformer")
echo "$out" | grep -q '^bestmove ' || fail "no bestmove after stop"
[ "$(echo "$out" | grep -c '^readyok$')" -eq 2 ] || fail "isready after stop not answered"
# --preload (Lc0's): the network loads at start, before any command. A
# missing file is reported with no command sent but quit (waited for: the
# load runs on its own thread), and not without --preload.
out=$( (sleep 2; printf 'quit\n') | "$cformer" --preload -w /nonexistent/x.pb.gz) || fail "--preload: exit status"
echo "$out" | grep -q '^info string error: .*/nonexistent/x.pb.gz' || fail "--preload: the load did not run at start"
out=$( (sleep 1; printf 'quit\n') | "$cformer" -w /nonexistent/x.pb.gz) || fail "no --preload: exit status"
[ -z "$out" ] || fail "without --preload something was loaded at start: $out"
out=$( (printf 'go nodes 1\n'; sleep 1; printf 'quit\n') | "$cformer" --preload) || fail "--preload go: exit status"
[ "$(echo "$out" | head -n 1 | cut -c1-26)" = "info string loaded network" ] || fail "--preload: no load line first: $out"
echo "$out" | grep -q '^bestmove ' || fail "--preload: no bestmove"
echo "uci binary: ok"
