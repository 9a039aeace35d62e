#!/bin/sh
# bench_threads.sh [CFORMER] [ROUNDS]: evaluations per second with one
# thread and with two, side by side, for the built-in net and a CF-6M-shaped
# net, at batches 1, 8 and 32, first as the machine is and then with a
# competing busy process (one shell loop, which takes one core). Two
# threads come three ways: Threads 2 (cformer bench --threads 2: lanes=2,
# net/cf_net_lanes.h, the engine's Threads), and the backend's own
# threads=2 (an OpenMP team) with OMP_WAIT_POLICY=passive (what the cformer
# binary sets unless the variable is set: tools/cf_startup_env.h) and with
# OMP_WAIT_POLICY=active (libgomp spinning). Each round runs the four back
# to back; the table gives medians over ROUNDS (default 3) rounds and each
# ratio to one thread, with the load average before and after.
# Reference numbers: docs/BACKENDS.md ("Threads: one against two").
set -eu
cformer=${1:-build/tools/cformer}
rounds=${2:-3}
[ -x "$cformer" ] || { echo "usage: $0 [CFORMER] [ROUNDS] (no $cformer)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/cf_bench_threads_XXXXXX)
busy=
cleanup() { [ -n "$busy" ] && kill "$busy" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM

run() { # condition net-label net-flag... : one round of the four ways
  cond=$1 label=$2; shift 2
  for t in 1 lanes2 omp2-passive omp2-active; do
    case $t in
      1) env="OMP_WAIT_POLICY=passive" how="--threads 1" ;;
      lanes2) env="OMP_WAIT_POLICY=passive" how="--threads 2" ;;
      omp2-passive) env="OMP_WAIT_POLICY=passive" how="--backend-opts threads=2" ;;
      omp2-active) env="OMP_WAIT_POLICY=active" how="--backend-opts threads=2" ;;
    esac
    # shellcheck disable=SC2086 # $how is two words on purpose
    env $env "$cformer" bench "$@" $how --agents policy --positions 8 --batches 1,8,32 \
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
    med.setdefault((cond, net, backend, int(batch)), {}).setdefault(t, []).append(float(eps))
print(f"load average (1/5/15 min) before {sys.argv[2]}, after {sys.argv[3]}; {sys.argv[4]} CPUs")
print()
print("| machine | net | backend | batch | 1 thread (evals/s) | Threads 2 (lanes) | "
      "threads=2, OpenMP passive | threads=2, OpenMP active |")
print("|---|---|---|---:|---:|---:|---:|---:|")
for (cond, net, backend, batch), by_t in med.items():
    one = statistics.median(by_t["1"])
    cells = []
    for t in ("lanes2", "omp2-passive", "omp2-active"):
        v = statistics.median(by_t[t])
        cells.append(f"{v:.1f} ({v / one:.2f}x)")
    print(f"| {'as is' if cond == 'idle' else '+1 busy process'} | {net} | {backend} | {batch} | "
          f"{one:.1f} | " + " | ".join(cells) + " |")
print()
print(f"medians of {len(by_t['1'])} rounds")
PY
