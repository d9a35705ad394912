#!/usr/bin/env bash
# Runs the whole test suite while another process keeps every core busy, several times in a row, to
# check that the suite passes whatever the machine's load (no test may depend on timing).
#
#   scripts/test-under-load.sh [runs]      default 3 runs; BURNERS=<n> sets the burner count (default: one per core)
#
# Each burner is a busy loop at normal priority. Prints each run's outcome, wall and CPU time (the
# suite's processes only, not the burners) and its five heaviest int/e2e files by CPU, and exits
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
  # Each int and e2e file logs its CPU seconds (test/support/cpu-by-file.setup.ts); the suite's own CPU comes from times.
  times >"${logs}/times" # a builtin in this shell (not a subshell): its second line is the CPU of this script's waited-for children
  cpu_before=$(tail -1 "${logs}/times")
  # shellcheck disable=SC2086
  TRACE_BENCH_TEST_CPU_LOG="${logs}/cpu-${run}.jsonl" npx vitest run ${VITEST_ARGS:-} >"${logs}/run-${run}.log" 2>&1
  code=$?
  seconds=$(($(date +%s) - start))
  times >"${logs}/times"
  cpu=$(tail -1 "${logs}/times" | awk -v before="$cpu_before" 'function s(t) { split(t, p, "m"); return p[1] * 60 + p[2] } BEGIN { split(before, b, " ") } { printf "%.0f", s($1) + s($2) - s(b[1]) - s(b[2]) }')
  summary=$(grep -E '^ +Tests ' "${logs}/run-${run}.log" | tail -1 | sed 's/\x1b\[[0-9;]*m//g' | tr -s ' ')
  heaviest=$(node -e 'const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").filter(Boolean).map(JSON.parse).sort((a, b) => b.cpu_s - a.cpu_s); console.log(rows.slice(0, 5).map((r) => `${r.file.replace(/^test\//, "")} ${Math.round(r.cpu_s)} s`).join(", "))' "${logs}/cpu-${run}.jsonl" 2>/dev/null)
  if [ "$code" -eq 0 ]; then
    echo "run ${run}: green in ${seconds} s wall, ${cpu} s CPU:${summary}"
  else
    echo "run ${run}: FAILED (exit ${code}) in ${seconds} s wall, ${cpu} s CPU:${summary}; see ${logs}/run-${run}.log"
    failed=1
  fi
  echo "  heaviest files by CPU: ${heaviest:-none logged}"
done
exit "$failed"
