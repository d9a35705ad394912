/**
 * With TRACE_BENCH_TEST_CPU_LOG=<file>, each test file appends one JSON line to it: the CPU
 * seconds its worker and every child process it waited for (the CLI runs, browsers) spent on it,
 * and its wall seconds. CPU is what a busy machine does not change, so it says which files are
 * heavy where wall time only says how busy the machine was (`node scripts/...` not needed:
 * `jq -s 'sort_by(-.cpu_s)' <file>`). Linux only (/proc); a no-op without the variable.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { REPO_ROOT } from "./cli.js";

const log = process.env.TRACE_BENCH_TEST_CPU_LOG;
const TICKS_PER_SECOND = 100;

/** utime + stime + cutime + cstime of this process, in seconds (fields 14 to 17 of /proc/self/stat). */
function cpuSeconds(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / TICKS_PER_SECOND;
}

if (log !== undefined) {
  let start = { cpu: 0, wall: 0 };
  beforeAll(() => {
    start = { cpu: cpuSeconds(), wall: performance.now() };
  });
  afterAll(() => {
    const file = relative(REPO_ROOT, expect.getState().testPath ?? "?");
    const line = { file, cpu_s: Math.round((cpuSeconds() - start.cpu) * 100) / 100, wall_s: Math.round(performance.now() - start.wall) / 1000 };
    appendFileSync(log, `${JSON.stringify(line)}\n`);
  });
}
