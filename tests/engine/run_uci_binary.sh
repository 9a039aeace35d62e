#!/bin/sh
# run_uci_binary.sh CFORMER DEFAULT_NET: the real `cformer` binary over
# pipes: UCI with no arguments, Lc0-style flags (and their errors),
# WeightsFile autodiscovery beside the binary, stop/quit during go infinite,
# end of input without quit.
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
echo "$out" | grep -q ' nodes 1 .* wdl [0-9]* [0-9]* [0-9]* pv ' || fail "flags: --show-wdl/--agent not applied"
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
out=$(printf 'isready\nquit\n' | "$cformer" -w "$net" --weights-max-mb=3) || fail "--weights-max-mb=3: exit status"
echo "$out" | grep -q '^info string loaded network ' || fail "--weights-max-mb 3: not loaded"

"$cformer" --agent mcts < /dev/null 2> "$tmp/err" && fail "bad flag value accepted"
grep -q "option Agent: bad value 'mcts'" "$tmp/err" || fail "bad flag value not explained"
"$cformer" uci --bogus 1 < /dev/null 2> "$tmp/err" && fail "unknown flag accepted"
grep -q "unknown option '--bogus'" "$tmp/err" || fail "unknown flag not named"
"$cformer" uci --weights < /dev/null 2> /dev/null && fail "flag without value accepted"
"$cformer" uci --help | grep -q -- '-w, --weights' || fail "--help lacks the flags"

# Autodiscover: a network file beside the binary.
cp "$cformer" "$tmp/cformer"
cp "$net" "$tmp/mynet.pb.gz"
out=$(printf 'isready\nquit\n' | "$tmp/cformer") || fail "autodiscover: exit status"
echo "$out" | grep -q "loaded network $tmp/mynet.pb.gz" || fail "autodiscover: the file beside the binary was not used"

# quit during go infinite: bestmove, then a prompt exit.
out=$( (printf 'isready\ngo infinite\n'; sleep 1; printf 'quit\n'; sleep 5) | timeout 4 "$cformer")
[ $? -eq 0 ] || fail "quit during go infinite did not end the engine"
echo "$out" | grep -q '^bestmove ' || fail "no bestmove after quit during go infinite"
out=$( (printf 'isready\ngo infinite\n'; sleep 1; printf 'stop\n'; sleep 1; printf 'isready\n') | timeout 6 "$cformer")
echo "$out" | grep -q '^bestmove ' || fail "no bestmove after stop"
[ "$(echo "$out" | grep -c '^readyok$')" -eq 2 ] || fail "isready after stop not answered"
echo "uci binary: ok"
