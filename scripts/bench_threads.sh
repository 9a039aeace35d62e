#!/bin/sh
# bench_threads.sh [CFORMER] [ROUNDS]: evaluations per second at Threads 1
# and 2 (cformer bench --threads N: lanes=N, net/cf_net_lanes.h), side by
# side, for the built-in net and a CF-6M-shaped net, at batches 1, 8 and 32,
# first on an idle machine and then with a competing busy process (one
# shell loop, which takes one core). Each round runs 1 then 2 threads back
# to back; the table gives the median over ROUNDS (default 3) rounds and
# the ratio 2 threads / 1 thread, with the load average before and after.
# Reference numbers: docs/BACKENDS.md ("Threads: 1 against 2").
set -eu
cformer=${1:-build/tools/cformer}
rounds=${2:-3}
[ -x "$cformer" ] || { echo "usage: $0 [CFORMER] [ROUNDS] (no $cformer)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/cf_bench_threads_XXXXXX)
busy=
cleanup() { [ -n "$busy" ] && kill "$busy" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM

run() { # condition net-label net-flag... : one round of 1 then 2 threads
  cond=$1 label=$2; shift 2
  for t in 1 2; do
    "$cformer" bench "$@" --threads "$t" --agents policy --positions 8 --batches 1,8,32 \
      --min-time 0.5 --min-calls 3 --no-sgemm --quiet --json > "$tmp/out.json" 2> /dev/null
    python3 - "$tmp/out.json" "$cond" "$label" "$t" >> "$tmp/rows" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["backends"][0]
for x in b["batches"]:
    print(sys.argv[2], sys.argv[3], b["name"], sys.argv[4], x["batch"], x["evals_per_second"])
PY
  done
}

measure() { # condition
  for r in $(seq "$rounds"); do
    echo "$1: round $r of $rounds" >&2
    run "$1" default --weights "<built in>"
    run "$1" cf-6m --arch cf-6m
  done
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
measure idle
sh -c 'while :; do :; done' &
busy=$!
measure busy
kill "$busy"; busy=
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$tmp/rows" "$load_before" "$load_after" "$(nproc)" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {}
for cond, net, backend, t, batch, eps in rows:
    med.setdefault((cond, net, backend, int(batch)), {}).setdefault(int(t), []).append(float(eps))
print(f"load average (1/5/15 min) before {sys.argv[2]}, after {sys.argv[3]}; {sys.argv[4]} CPUs")
print()
print("| machine | net | backend | batch | 1 thread (evals/s) | 2 threads (evals/s) | 2 / 1 |")
print("|---|---|---|---:|---:|---:|---:|")
for (cond, net, backend, batch), by_t in med.items():
    one, two = statistics.median(by_t[1]), statistics.median(by_t[2])
    print(f"| {'idle' if cond == 'idle' else '+1 busy process'} | {net} | {backend} | {batch} | "
          f"{one:.1f} | {two:.1f} | {two / one:.2f} |")
print()
print(f"medians of {len(by_t[1])} rounds")
PY
