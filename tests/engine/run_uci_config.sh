#!/bin/sh
# run_uci_config.sh CFORMER: Lc0's configuration file through the real
# binary: --config FILE, -c FILE, lines with and without --, values after
# '=' or a space, comments, a bad line reported with the file and line and
# skipped, the command line overriding the file, a missing file named with
# --config (status 1), cformer.config beside the binary read by default and
# --config= reading none; and Lc0's backend name blas for -b.
set -u
cformer="$1"
tmp=$(mktemp -d /tmp/cf_uci_config_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$tmp/my.config" <<'CONF'
# an Lc0-style configuration file
--weights=<built in>

agent policy
  --show-wdl=true
multipv=banana
--no-such-flag=1
-t 2
CONF
out=$(printf 'position startpos\ngo nodes 1\n' | "$cformer" --config "$tmp/my.config" 2>"$tmp/err") ||
  fail "--config: exit status"
echo "$out" | grep -q '^info depth 1 seldepth 1 .* wdl [0-9]* [0-9]* [0-9]* ' ||
  fail "--config: agent/show-wdl not applied: $out"
grep -q "my.config line 6: bad value 'banana' for --multipv" "$tmp/err" || fail "bad value: $(cat "$tmp/err")"
grep -q "my.config line 6 skipped" "$tmp/err" || fail "bad line not skipped: $(cat "$tmp/err")"
grep -q "my.config line 7: unknown flag '--no-such-flag'" "$tmp/err" || fail "unknown flag: $(cat "$tmp/err")"
grep -q "my.config line 8: only --long flags" "$tmp/err" || fail "short flag: $(cat "$tmp/err")"

# The command line overrides the file; -c names it too.
out=$(printf 'position startpos\ngo nodes 1\n' | "$cformer" -c "$tmp/my.config" --no-show-wdl 2>/dev/null) ||
  fail "-c: exit status"
echo "$out" | grep -q ' wdl ' && fail "the command line did not override the file"
echo "$out" | grep -q '^info depth 1 seldepth 1 ' || fail "-c: file not read"

# A named file that is missing is an error.
printf 'quit\n' | "$cformer" --config="$tmp/none.config" 2>"$tmp/err" && fail "missing --config: status 0"
grep -q "cannot open configuration file '$tmp/none.config'" "$tmp/err" || fail "missing --config: $(cat "$tmp/err")"

# cformer.config beside the binary is read by default; --config= reads none.
cp "$cformer" "$tmp/cformer" || fail "copy"
printf 'weights=<built in>\nagent=policy\n' > "$tmp/cformer.config"
out=$(printf 'position startpos\ngo nodes 1\n' | "$tmp/cformer" 2>/dev/null) || fail "default config: exit status"
echo "$out" | grep -q '^info depth 1 seldepth 1 ' || fail "default config not read: $out"
out=$(printf 'position startpos\ngo nodes 1\n' | "$tmp/cformer" --config= -w '<built in>' 2>/dev/null) ||
  fail "--config=: exit status"
echo "$out" | grep -q '^info depth 1 seldepth 1 ' && fail "--config= still read the default file"
rm -f "$tmp/cformer.config"
printf 'quit\n' | "$tmp/cformer" >/dev/null 2>&1 || fail "no default config: not an error"

# Lc0's backend names: blas is openblas where compiled in; others refused with the list.
if "$cformer" bench --help | grep -q 'registered:.*openblas'; then
  out=$(printf 'position startpos\ngo nodes 1\n' | "$cformer" -b blas -w '<built in>' --agent policy) ||
    fail "-b blas: exit status"
  echo "$out" | grep -q '^bestmove ' || fail "-b blas: no bestmove"
fi
"$cformer" -b cudnn-fp16 </dev/null 2>"$tmp/err" && fail "-b cudnn-fp16 accepted"
grep -q "expected one of: auto" "$tmp/err" || fail "-b cudnn-fp16: $(cat "$tmp/err")"
echo "ok"
