#!/bin/sh
# run_sanitizer_soak.sh CFORMER_MATCH CFORMER OPENINGS B_SANITIZE [GAMES [NNCACHE]]:
# the slow suite's soak of the ASan/UBSan build. cformer (the search agent,
# 32 nodes a move, the built-in net, NNCacheSize NNCACHE, default 1000, so
# the cache is full and evicting from the first game on) plays GAMES
# (default 100) games against Stockfish (Skill Level 0, 20 ms a move) in
# one long-lived engine process. Passes when:
#   - every game ends by the rules or by the ply limit (no illegal move,
#     crash or timeout: cformer-match's fault count is 0 on both sides);
#   - no sanitizer report was written, by the engine (during the games, or
#     LeakSanitizer at its exit) or by the match tool;
#   - one cformer process played every game (a restart follows a fault);
#   - cformer's resident memory stays flat after the first game. VmRSS is
#     read between games (cformer-match --rss-log). Allowed: 16 MiB from
#     the first game's reading to the highest later one (what fills during
#     the first games and stays: ASan's quarantine of freed blocks, 4 MiB
#     here, its allocator caches, the high-water marks of the tree and the
#     longest game), 8 MiB from game 10 to the last game (about 90 kB a
#     game), and a median change from one game to the next of 64 kB. Under
#     ASan, RSS drifts even without a leak (100 games, 2026-11-26: +4.3 MiB
#     from game 10 to 100, median +32 kB a game, while the release engine
#     in the same match stayed flat: median 0, +0.8 MiB in sporadic steps
#     of a high-water mark), so these bounds catch growth of about 100 kB a
#     game or more; LeakSanitizer at exit catches what is lost outright.
#     With the default NNCacheSize (2,000,000) the cache's high-water mark
#     rises for a few games (the allocator keeps what a long game used):
#     growth by design, kept out of the measure by the small cache.
# Exit 77 (skip) when the build is not sanitized or Stockfish is missing.
set -u
match="$1" cformer="$2" openings="$3" sanitize="$4" games="${5:-100}" nncache="${6:-1000}"
case "$sanitize" in *address*) ;; *) echo "not an ASan build (b_sanitize=$sanitize): skipped"; exit 77 ;; esac
stockfish=/usr/games/stockfish
[ -x "$stockfish" ] || stockfish=$(command -v stockfish 2>/dev/null || true)
[ -n "$stockfish" ] && [ -x "$stockfish" ] || { echo "no stockfish: skipped"; exit 77; }
tmp=$(mktemp -d /tmp/cf_soak_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Unique names, so the processes of this test can be told from any other.
ln -s "$(readlink -f "$match")" "$tmp/soak-match"
ln -s "$(readlink -f "$cformer")" "$tmp/soak-engine"
ln -s "$(readlink -f "$stockfish")" "$tmp/soak-opponent"

# Reports go to files (the engines' stderr is not kept), one per process.
ASAN_OPTIONS="log_path=$tmp/asan:detect_leaks=1:quarantine_size_mb=4${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
UBSAN_OPTIONS="log_path=$tmp/ubsan:print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS UBSAN_OPTIONS

start=$(date +%s)
"$tmp/soak-match" --cformer "$tmp/soak-engine --agent search" --copt "WeightsFile=<built in>" --copt NNCacheSize=$nncache \
  --nodes 32 --opponent "$tmp/soak-opponent" --oopt "Skill Level=0" --movetime 20 --margin 30000 \
  --max-plies 200 --games "$games" --openings "$openings" \
  --rss-log "$tmp/rss.log" --pgn "$tmp/soak.pgn" > "$tmp/out" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
tail -n 6 "$tmp/out"
echo "soak: $games games in $took s, exit status $rc"
[ $rc -eq 0 ] || fail "cformer-match exit status $rc"
grep -q ": $games games: " "$tmp/out" || fail "not all $games games played"
grep -q "faults (illegal move, crash, timeout): cformer 0, opponent 0;" "$tmp/out" ||
  fail "a game ended by a fault"
for f in "$tmp"/asan* "$tmp"/ubsan*; do
  [ -e "$f" ] || continue
  cat "$f"
  fail "sanitizer report $f"
done
echo "RSS log (game, pid, VmRSS kB):"
awk '{printf "%s %s %s\n", $2, $4, $6}' "$tmp/rss.log" | paste -sd ' ' | fold -w 100
[ "$(wc -l < "$tmp/rss.log")" -eq "$games" ] || fail "RSS log has $(wc -l < "$tmp/rss.log") lines"
awk -v games="$games" '
  { pid[NR] = $4; rss[NR] = $6 }
  END {
    for (i = 2; i <= NR; i++) if (pid[i] != pid[1]) { print "FAIL: cformer restarted before game " i; exit 1 }
    for (i = 1; i <= NR; i++) if (rss[i] <= 0) { print "FAIL: no VmRSS after game " i; exit 1 }
    max = 0
    for (i = 2; i <= NR; i++) if (rss[i] > max) max = rss[i]
    k = NR >= 10 ? 10 : 1
    printf "cformer VmRSS (kB): game 1 %d, game %d %d, game %d %d, highest after game 1 %d\n", rss[1], k, rss[k], NR, rss[NR], max
    n = 0
    for (i = 2; i <= NR; i++) d[++n] = rss[i] - rss[i - 1]
    for (i = 2; i <= n; i++) { v = d[i]; j = i - 1; while (j > 0 && d[j] > v) { d[j + 1] = d[j]; j-- } d[j + 1] = v }
    median = n > 0 ? d[int((n + 1) / 2)] : 0
    printf "rise: game 1 to highest %+d kB (allowed 16384), game %d to last %+d kB (allowed 8192), median per game %+d kB (allowed 64)\n", max - rss[1], k, rss[NR] - rss[k], median
    if (max - rss[1] > 16384) { print "FAIL: RSS rose more than 16 MiB after the first game"; exit 1 }
    if (rss[NR] - rss[k] > 8192) { print "FAIL: RSS still rising after game " k; exit 1 }
    if (median > 64) { print "FAIL: RSS rises from game to game (median " median " kB)"; exit 1 }
  }' "$tmp/rss.log" || exit 1
echo PASS
