/**
 * Crash safety, end to end: `trace-bench run` is started as a child process on a config of 20
 * slow-ish jobs, SIGKILLed at several moments (after 1, 5 and 12 committed JobFinished events;
 * right after a commit and before its jsonl mirror lines via TRACE_BENCH_TEST_KILL_AFTER_SEQ;
 * twice in a row), then re-run with the same --run-id until it exits 0. Every scenario must end
 * exactly where an uninterrupted run of the same config ends: no committed job ran twice, every
 * job in results.csv once, the same projections (timing excepted), mirrors equal to SQLite, and
 * `replay` reproducing every file byte for byte.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, tempDir } from "../support/cli.js";
import {
  committedJobFinished,
  csvRawRecords,
  csvValue,
  describeRun,
  lastMirrorSeq,
  mirrorText,
  readEvents,
  runCliAsync,
  snapshotTree,
  type CrashCliResult,
  type EventRow,
} from "../support/crash-harness.js";

const RUN_ID = "crashref";
const JOBS = 20;
const FIXTURE_SUITE = join(REPO_ROOT, "test", "fixtures", "suites", "fixture-suite.mjs");
// 20 jobs × 3 agent calls × 40 ms, two at a time: about 1.3 s of work per uninterrupted run.
const CONFIG_YAML = [
  "mode: stub",
  `seeds: [${Array.from({ length: JOBS }, (_, i) => i + 1).join(", ")}]`,
  "max_workers: 2",
  "tasks:",
  "  - {id: fixture:sleep, eval_kwargs: {delay_ms: 40}}",
  "trainers: [NoOpTrainer]",
  "",
].join("\n");
const CHILD_TIMEOUT_MS = 20_000;
const TEST_TIMEOUT_MS = 60_000;
/** Re-runs after the last kill before giving up on reaching exit code 0. */
const MAX_RERUNS = 3;

let base = "";
let configPath = "";

/** The uninterrupted run every scenario is compared with. */
interface Reference {
  readonly runDir: string;
  readonly rows: readonly EventRow[];
  readonly jobIds: readonly string[];
  /** Seqs of the JobFinished events, in order. */
  readonly finishedSeqs: readonly number[];
  /** Normalised projection files (and directories) by relative path. */
  readonly projections: ReadonlyMap<string, string>;
}
let reference: Reference | undefined;
const ref = (): Reference => {
  if (reference === undefined) throw new Error("the reference run did not complete (see beforeAll)");
  return reference;
};

function childEnv(killAfterSeq?: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TRACE_BENCH_TASK_MODULES: FIXTURE_SUITE };
  delete env.TRACE_BENCH_TEST_KILL_AFTER_SEQ;
  if (killAfterSeq !== undefined) env.TRACE_BENCH_TEST_KILL_AFTER_SEQ = String(killAfterSeq);
  return env;
}

/**
 * The one command every invocation runs. The runs dir is relative to a per-scenario working
 * directory, so the config snapshot (which records runs_dir) is the same in every scenario.
 */
const runArgs = (): string[] => ["run", "--config", configPath, "--runs-dir", "runs", "--run-id", RUN_ID];

const dataOf = (row: EventRow): Record<string, unknown> => JSON.parse(row.data) as Record<string, unknown>;

function latestStatus(rows: readonly EventRow[], jobId: string): unknown {
  const last = rows.filter((r) => r.type === "JobFinished" && r.job_id === jobId).at(-1);
  return last === undefined ? null : dataOf(last).status;
}

// ---------------------------------------------------------------------------------------------
// Projections, normalised

/** Files compared with the reference: everything but the log, its mirrors and the job logs. */
function isComparedProjection(rel: string, isDir: boolean): boolean {
  if (isDir) return true;
  if (/^events\.db(-.*)?$/.test(rel) || rel === "events.jsonl") return false;
  return !/^jobs\/[^/]+\/(events\.jsonl|stdout\.log)$/.test(rel);
}

function replaceExactlyOnce(text: string, pattern: RegExp, replacement: string, where: string): string {
  const global = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
  const hits = text.match(global)?.length ?? 0;
  if (hits !== 1) throw new Error(`${where}: expected exactly one match of ${pattern} to normalise, found ${hits}`);
  return text.replace(global, replacement);
}

function blankCsvColumn(text: string, column: string, where: string): string {
  const records = csvRawRecords(text);
  const index = records[0]?.indexOf(column) ?? -1;
  if (index < 0) throw new Error(`${where}: no ${column} column`);
  return records.map((cells, i) => (i === 0 ? cells : cells.map((c, j) => (j === index ? "<timing>" : c))).join(",") + "\r\n").join("");
}

/** Blanks what legitimately differs between runs: timings and capture timestamps. */
function normalise(rel: string, text: string): string {
  if (rel === "results.csv" || rel === "leaderboard.csv") return blankCsvColumn(text, "time_seconds", rel);
  if (/^jobs\/[^/]+\/results\.json$/.test(rel)) return replaceExactlyOnce(text, /"time_seconds": [^,\n]+/, '"time_seconds": "<timing>"', rel);
  if (rel === "meta/manifest.json") return replaceExactlyOnce(text, /"generated_at": "[^"]*"/, '"generated_at": "<ts>"', rel);
  if (rel === "meta/env.json") return replaceExactlyOnce(text, /"captured_at": "[^"]*"/, '"captured_at": "<ts>"', rel);
  // The checkout's HEAD is an environment capture like captured_at (and may move while the test runs).
  if (rel === "meta/git.json") return text.replace(/"commit": "[0-9a-f]*"/, '"commit": "<head>"');
  if (rel === "summary.json") return replaceExactlyOnce(text, /"token_totals_all_attempts": \{[^}]*\}/, '"token_totals_all_attempts": "<all attempts>"', rel);
  return text;
}

function normalisedProjections(runDir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [rel, bytes] of snapshotTree(runDir, isComparedProjection)) out.set(rel, bytes === null ? "<dir>" : normalise(rel, bytes.toString("utf8")));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Checks shared by the reference and every scenario

function expectMirrorsEqualSqlite(runDir: string, rows: readonly EventRow[]): void {
  expect.soft(readFileSync(join(runDir, "events.jsonl"), "utf8"), "events.jsonl vs SQLite").toBe(mirrorText(rows));
  const jobIds = [...new Set(rows.flatMap((r) => (r.job_id === null ? [] : [r.job_id])))];
  for (const jobId of jobIds) {
    const path = join(runDir, "jobs", jobId, "events.jsonl");
    expect.soft(existsSync(path), `jobs/${jobId}/events.jsonl exists`).toBe(true);
    if (!existsSync(path)) continue;
    expect.soft(readFileSync(path, "utf8"), `jobs/${jobId}/events.jsonl vs SQLite`).toBe(mirrorText(rows.filter((r) => r.job_id === jobId)));
  }
}

async function expectReplayReproducesEveryFile(workDir: string, runDir: string): Promise<void> {
  const keep = (rel: string) => !/^events\.db(-wal|-shm)?$/.test(rel);
  const before = snapshotTree(runDir, keep);
  const replay = await runCliAsync(["replay", runDir], { cwd: workDir, env: childEnv(), timeoutMs: CHILD_TIMEOUT_MS });
  expect(replay.code, describeRun("trace-bench replay", replay)).toBe(0);
  const after = snapshotTree(runDir, keep);
  expect
    .soft(
      { missing: [...before.keys()].filter((rel) => !after.has(rel)), unexpected: [...after.keys()].filter((rel) => !before.has(rel)) },
      "entries replay did not reproduce / added",
    )
    .toEqual({ missing: [], unexpected: [] });
  const differing = [...before].filter(([rel, bytes]) => {
    const other = after.get(rel);
    if (other === undefined) return false; // reported above
    return bytes === null ? other !== null : other === null || !bytes.equals(other);
  });
  expect.soft(differing.map(([rel]) => rel), "files replay rebuilt differently").toEqual([]);
}

// ---------------------------------------------------------------------------------------------
// Scenarios

type Kill =
  /** Watch SQLite and SIGKILL the child once this many JobFinished events are committed in all. */
  | { readonly kind: "after-finished"; readonly count: number }
  /**
   * TRACE_BENCH_TEST_KILL_AFTER_SEQ: the child SIGKILLs itself right after the commit holding
   * this seq, before its mirror lines. `seq` gets the last committed seq before this invocation.
   */
  | { readonly kind: "after-commit"; readonly seq: (lastSeq: number) => number; readonly lands: string };

interface Scenario {
  readonly name: string;
  readonly kills: readonly Kill[];
}

const SCENARIOS: readonly Scenario[] = [
  { name: "SIGKILL after 1 committed JobFinished", kills: [{ kind: "after-finished", count: 1 }] },
  { name: "SIGKILL after 5 committed JobFinished", kills: [{ kind: "after-finished", count: 5 }] },
  { name: "SIGKILL after 12 committed JobFinished", kills: [{ kind: "after-finished", count: 12 }] },
  {
    name: "SIGKILL between the SQLite commit of a JobFinished and its mirror lines",
    kills: [{ kind: "after-commit", seq: () => ref().finishedSeqs[6]!, lands: "JobFinished" }],
  },
  {
    name: "SIGKILL between the SQLite commit of a mid-job event and its mirror lines",
    kills: [
      {
        kind: "after-commit",
        seq: () => ref().rows.find((r) => r.type === "IterationCompleted" && r.seq > ref().finishedSeqs[9]!)!.seq,
        lands: "IterationCompleted",
      },
    ],
  },
  {
    name: "SIGKILL between the SQLite commit of RunFinished and its mirror line",
    kills: [{ kind: "after-commit", seq: () => ref().rows.at(-1)!.seq, lands: "RunFinished" }],
  },
  {
    name: "two successive SIGKILLs (after 3 JobFinished, then mid-write of the resumed run's first JobFinished)",
    kills: [
      { kind: "after-finished", count: 3 },
      // A resumed invocation starts with RunStarted at lastSeq + 1 and interleaves its two workers
      // like the reference does from seq 1, so its first JobFinished lands at this seq.
      { kind: "after-commit", seq: (lastSeq) => lastSeq + ref().finishedSeqs[0]!, lands: "JobFinished" },
    ],
  },
];

async function killOnce(kill: Kill, workDir: string, runDir: string, label: string): Promise<void> {
  const lastSeq = existsSync(join(runDir, "events.db")) ? (readEvents(runDir).at(-1)?.seq ?? 0) : 0;
  if (kill.kind === "after-finished") {
    const run = await runCliAsync(runArgs(), {
      cwd: workDir,
      env: childEnv(),
      timeoutMs: CHILD_TIMEOUT_MS,
      pollMs: 10,
      killWhen: () => (committedJobFinished(runDir) ?? 0) >= kill.count,
    });
    expect(run.killedByTest, describeRun(`${label}: the run ended before ${kill.count} JobFinished were committed`, run)).toBe(true);
    expect(run.signal, describeRun(label, run)).toBe("SIGKILL");
    const rows = readEvents(runDir);
    const finished = rows.filter((r) => r.type === "JobFinished").length;
    expect(finished, `${label}: JobFinished committed when killed`).toBeGreaterThanOrEqual(kill.count);
    expect(finished, `${label}: the kill came too late, every job had finished`).toBeLessThan(JOBS);
    expect(rows.filter((r) => r.seq > lastSeq && r.type === "RunFinished"), `${label}: killed before RunFinished`).toEqual([]);
    return;
  }

  const seq = kill.seq(lastSeq);
  const run = await runCliAsync(runArgs(), { cwd: workDir, env: childEnv(seq), timeoutMs: CHILD_TIMEOUT_MS });
  expect(run.signal, describeRun(`${label}: TRACE_BENCH_TEST_KILL_AFTER_SEQ=${seq} should SIGKILL the run`, run)).toBe("SIGKILL");
  const rows = readEvents(runDir);
  const last = rows.at(-1)!;
  const landed = rows.find((r) => r.seq === seq);
  // The commit holding `seq` (the event the scenario aims at) was the last one; events commit in
  // groups, so it may hold events after it too...
  expect(landed?.type, `${label}: the event at seq ${seq}`).toBe(kill.lands);
  expect(last.seq, `${label}: last committed event`).toBeGreaterThanOrEqual(seq);
  // ...and none of its lines reached the mirrors, which hold an exact prefix of the log (they are
  // written by a worker thread that follows the log: it may not have written anything yet).
  const runMirror = join(runDir, "events.jsonl");
  const mirrored = lastMirrorSeq(runMirror);
  expect(mirrored, `${label}: events.jsonl must lag behind the killed commit`).toBeLessThan(seq);
  const mirrorNow = existsSync(runMirror) ? readFileSync(runMirror, "utf8") : "";
  expect(mirrorNow, `${label}: events.jsonl is a prefix of SQLite`).toBe(mirrorText(rows.filter((r) => r.seq <= mirrored)));
  if (landed!.job_id !== null) {
    const jobMirror = join(runDir, "jobs", landed!.job_id, "events.jsonl");
    expect(lastMirrorSeq(jobMirror), `${label}: jobs/${landed!.job_id}/events.jsonl must lag behind the killed commit`).toBeLessThan(seq);
  }
}

async function crashThenResume(scenario: Scenario, dirName: string): Promise<{ workDir: string; runDir: string; invocations: number }> {
  const workDir = join(base, dirName);
  mkdirSync(workDir);
  const runDir = join(workDir, "runs", RUN_ID);
  let invocations = 0;
  for (const [i, kill] of scenario.kills.entries()) {
    await killOnce(kill, workDir, runDir, `${scenario.name} (kill ${i + 1})`);
    invocations += 1;
  }

  const rowsBefore = readEvents(runDir);
  const doneBefore = ref().jobIds.filter((id) => latestStatus(rowsBefore, id) === "ok").length;
  let rerun: CrashCliResult | undefined;
  for (let attempt = 1; attempt <= MAX_RERUNS && rerun?.code !== 0; attempt++) {
    rerun = await runCliAsync(runArgs(), { cwd: workDir, env: childEnv(), timeoutMs: CHILD_TIMEOUT_MS });
    invocations += 1;
    if (attempt === 1) expect.soft(rerun.stdout, describeRun("first re-run", rerun)).toContain(`Resuming ${RUN_ID}: ${doneBefore}/${JOBS} jobs done\n`);
  }
  expect(rerun!.code, describeRun(`${scenario.name}: re-run ${MAX_RERUNS} times without exit code 0; last`, rerun!)).toBe(0);
  expect(rerun!.stdout).toContain(`Run complete: ${RUN_ID}\n`);
  return { workDir, runDir, invocations };
}

async function expectSameAsUninterrupted(workDir: string, runDir: string, invocations: number): Promise<void> {
  const rows = readEvents(runDir);
  const { jobIds } = ref();

  // The run completed, in this one run directory, through every invocation.
  expect(rows.at(-1)?.type, "last event").toBe("RunFinished");
  expect(rows.filter((r) => r.type === "RunStarted"), "one RunStarted per invocation").toHaveLength(invocations);
  expect([...new Set(rows.map((r) => r.run_id))]).toEqual([RUN_ID]);
  expect(readdirSync(join(workDir, "runs")), "run directories").toEqual([RUN_ID]);

  // Every matrix job's latest attempt finished ok; attempts count up from 1.
  for (const jobId of jobIds) {
    expect(latestStatus(rows, jobId), `latest JobFinished status of ${jobId}`).toBe("ok");
    const attempts = rows.filter((r) => r.type === "JobQueued" && r.job_id === jobId).map((r) => dataOf(r).attempt);
    expect(attempts, `JobQueued attempts of ${jobId}`).toEqual(attempts.map((_, i) => i + 1));
  }

  // No committed job ran twice: after a job's first committed ok, nothing more of it (no JobQueued).
  const ranAgain: string[] = [];
  for (const jobId of jobIds) {
    const ok = rows.find((r) => r.type === "JobFinished" && r.job_id === jobId && dataOf(r).status === "ok")!;
    const later = rows.filter((r) => r.job_id === jobId && r.seq > ok.seq);
    if (later.length > 0) ranAgain.push(`${jobId}: ok at seq ${ok.seq}, then ${later.map((r) => `${r.type}@${r.seq}`).join(", ")}`);
  }
  expect(ranAgain, "jobs that ran again after committing ok").toEqual([]);

  // results.csv: one row per matrix job, each exactly once, all ok.
  const records = csvRawRecords(readFileSync(join(runDir, "results.csv"), "utf8"));
  const header = records[0]!;
  const column = (name: string) => records.slice(1).map((cells) => csvValue(cells[header.indexOf(name)]!));
  expect(records.slice(1).every((cells) => cells.length === header.length), "every results.csv row has every column").toBe(true);
  expect(column("job_id")).toHaveLength(JOBS);
  expect([...column("job_id")].sort(), "results.csv job ids").toEqual([...jobIds].sort());
  expect(new Set(column("status"))).toEqual(new Set(["ok"]));

  // The checks below are soft: each reports its own failure and the rest still run.

  // A write the SIGKILL cut short must not leave its temp file (`<file>.tmp-<pid>-<n>`) behind.
  const tempFiles = [...snapshotTree(runDir).keys()].filter((rel) => /\.tmp-\d+-\d+$/.test(rel));
  expect.soft(tempFiles, "temp files of interrupted atomic writes left in the run directory").toEqual([]);

  // Every projection equals the uninterrupted run's (timings and capture timestamps excepted).
  const actual = normalisedProjections(runDir);
  const expected = ref().projections;
  expect
    .soft(
      { missing: [...expected.keys()].filter((rel) => !actual.has(rel)), unexpected: [...actual.keys()].filter((rel) => !expected.has(rel)) },
      "projection files and directories vs the reference run's",
    )
    .toEqual({ missing: [], unexpected: [] });
  const differing = [...expected.keys()].filter((rel) => actual.has(rel) && actual.get(rel) !== expected.get(rel));
  if (differing.length > 0) expect.soft(actual.get(differing[0]!), `${differing[0]} (differing: ${differing.join(", ")})`).toBe(expected.get(differing[0]!));

  // Every jsonl mirror equals its SQLite events, and replay reproduces every file byte for byte.
  expectMirrorsEqualSqlite(runDir, rows);
  await expectReplayReproducesEveryFile(workDir, runDir);
}

describe("crash safety: SIGKILLed runs resume to exactly the uninterrupted result", () => {
  beforeAll(async () => {
    base = tempDir("trace-bench-crash-");
    configPath = join(base, "crash.yaml");
    writeFileSync(configPath, CONFIG_YAML);
    const workDir = join(base, "reference");
    mkdirSync(workDir);
    const run = await runCliAsync(runArgs(), { cwd: workDir, env: childEnv(), timeoutMs: CHILD_TIMEOUT_MS });
    if (run.code !== 0) throw new Error(describeRun("uninterrupted reference run", run));
    const runDir = join(workDir, "runs", RUN_ID);
    const rows = readEvents(runDir);
    const started = rows.find((r) => r.type === "RunStarted")!;
    const jobIds = (dataOf(started).matrix as { job_id: string }[]).map((spec) => spec.job_id);
    reference = {
      runDir,
      rows,
      jobIds,
      finishedSeqs: rows.filter((r) => r.type === "JobFinished").map((r) => r.seq),
      projections: normalisedProjections(runDir),
    };
  }, TEST_TIMEOUT_MS);

  afterAll(() => {
    if (base !== "" && process.env.KEEP_CRASH_TEST_DIRS === undefined) rmSync(base, { recursive: true, force: true });
  });

  it("the uninterrupted reference run is complete and self-consistent", async () => {
    const { runDir, rows, jobIds, finishedSeqs } = ref();
    expect(new Set(jobIds).size).toBe(JOBS);
    expect(finishedSeqs).toHaveLength(JOBS);
    expect(rows.at(-1)?.type).toBe("RunFinished");
    for (const jobId of jobIds) expect(latestStatus(rows, jobId), jobId).toBe("ok");
    expectMirrorsEqualSqlite(runDir, rows);
    await expectReplayReproducesEveryFile(join(base, "reference"), runDir);
    // replay rewrote the reference's files; they must still be what the scenarios compare with.
    expect(normalisedProjections(runDir)).toEqual(ref().projections);
  }, TEST_TIMEOUT_MS);

  for (const [index, scenario] of SCENARIOS.entries()) {
    it(scenario.name, async () => {
      const { workDir, runDir, invocations } = await crashThenResume(scenario, `scenario-${index + 1}`);
      await expectSameAsUninterrupted(workDir, runDir, invocations);
    }, TEST_TIMEOUT_MS);
  }
});
