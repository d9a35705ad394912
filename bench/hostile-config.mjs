#!/usr/bin/env node
// Hostile-config benchmark (run with `npm run bench:config`, which builds dist/ first).
//
// Writes three configs to a temp directory and runs the real CLI on each, as a child process:
// `node bench/with-max-rss.mjs validate --config <file>` (with-max-rss.mjs runs the CLI in its own
// process and reports process.resourceUsage().maxRSS). Prints one table: wall time (spawn to
// exit), peak RSS, exit code and stderr lines per input, against its targets. Misses are marked
// MISSED; the exit code is 0 unless the benchmark itself could not run.
//
//   (a) 100,000 unknown top-level keys       target: exit 0 in ≤ 2 s
//   (b) a ~10 MB config (one task whose eval_kwargs hold an inline data set)
//                                            target: exit 0 in ≤ 200 MiB peak RSS
//   (c) the billion laughs alias bomb        target: exit 2 with one stderr line, in ≤ 2 s
//   (d) /dev/zero as the config              target: exit 2 with one stderr line, in ≤ 2 s
//   (e) a named pipe as the config           target: exit 2 with one stderr line, in ≤ 2 s
//   (f) 130 KB expanding to 1,280,000 jobs, validate --strict
//                                            target: exit 1 (over the job limit) in ≤ 2 s
//
// BENCH_CONFIG_TIMEOUT_S=60 sets how long one input may run before it is killed (default 120).
import { execFileSync, spawn } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { benchWorkspace } from "./workspace.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const RSS_WRAPPER = join(ROOT, "bench", "with-max-rss.mjs");
const TIMEOUT_S = Number(process.env.BENCH_CONFIG_TIMEOUT_S || 120);

// ---------------------------------------------------------------------------------------------
// Temp workspace, removed on every exit path; Ctrl-C stops the running child first.

const workspace = benchWorkspace("trace-bench-config-bench-");
const tmp = workspace.dir;

const childEnv = { ...process.env };
delete childEnv.NODE_OPTIONS; // e.g. a debugger or profiler inherited from the shell

// ---------------------------------------------------------------------------------------------
// The inputs.

/** (a) 100,000 keys no config has: each is warned about, none is used. */
function unknownKeysConfig() {
  const lines = ["# 100,000 unknown top-level keys", "tasks: [internal:numeric_param]"];
  for (let i = 0; i < 100_000; i++) lines.push(`unknown_key_${i}: ${i}`);
  return `${lines.join("\n")}\n`;
}

/** (b) A realistic big config: one task whose eval_kwargs carry an inline data set, ~10 MB. */
function tenMegabyteConfig() {
  const parts = [
    "# ~10 MB: an inline evaluation set in eval_kwargs",
    "mode: stub",
    "seeds: [1, 2, 3]",
    "tasks:",
    "  - id: internal:numeric_param",
    "    eval_kwargs:",
    "      examples:",
  ];
  let size = parts.join("\n").length;
  for (let i = 0; size < 10 * 1024 * 1024; i++) {
    const example = [
      `        - question: "What is ${i} plus ${i + 1}? Answer with a single number, no words."`,
      `          answer: ${2 * i + 1}`,
      `          weight: 1.0`,
    ].join("\n");
    parts.push(example);
    size += example.length + 1;
  }
  parts.push("trainers:", "  - id: PrioritySearch", "    params_variants:", "      - {ps_steps: 1, ps_batches: 1}", "");
  return parts.join("\n");
}

/** (c) The billion laughs: 9 levels of 9 aliases, 9^9 strings once expanded, from 400 bytes. */
function aliasBombConfig() {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 0; i < 8; i++) lines.push(`${"bcdefghi"[i]}: &${"bcdefghi"[i]} [${Array(9).fill(`*${"abcdefgh"[i]}`).join(",")}]`);
  lines.push("tasks: [internal:numeric_param]", "");
  return lines.join("\n");
}

/** (f) 1 task × 64 params variants × 20,000 seeds: 1,280,000 jobs from 130 KB. */
function hugeMatrixConfig() {
  const seeds = Array.from({ length: 20_000 }, (_, i) => i + 1).join(", ");
  const variants = Array.from({ length: 64 }, (_, i) => `{ps_steps: ${i + 1}}`).join(", ");
  return `mode: stub\nseeds: [${seeds}]\ntasks: [internal:numeric_param]\ntrainers:\n  - id: PrioritySearch\n    params_variants: [${variants}]\n`;
}

// ---------------------------------------------------------------------------------------------
// One measured CLI run.

/**
 * Runs `trace-bench validate --config <file>` under the RSS wrapper. Resolves to its wall time
 * (ms, spawn to exit), exit code (null when killed), peak RSS (KiB, when it wrote one) and stderr.
 */
function validate(file, label, extraArgs = []) {
  const rssFile = join(tmp, `${label}.max-rss`);
  return new Promise((resolvePromise, reject) => {
    const err = [];
    let ms = NaN;
    let timedOut = false;
    const started = performance.now();
    const child = spawn(process.execPath, [RSS_WRAPPER, "validate", "--config", file, ...extraArgs], {
      cwd: ROOT,
      env: { ...childEnv, TRACE_BENCH_MAX_RSS_FILE: rssFile },
      stdio: ["ignore", "ignore", "pipe"],
    });
    workspace.running(child);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, TIMEOUT_S * 1000);
    child.stderr.on("data", (chunk) => err.push(chunk));
    child.on("error", (error) => reject(new Error(`${label}: ${error.message}`)));
    child.on("exit", () => {
      ms = performance.now() - started;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      workspace.finished(child);
      let rssKib = NaN;
      try {
        rssKib = Number(readFileSync(rssFile, "utf8").trim());
      } catch {
        // killed before it could write one
      }
      resolvePromise({ ms, code: timedOut ? null : code, timedOut, rssKib, stderr: Buffer.concat(err).toString("utf8") });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Measurements.

const fmt = (x, digits) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");
const fileSize = (bytes) => (bytes >= 2 ** 20 ? `${fmt(bytes / 2 ** 20, 2)} MiB` : `${fmt(bytes / 1024, 1)} KiB`);
const rows = [];
const notes = [];
let failures = 0;

const inputs = [
  { id: "a", name: "100,000 unknown top-level keys", file: "unknown-keys.yaml", text: unknownKeysConfig, wantCode: 0, maxSeconds: 2 },
  { id: "b", name: "~10 MB config (inline eval_kwargs data set)", file: "ten-megabytes.yaml", text: tenMegabyteConfig, wantCode: 0, maxRssMib: 200 },
  { id: "c", name: "alias bomb (billion laughs)", file: "alias-bomb.yaml", text: aliasBombConfig, wantCode: 2, maxSeconds: 2, oneLine: true },
  { id: "d", name: "/dev/zero", path: "/dev/zero", wantCode: 2, maxSeconds: 2, oneLine: true },
  { id: "e", name: "a named pipe", file: "fifo.yaml", fifo: true, wantCode: 2, maxSeconds: 2, oneLine: true },
  { id: "f", name: "1,280,000-job matrix, validate --strict", file: "huge-matrix.yaml", text: hugeMatrixConfig, args: ["--strict", "--runs-dir", join(tmp, "runs")], wantCode: 1, maxSeconds: 2 },
];

const benchStarted = performance.now();
const loadBefore = loadavg()[0];

for (const input of inputs) {
  const path = input.path ?? join(tmp, input.file);
  process.stderr.write(`bench: (${input.id}) ${input.name} ...\n`);
  try {
    if (input.fifo) execFileSync("mkfifo", [path]);
    else if (input.text) writeFileSync(path, input.text());
    const size = statSync(path).size;
    const run = await validate(path, input.id, input.args);
    const seconds = run.ms / 1000;
    const rss = run.rssKib / 1024;
    const stderrLines = run.stderr.split("\n").filter((l) => l !== "");
    const stackTrace = /internal error|\n\s+at /.test(run.stderr);
    const misses = [];
    if (run.timedOut) misses.push(`killed after ${TIMEOUT_S} s`);
    else if (run.code !== input.wantCode) misses.push(`exit ${run.code}, want ${input.wantCode}`);
    if (input.maxSeconds !== undefined && !(seconds <= input.maxSeconds)) misses.push(`> ${input.maxSeconds} s`);
    if (input.maxRssMib !== undefined && !(rss <= input.maxRssMib)) misses.push(`> ${input.maxRssMib} MiB`);
    if (input.oneLine && stderrLines.length !== 1) misses.push(`${stderrLines.length} stderr lines, want 1`);
    if (stackTrace) misses.push("stack trace");
    const targets = [
      `exit ${input.wantCode}`,
      input.maxSeconds !== undefined ? `≤ ${input.maxSeconds} s` : null,
      input.maxRssMib !== undefined ? `≤ ${input.maxRssMib} MiB` : null,
      input.oneLine ? "1 stderr line" : null,
    ].filter((t) => t !== null);
    rows.push({
      id: input.id,
      input: input.name,
      size: fileSize(size),
      exit: run.timedOut ? "killed" : String(run.code),
      wall: run.timedOut ? `> ${TIMEOUT_S}` : fmt(seconds, 2),
      rss: fmt(rss, 1),
      lines: String(stderrLines.length),
      target: targets.join(", "),
      status: misses.length === 0 ? "ok" : `MISSED (${misses.join("; ")})`,
    });
    const firstLine = stderrLines[0] ?? "";
    if (firstLine) notes.push(`(${input.id}) stderr[0]: ${firstLine.length > 160 ? `${firstLine.slice(0, 157)}...` : firstLine}`);
  } catch (error) {
    failures += 1;
    rows.push({ id: input.id, input: input.name, size: "", exit: "ERROR", wall: "", rss: "", lines: "", target: "", status: "ERROR" });
    notes.push(`(${input.id}) failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Report.

const cpuList = cpus();
const header = ["#", "Input", "File", "Exit", "Wall (s)", "Peak RSS (MiB)", "Stderr lines", "Targets", "Status"];
const cells = rows.map((r) => [r.id, r.input, r.size, r.exit, r.wall, r.rss, r.lines, r.target, r.status]);
const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
const rightAligned = new Set([2, 4, 5, 6]);
const line = (c) => `| ${c.map((x, i) => (rightAligned.has(i) ? x.padStart(widths[i]) : x.padEnd(widths[i]))).join(" | ")} |`;
const rule = `|${widths.map((w, i) => (rightAligned.has(i) ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
const missed = rows.filter((r) => r.status.startsWith("MISSED")).length;

const out = [
  "",
  "trace-bench hostile-config benchmark: `trace-bench validate --config <file>`, one child process each",
  `Machine: ${cpuList.length} CPUs (${availableParallelism()} available) ${cpuList[0]?.model?.trim() ?? "unknown"}, ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM, ${process.platform}-${process.arch}`,
  `Load average (1 min): ${fmt(loadBefore, 2)} at start, ${fmt(loadavg()[0], 2)} at end${Math.max(loadBefore, loadavg()[0]) > cpuList.length / 2 ? " — the machine was busy with other work; figures may be inflated" : ""}`,
  `Node: ${process.version}; wall = spawn to exit (includes Node start-up); peak RSS = process.resourceUsage().maxRSS of the CLI process`,
  "",
  line(header),
  rule,
  ...cells.map(line),
  "",
  `Targets: ${rows.length - missed - failures}/${rows.length} met${missed ? `, ${missed} MISSED` : ""}${failures ? `, ${failures} ERROR` : ""}. Benchmark took ${fmt((performance.now() - benchStarted) / 1000, 1)} s.`,
  ...notes.map((n) => `  ${n}`),
  "",
];
process.stdout.write(out.join("\n"));

process.exitCode = failures > 0 ? 1 : 0;
