/**
 * The dashboard's Cancel signals only a process it verified as the run's writer. Anything that can
 * write into the runs dir can plant a lock row naming another process: without the start time the
 * lock records, with one that differs, or naming a process that does not have the run's log open,
 * Cancel refuses (409, the reason) and that process is not signalled; Resume refuses too, sending
 * nothing. (Cancelling a real run is in ui-launch.test.ts.)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDashboard, workDirWithSmokeRun, type RunningDashboard } from "../support/dashboard.js";

/** Field 22 of /proc/<pid>/stat: what the writer lock records as the process's start time. */
const startTimeOf = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ")[19]!;

/** A live bystander; `run` among its arguments, as a trace-bench run's command line has. */
function bystander(command: string, args: readonly string[]): ChildProcess & { pid: number } {
  const child = spawn(command, args, { stdio: "ignore" });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  return child as ChildProcess & { pid: number };
}

/** Ends `child` with SIGTERM and says which signal ended it: SIGTERM unless something signalled it first. */
async function endingSignal(child: ChildProcess): Promise<NodeJS.Signals | null> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((done) => child.once("exit", () => done()));
    child.kill("SIGTERM");
    await exited;
  }
  return child.signalCode;
}

describe("dashboard Cancel verifies the run's writer before signalling it", () => {
  let dir: string;
  let runDir: string;
  let rel: string;
  let dashboard: RunningDashboard;
  const post = (path: string, body: unknown) => dashboard.request(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

  /** Writes the lock row a writer would, naming `pid` with `processStart`. */
  function plantLock(pid: number, processStart: string | null): void {
    const db = new Database(join(runDir, "events.db"));
    try {
      db.prepare("INSERT OR REPLACE INTO writer (id, pid, host, process_start, started_at, command) VALUES (1, ?, ?, ?, ?, ?)").run(
        pid,
        hostname(),
        processStart,
        new Date().toISOString(),
        `trace-bench run --config configs/smoke.yaml (pid ${pid})`,
      );
    } finally {
      db.close();
    }
  }

  function clearLock(): void {
    const db = new Database(join(runDir, "events.db"));
    try {
      db.prepare("DELETE FROM writer").run();
    } finally {
      db.close();
    }
  }

  /** Waits until the dashboard lists the run as written by `pid`. */
  async function runListedWith(pid: number): Promise<{ status: string; cancellable: boolean }> {
    for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
      const runs = JSON.parse((await dashboard.request("/api/runs")).body) as { runs: { rel_dir: string; status: string; cancellable: boolean; writer: { pid: number } | null }[] };
      const run = runs.runs.find((r) => r.rel_dir === rel);
      if (run?.writer?.pid === pid) return run;
    }
    throw new Error(`the dashboard never listed ${rel} as written by ${pid}`);
  }

  beforeAll(async () => {
    ({ dir, runDir, rel } = await workDirWithSmokeRun());
    dashboard = await startDashboard({ cwd: dir, args: ["--runs-dir", "runs"] });
  }, 120_000);

  afterAll(async () => {
    await dashboard?.stop();
    // The run is left as it was, for the after-all replay --verify.
    if (runDir !== undefined) clearLock();
  });

  const cases: { name: string; start: (pid: number) => string | null; command: () => ChildProcess & { pid: number }; reason: RegExp }[] = [
    {
      name: "a lock row without a start time",
      command: () => bystander("sleep", ["300"]),
      start: () => null,
      reason: /without the start time that would prove it is the run's writer/,
    },
    {
      name: "a lock row with the start time copied from a process that does not have the run's log open",
      command: () => bystander(process.execPath, ["-e", "setInterval(() => {}, 1000)", "run"]),
      start: startTimeOf,
      reason: /does not have the run's events\.db open/,
    },
    {
      name: "a lock row naming a process that is no 'trace-bench run'",
      command: () => bystander("sleep", ["300"]),
      start: startTimeOf,
      reason: /is not a 'trace-bench run'/,
    },
  ];

  for (const { name, command, start, reason } of cases) {
    it(`${name}: Cancel refuses and signals nothing; Resume refuses`, async () => {
      const victim = command();
      try {
        plantLock(victim.pid, start(victim.pid));
        const listed = await runListedWith(victim.pid);
        expect(listed.status).toBe("running");
        // The page does not offer Cancel.
        expect(listed.cancellable).toBe(false);
        const cancel = await post(`/api/run/cancel?run=${encodeURIComponent(rel)}`, {});
        expect(cancel.status, cancel.body).toBe(409);
        const error = (JSON.parse(cancel.body) as { error: string }).error;
        expect(error).toMatch(new RegExp(`^run ${rel} was not cancelled: `));
        expect(error).toMatch(reason);
        expect(error).toMatch(/nothing was signalled/);
        const resume = await post(`/api/run/resume?run=${encodeURIComponent(rel)}`, { mode: "auto" });
        expect(resume.status, resume.body).toBe(409);
      } finally {
        clearLock();
        // Ended by our SIGTERM, not by a SIGINT from the dashboard.
        expect(await endingSignal(victim)).toBe("SIGTERM");
      }
    }, 60_000);
  }
});
