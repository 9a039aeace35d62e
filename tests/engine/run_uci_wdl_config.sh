#!/bin/sh
# run_uci_wdl_config.sh CFORMER: an Lc0 configuration file with the WDL
# family, the output options and Lc0's thread-tuning options, in Lc0's flag
# spelling, loads through the real binary: no line skipped, the ignored
# options said to be, the rest in effect (the contempt moves the reported
# score when WDLEvalObjectivity is 0, eps and per-line nodes appear); a
# malformed Contempt line is reported with the file and line and skipped.
set -u
cformer="$1"
tmp=$(mktemp -d /tmp/cf_uci_wdl_config_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$tmp/lc0.config" <<'CONF'
# Lc0's spelling of the WDL family
--weights=<built in>
--contempt-mode=white_side_analysis
--contempt=leela=20,300
--contempt-max-value=420
--wdl-calibration-elo=3300
--wdl-draw-rate-reference=0.65
--wdl-draw-rate-target=0.5
--wdl-contempt-attenuation=1.0
--wdl-max-s=1.4
--wdl-book-exit-bias=0.65
--wdl-eval-objectivity=0.0
--per-pv-counters=true
--show-eps=true
--task-workers=4
--minimum-picking-work=2
--search-spin-backoff
CONF
go='position startpos\ngo nodes 8\n'
out=$(printf "$go" | "$cformer" --config "$tmp/lc0.config" 2>"$tmp/err") || fail "exit status"
[ -s "$tmp/err" ] && fail "stderr: $(cat "$tmp/err")"
echo "$out" | grep -q 'error' && fail "error: $out"
echo "$out" | grep -q '^info string TaskWorkers is ignored' || fail "TaskWorkers: $out"
echo "$out" | grep -q '^info string MinimumPickingWork is ignored' || fail "MinimumPickingWork: $out"
echo "$out" | grep -q '^info string SearchSpinBackoff is ignored' || fail "SearchSpinBackoff: $out"
echo "$out" | grep -q '^info depth .* nps [0-9]* eps [0-9]* ' || fail "eps: $out"
echo "$out" | grep -q '^bestmove ' || fail "no bestmove: $out"
# The contempt (300 for White, reported at objectivity 0) moves the score.
score() { echo "$1" | grep '^info depth' | tail -1 | sed 's/.* score cp \(-*[0-9]*\) .*/\1/'; }
plain=$(printf "$go" | "$cformer" --weights='<built in>' 2>/dev/null)
[ "$(score "$out")" -gt "$(score "$plain")" ] ||
  fail "contempt not in effect: $(score "$out") vs $(score "$plain")"
# PerPVCounters: the line counts its move's visits, fewer than the search's.
nodes=$(echo "$out" | grep '^info depth' | tail -1 | sed 's/.* nodes \([0-9]*\) .*/\1/')
[ "$nodes" -lt 8 ] || fail "PerPVCounters: nodes $nodes"

# A malformed Contempt list: that line is skipped, with the form expected.
printf -- '--weights=<built in>\n--contempt=a=\n--contempt-mode=sideways\n' > "$tmp/bad.config"
printf 'quit\n' | "$cformer" --config "$tmp/bad.config" >/dev/null 2>"$tmp/err" || fail "bad: exit status"
grep -q "bad.config line 2: .*option Contempt: bad entry 'a='" "$tmp/err" || fail "bad Contempt: $(cat "$tmp/err")"
grep -q "bad.config line 3: .*sideways" "$tmp/err" || fail "bad ContemptMode: $(cat "$tmp/err")"
echo "ok"
