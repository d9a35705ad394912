/**
 * `RunFinished` means the reports are complete: a run SIGKILLed right after its RunFinished
 * commits (TRACE_BENCH_TEST_KILL_AFTER_SEQ, before anything else runs in the process) is a
 * finished run whose results.csv holds every job, whose `tokens` reconciles (exit 0), and which
 * `runs` lists as finished, without any command mending it first. Aimed several times (10 with
 * TRACE_BENCH_TEST_THOROUGH=1): the kill lands at the same commit each time, while the files are
 * written at whatever pace the machine allows.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/cli.js";
import { csvRawRecords, csvValue, describeRun, readEvents, runCliAsync } from "../support/crash-harness.js";
import { repeats } from "../support/repeats.js";

const JOBS = 48;
const TRIALS = repeats(10, 3);
const CONFIG_YAML = [
  "mode: stub",
  `seeds: [${Array.from({ length: JOBS }, (_, i) => i + 1).join(", ")}]`,
  "max_workers: 8",
  "tasks: [internal:numeric_param]",
  "trainers: [NoOpTrainer]",
  "",
].join("\n");
const CHILD_TIMEOUT_MS = 60_000;

let base = "";
let configPath = "";
/** The seq of RunFinished in an uninterrupted run of the config (a fresh run's log is the same length each time). */
let runFinishedSeq = 0;

function childEnv(killAfterSeq?: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.TRACE_BENCH_TEST_KILL_AFTER_SEQ;
  if (killAfterSeq !== undefined) env.TRACE_BENCH_TEST_KILL_AFTER_SEQ = String(killAfterSeq);
  return env;
}

const cli = (args: readonly string[], cwd: string, killAfterSeq?: number) => runCliAsync(args, { cwd, env: childEnv(killAfterSeq), timeoutMs: CHILD_TIMEOUT_MS });

/** The one run directory under `runsDir`. */
function onlyRunDir(runsDir: string): string {
  const names = readdirSync(runsDir).filter((name) => !name.startsWith("."));
  expect(names, "run directories").toHaveLength(1);
  return join(runsDir, names[0]!);
}

/** The job ids results.csv holds (none while it does not exist). */
function resultJobIds(runDir: string): string[] {
  if (!existsSync(join(runDir, "results.csv"))) return [];
  const records = csvRawRecords(readFileSync(join(runDir, "results.csv"), "utf8"));
  const column = records[0]!.indexOf("job_id");
  return records.slice(1).map((cells) => csvValue(cells[column]!));
}

describe("RunFinished means the reports are complete", () => {
  beforeAll(async () => {
    base = tempDir("trace-bench-finished-");
    configPath = join(base, "finished.yaml");
    writeFileSync(configPath, CONFIG_YAML);
    const workDir = join(base, "reference");
    mkdirSync(workDir);
    const run = await cli(["run", "--config", configPath, "--runs-dir", "runs"], workDir);
    if (run.code !== 0) throw new Error(describeRun("uninterrupted reference run", run));
    const last = readEvents(onlyRunDir(join(workDir, "runs"))).at(-1)!;
    if (last.type !== "RunFinished") throw new Error(`the reference run's last event is ${last.type}`);
    runFinishedSeq = last.seq;
  }, 2 * CHILD_TIMEOUT_MS);

  it(`a SIGKILL right after RunFinished commits leaves every report complete (${TRIALS} trials)`, async () => {
    const failures: string[] = [];
    for (let trial = 1; trial <= TRIALS; trial++) {
      const workDir = join(base, `trial-${trial}`);
      mkdirSync(workDir);
      const killed = await cli(["run", "--config", configPath, "--runs-dir", "runs"], workDir, runFinishedSeq);
      expect(killed.signal, describeRun(`trial ${trial}: TRACE_BENCH_TEST_KILL_AFTER_SEQ=${runFinishedSeq} should SIGKILL the run`, killed)).toBe("SIGKILL");
      const runDir = onlyRunDir(join(workDir, "runs"));
      const rows = readEvents(runDir);
      expect(rows.at(-1)?.type, `trial ${trial}: the last committed event`).toBe("RunFinished");
      expect(rows.at(-1)?.seq, `trial ${trial}: RunFinished's seq`).toBe(runFinishedSeq);
      const jobIds = rows.filter((r) => r.type === "JobFinished").map((r) => r.job_id!);

      const problems: string[] = [];
      const inResults = resultJobIds(runDir);
      if (inResults.length !== JOBS || [...inResults].sort().join() !== [...jobIds].sort().join()) problems.push(`results.csv holds ${inResults.length} of ${JOBS} jobs`);
      const tokens = await cli(["tokens", runDir], workDir);
      if (tokens.code !== 0) problems.push(describeRun("tokens", tokens));
      const runs = await cli(["runs", "--runs-dir", "runs", "--json"], workDir);
      const listed = runs.code === 0 ? (JSON.parse(runs.stdout) as { runs: { status: string; jobs?: Record<string, number> }[] }).runs : [];
      if (listed.length !== 1 || listed[0]!.status !== "finished") problems.push(describeRun("runs --json (expected one finished run)", runs));
      if (problems.length > 0) failures.push(`trial ${trial}: ${problems.join("; ")}`);
    }
    expect(failures, "trials whose finished run had reports behind its log").toEqual([]);
  }, TRIALS * 4 * CHILD_TIMEOUT_MS);
});
