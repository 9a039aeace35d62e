#!/bin/sh
# fake_engine.sh MODE: a UCI engine that misbehaves on `go`, for the match
# tool's adjudication tests. MODE: illegal (plays e2e5), silent (never
# answers), crash (exits), slow (answers after 1.5 s: over a 1 s clock).
mode="$1"
while read -r line; do
  case "$line" in
    uci) echo "id name fake-$mode"; echo uciok ;;
    isready) echo readyok ;;
    go*)
      case "$mode" in
        illegal) echo "bestmove e2e5" ;;
        crash) exit 1 ;;
        silent) ;;
        slow) sleep 1.5; echo "bestmove e2e4" ;;
      esac ;;
    quit) exit 0 ;;
  esac
done
