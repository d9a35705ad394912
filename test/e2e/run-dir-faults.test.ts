/**
 * The write path under stress, through the real CLI: one writer per run directory, locks left by
 * killed processes, a kill between the last commit and the last projection write, a full disk,
 * damaged or doctored logs, SIGHUP, and `replay --verify` on a log nobody should have written.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { CLI, doctoredRunDirs, REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { committedJobFinished } from "../support/crash-harness.js";
import { csvRows, eventsOf, FIXTURE_ENV } from "../support/run-dir.js";

function config(dir: string, body: string): string {
  const path = join(dir, "config.yaml");
  writeFileSync(path, `mode: stub\n${body}`);
  return path;
}

const run = (args: readonly string[], env: NodeJS.ProcessEnv = {}) => runCli(["run", ...args], { env: { ...FIXTURE_ENV, ...env } });

/** Starts `trace-bench run` in the background; resolves when it exits. */
function startRun(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [CLI, "run", ...args], { cwd: REPO_ROOT, env: { ...process.env, ...FIXTURE_ENV, ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, exited, output: () => stdout };
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const count = (runDir: string, type: string) => eventsOf(runDir).filter((e) => e.type === type).length;
const SLOW = (seeds: number, delay = 60) => `seeds: [${Array.from({ length: seeds }, (_, i) => i + 1).join(", ")}]\ntasks:\n  - {id: fixture:sleep, eval_kwargs: {delay_ms: ${delay}}}\ntrainers: [NoOpTrainer]\n`;

describe("one writer per run directory", () => {
  it("a second run (or a replay) on a run dir being written is refused at once, naming the holder; the log holds one run's work", async () => {
    const dir = tempDir();
    // Every job waits for the gate file, so the first run is still writing when the second starts, however busy the machine.
    const [started, gate] = [join(dir, "started"), join(dir, "gate")];
    const cfg = config(dir, `seeds: [1, 2, 3]\ntasks:\n  - {id: fixture:wait_for_file, eval_kwargs: {started_file: ${started}, gate_file: ${gate}}}\ntrainers: [NoOpTrainer]\n`);
    const first = startRun(["--config", cfg, "--runs-dir", dir, "--run-id", "shared"]);
    await until(() => existsSync(started), "the first run's first job");
    const second = await run(["--config", cfg, "--runs-dir", dir, "--run-id", "shared"]);
    const replay = await runCli(["replay", join(dir, "shared")]);
    expect(first.child.exitCode, "the first run is held at the gate").toBeNull();
    writeFileSync(gate, "");
    expect(second.code).toBe(2);
    expect(second.stderr.trim().split("\n")).toEqual([expect.stringMatching(new RegExp(`^trace-bench: .*shared is being written by pid ${first.child.pid} on .* \\(trace-bench run, started .*\\); wait for it`))]);
    expect(replay.code, replay.stderr).toBe(2);
    expect(replay.stderr).toMatch(/is being written by pid/);
    expect((await first.exited).code).toBe(0);
    const runDir = join(dir, "shared");
    expect(count(runDir, "RunStarted")).toBe(1);
    expect(count(runDir, "JobFinished")).toBe(3);
    expect(csvRows(join(runDir, "results.csv"))).toHaveLength(3);
  });

  it("a lock left by a killed run is taken over without a flag, and the run completes exactly", async () => {
    const dir = tempDir();
    // Three quick jobs, then three that wait for the gate file: killed while the fourth waits, the run has done exactly three.
    const [started, gate] = [join(dir, "started"), join(dir, "gate")];
    const cfg = config(dir, `seeds: [1, 2, 3]\ntasks:\n  - {id: fixture:sleep, eval_kwargs: {delay_ms: 5}}\n  - {id: fixture:wait_for_file, eval_kwargs: {started_file: ${started}, gate_file: ${gate}}}\ntrainers: [NoOpTrainer]\n`);
    const first = startRun(["--config", cfg, "--runs-dir", dir, "--run-id", "r"]);
    // The fourth job can start before the third's JobFinished commits (one commit per turn); none can finish after it.
    await until(() => existsSync(started) && committedJobFinished(join(dir, "r")) === 3, "the first gated job, after three committed jobs");
    first.child.kill("SIGKILL");
    await first.exited;
    writeFileSync(gate, "");
    const again = await run(["--config", cfg, "--runs-dir", dir, "--run-id", "r"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/Resuming r: 3\/6 jobs done/);
    const rows = csvRows(join(dir, "r", "results.csv"));
    expect(rows.map((r) => r.status)).toEqual(Array(6).fill("ok"));
    expect(new Set(rows.map((r) => r.job_id)).size).toBe(6);
  });
});

describe("repairs and faults", () => {
  it("a kill between RunFinished and the last projection write is repaired by the next command that opens the run dir", async () => {
    const dir = tempDir();
    const cfg = config(dir, SLOW(4, 5));
    expect((await run(["--config", cfg, "--runs-dir", dir, "--run-id", "ref"])).code).toBe(0);
    const finishedSeq = eventsOf(join(dir, "ref")).find((e) => e.type === "RunFinished")!.seq;

    const killed = await run(["--config", cfg, "--runs-dir", dir, "--run-id", "k", "--max-workers", "1"], { TRACE_BENCH_TEST_KILL_AFTER_SEQ: String(finishedSeq) });
    expect(killed.code).toBeNull(); // SIGKILLed right after RunFinished committed
    const runDir = join(dir, "k");
    expect(eventsOf(runDir).at(-1)!.type).toBe("RunFinished");
    const projectedPosition = () => {
      const db = new Database(join(runDir, "events.db"), { readonly: true });
      try {
        return (db.prepare("SELECT COALESCE(MAX(position), 0) FROM subscriber_positions WHERE name = 'projections'").pluck().get() as number) ?? 0;
      } finally {
        db.close();
      }
    };
    expect(projectedPosition()).toBeLessThan(finishedSeq); // the files are known to be behind

    const next = await run(["--config", cfg, "--runs-dir", dir, "--run-id", "k"]);
    expect(next.code, next.stderr).toBe(0);
    expect(csvRows(join(runDir, "results.csv")).map((r) => r.status)).toEqual(["ok", "ok", "ok", "ok"]);
    expect(count(runDir, "JobFinished")).toBe(4); // nothing re-ran
    expect(projectedPosition()).toBe(eventsOf(runDir).at(-1)!.seq); // and the files now reflect the whole log
  });

  it("a full disk stops the run with one clear line, loses nothing committed, and a later run resumes", async () => {
    const dir = tempDir();
    const cfg = config(dir, SLOW(5, 5));
    const full = await run(["--config", cfg, "--runs-dir", dir, "--max-workers", "1"], { TRACE_BENCH_TEST_DISK_FULL_AT_SEQ: "40" });
    expect(full.code).toBe(2);
    // One line in all, as on a real full disk (full-disk.test.ts): the subscribers that failed with it say nothing of their own.
    expect(full.stderr.trim().split("\n"), full.stderr).toEqual([expect.stringMatching(/^trace-bench: cannot write the event log .*events\.db: the disk is full; free space and run the same command again to resume$/)]);
    expect(full.stderr).not.toMatch(/\n\s+at /); // no stack trace
    const runDirName = readdirSync(dir).find((n) => n !== "config.yaml")!;
    const before = eventsOf(join(dir, runDirName));
    expect(before.at(-1)!.seq).toBeLessThan(40);
    const okBefore = before.filter((e) => e.type === "JobFinished").length;
    expect(okBefore).toBeGreaterThan(0);

    const resumed = await run(["--config", cfg, "--runs-dir", dir]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`Resuming ${runDirName}: ${okBefore}/5 jobs done`);
    const after = eventsOf(join(dir, runDirName));
    expect(after.slice(0, before.length)).toEqual(before); // nothing committed was lost
    expect(csvRows(join(dir, runDirName, "results.csv")).map((r) => r.status)).toEqual(Array(5).fill("ok"));
  });

  it("a runs dir that is a file, or a run id that is a path, is a one-line error", async () => {
    const dir = tempDir();
    const cfg = config(dir, "tasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n");
    writeFileSync(join(dir, "runs-file"), "");
    const r = await run(["--config", cfg, "--runs-dir", join(dir, "runs-file")]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^trace-bench: runs dir .*runs-file is a file, not a directory; pass a directory with --runs-dir$/);
    const escape = await run(["--config", cfg, "--runs-dir", dir, "--run-id", "../elsewhere"]);
    expect(escape.code).toBe(2);
    expect(escape.stderr.trim()).toMatch(/^trace-bench: --run-id: "\.\.\/elsewhere" is not a plain name/);
  });

  it("a replay that cannot write a job's file says which, in one line, and the next replay mends the run", async () => {
    const dir = tempDir();
    const cfg = config(dir, "tasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n");
    expect((await run(["--config", cfg, "--runs-dir", join(dir, "runs"), "--run-id", "r"])).code).toBe(0);
    const runDir = join(dir, "runs", "r");
    const [jobId] = readdirSync(join(runDir, "jobs"));
    const artifacts = join(runDir, "jobs", jobId!, "artifacts");
    const results = readFileSync(join(runDir, "results.csv"), "utf8");
    rmSync(artifacts, { recursive: true });
    writeFileSync(artifacts, "a file where a folder goes");

    const failed = await runCli(["replay", runDir]);
    expect(failed.code).toBe(2);
    expect(failed.stderr.trim()).toMatch(/^trace-bench: replay could not write the run's files: ENOTDIR: .*artifacts.*; the event log is intact: fix this and run 'npx trace-bench replay .*' again$/); // started from the clone, not from PATH

    rmSync(artifacts);
    const mended = await runCli(["replay", runDir]);
    expect(mended.code, mended.stderr).toBe(0);
    expect(existsSync(join(artifacts, "final_state.json"))).toBe(true);
    expect(readFileSync(join(runDir, "results.csv"), "utf8")).toBe(results);
  });

  it("a damaged log beside a run is skipped with a warning naming it, and the run goes on", async () => {
    const dir = tempDir();
    const cfg = config(dir, "tasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n");
    mkdirSync(join(dir, "junk"));
    writeFileSync(join(dir, "junk", "events.db"), "not sqlite at all ".repeat(300));
    doctoredRunDirs.add(join(dir, "junk"));
    const r = await run(["--config", cfg, "--runs-dir", dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: skipping .*junk: .*not a readable event log/);
  });
});

describe("doctored logs", () => {
  async function finishedRun(): Promise<string> {
    const dir = tempDir();
    const cfg = config(dir, "tasks: [internal:numeric_param, internal:multi_param]\ntrainers: [NoOpTrainer]\n");
    expect((await run(["--config", cfg, "--runs-dir", dir, "--run-id", "r"])).code).toBe(0);
    return join(dir, "r");
  }

  it("a job id that reads ../../victim never becomes a path: replay refuses the log with one line", async () => {
    const runDir = await finishedRun();
    doctoredRunDirs.add(runDir);
    const db = new Database(join(runDir, "events.db"));
    const jobId = (db.prepare("SELECT job_id FROM events WHERE job_id IS NOT NULL LIMIT 1").pluck().get() as string);
    db.prepare("UPDATE events SET job_id = '../../victim' WHERE job_id = ?").run(jobId);
    db.close();
    const r = await runCli(["replay", runDir]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^trace-bench: .*events\.db: event \d+: job id "\.\.\/\.\.\/victim" is not a plain name/);
    expect(existsSync(join(runDir, "..", "..", "victim"))).toBe(false);
    expect(existsSync(join(runDir, "results.csv"))).toBe(true); // nothing was deleted before the log was checked
  });

  it("replay --verify passes on a run the CLI made and names the event a doctored log gets wrong", async () => {
    const runDir = await finishedRun();
    const ok = await runCli(["replay", "--verify", runDir]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^Verified r: \d+ events, 2 jobs, all as the job machine decides$/m);

    doctoredRunDirs.add(runDir);
    const db = new Database(join(runDir, "events.db"));
    const finished = db.prepare("SELECT seq, data FROM events WHERE type = 'JobFinished' ORDER BY seq LIMIT 1").get() as { seq: number; data: string };
    db.prepare("UPDATE events SET data = ? WHERE seq = ?").run(finished.data.replace('"status":"ok"', '"status":"failed"'), finished.seq);
    db.close();
    const bad = await runCli(["replay", "--verify", runDir]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`event ${finished.seq}`);
    expect(bad.stdout).toMatch(/the machine records JobFinished .*"status":"ok".*, the log has JobFinished .*"status":"failed"/);
  });
});

describe("signals", () => {
  it("SIGHUP stops the run like SIGTERM: children killed, RunInterrupted recorded, and the next run resumes it", async () => {
    const dir = tempDir();
    const pidFile = join(dir, "child.pid");
    const cfg = config(dir, `tasks:\n  - {id: fixture:hang_child, eval_kwargs: {pid_file: ${JSON.stringify(pidFile)}}}\ntrainers: [NoOpTrainer]\n`);
    const started = startRun(["--config", cfg, "--runs-dir", dir, "--run-id", "hup"]);
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").length > 0, "the task's child process");
    const childPid = Number(readFileSync(pidFile, "utf8"));
    started.child.kill("SIGHUP");
    const exit = await started.exited;
    expect(exit.code).toBe(130);
    await until(() => {
      try {
        process.kill(childPid, 0);
        return false;
      } catch {
        return true;
      }
    }, "the child process to be gone", 5_000);
    const events = eventsOf(join(dir, "hup"));
    expect(events.find((e) => e.type === "RunInterrupted")?.data).toMatchObject({ signal: "SIGHUP" });
    expect(events.filter((e) => e.type === "JobFinished").map((e) => e.data.status)).toEqual(["cancelled"]);

    const resumed = await run(["--config", cfg, "--runs-dir", dir, "--job-timeout", "1"]);
    expect(resumed.stdout).toContain("Resuming hup: 0/1 jobs done");
    expect(eventsOf(join(dir, "hup")).filter((e) => e.type === "JobFinished").map((e) => e.data.status)).toEqual(["cancelled", "timeout"]);
  });
});
