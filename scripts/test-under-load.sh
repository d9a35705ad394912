#!/usr/bin/env bash
# Runs the whole test suite while another process keeps every core busy, several times in a row, to
# check that the suite passes whatever the machine's load (no test may depend on timing).
#
#   scripts/test-under-load.sh [runs]      default 3 runs; BURNERS=<n> sets the burner count (default: one per core)
#
# Each burner is a busy loop at normal priority. Prints each run's outcome and wall time, and exits
# non-zero if any run failed; each run's full output is kept in a temp folder it names. Extra vitest arguments can be passed in VITEST_ARGS (e.g. "--project unit").
set -uo pipefail
cd "$(dirname "$0")/.."

runs="${1:-3}"
burners="${BURNERS:-$(nproc)}"
logs="$(mktemp -d "${TMPDIR:-/tmp}/trace-bench-test-under-load.XXXXXX")"
pids=()
stop_burners() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  wait "${pids[@]}" 2>/dev/null
}
trap stop_burners EXIT
trap 'exit 130' INT TERM

npm run --silent pretest || exit 1
for _ in $(seq "$burners"); do
  bash -c 'while :; do :; done' &
  pids+=("$!")
done
echo "test-under-load: ${burners} CPU burner(s) running (pids ${pids[*]}); ${runs} run(s) of the suite"

failed=0
for run in $(seq "$runs"); do
  start=$(date +%s)
  # shellcheck disable=SC2086
  npx vitest run ${VITEST_ARGS:-} >"${logs}/run-${run}.log" 2>&1
  code=$?
  seconds=$(($(date +%s) - start))
  summary=$(grep -E '^ +Tests ' "${logs}/run-${run}.log" | tail -1 | sed 's/\x1b\[[0-9;]*m//g' | tr -s ' ')
  if [ "$code" -eq 0 ]; then
    echo "run ${run}: green in ${seconds} s:${summary}"
  else
    echo "run ${run}: FAILED (exit ${code}) in ${seconds} s:${summary}; see ${logs}/run-${run}.log"
    failed=1
  fi
done
exit "$failed"
