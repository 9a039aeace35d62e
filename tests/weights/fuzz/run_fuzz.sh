#!/bin/sh
# run_fuzz.sh: a bounded libFuzzer run of the weight loader (fuzz_weights).
#
#   CC=clang meson setup build-weights-fuzz -Dfuzz=true
#   ninja -C build-weights-fuzz tests/weights/fuzz_weights
#   meson test -C build-weights-fuzz --suite fuzz        # runs this, 60 s
# or by hand:
#   tests/weights/fuzz/run_fuzz.sh build-weights-fuzz/tests/weights/fuzz_weights \
#       tests/weights/fuzz/corpus /tmp/fuzz-work 60
#
# usage: run_fuzz.sh FUZZER SEED_DIR[:SEED_DIR...] WORK_DIR [SECONDS [LIBFUZZER_FLAG...]]
# SECONDS 0 = no time limit (then bound the run with -runs=N).
# Flags after SECONDS go to libFuzzer after the defaults, so they win (the
# UCI target passes its -dict= and its own -max_len=).
# New inputs go to WORK_DIR/corpus (the committed seeds are only read);
# crashing inputs to WORK_DIR/artifacts/. Exits non-zero on a crash.
set -eu
fuzzer=$1
seeds=$2
work=$3
secs=${4:-60}
shift 3
[ $# -gt 0 ] && shift
mkdir -p "$work/corpus" "$work/artifacts"
# libOMP's own worker buffers are not ours to free (see lsan.supp).
LSAN_OPTIONS="suppressions=$(dirname "$0")/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
# libFuzzer exits 77 on a crash or leak by default, which meson counts as a
# skip: a finding must fail the test.
# The seed folders after the work corpus (split on ':' only, so a space in
# a path stays).
set -f
IFS=:
set -- "$@" "$work/corpus" $seeds
unset IFS
exec "$fuzzer" -max_total_time="$secs" -rss_limit_mb=2048 -max_len=131072 -timeout=10 \
  -error_exitcode=1 -timeout_exitcode=1 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$@"
