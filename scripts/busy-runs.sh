#!/usr/bin/env bash
# Issue 33's busy-machine check: the given test files (default: load, hostile, store, multi-instance)
# run RUNS times in a row (default 5), on both stores (vitest's sqlite and postgres projects), while
# two busy loops hold both cores. Prints one line per run and exits non-zero if any run failed.
#   bash scripts/busy-runs.sh [test files...]     (RUNS=5 LOOPS=2 by default; build first: npm run build)
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
loops=${LOOPS:-2}
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(test/server/load.test.ts test/server/hostile.test.ts test/server/store.test.ts test/server/multi-instance.test.ts)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT
for _ in $(seq 1 "$loops"); do
  node -e 'for (;;) {}' &
  pids+=($!)
done
failed=0
for r in $(seq 1 "$runs"); do
  log=$(mktemp "${TMPDIR:-/tmp}/cas-busy-run-$r-XXXXXX.log")
  t0=$(date +%s)
  if npx vitest run "${files[@]}" >"$log" 2>&1; then status=passed; else status=FAILED; failed=$((failed + 1)); fi
  summary=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ +Tests ' | tail -n 1 | sed 's/^ *//')
  echo "busy run $r/$runs ($loops busy loops, load $(cut -d' ' -f1 /proc/loadavg)): $status in $(($(date +%s) - t0)) s: $summary (log $log)"
done
echo "busy runs: $((runs - failed)) of $runs passed"
[ "$failed" -eq 0 ]
