/**
 * A run directory that lost its `events.db` but kept `events.jsonl` is never written over, and
 * `trace-bench repair` rebuilds the log from the mirror; a run on a read-only file system can be
 * read by every reader verb. Through the real CLI and real SQLite.
 */
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.js";
import { canMountReadOnly, readOnlyCli } from "../support/read-only-mount.js";
import { eventsOf, filesUnder } from "../support/run-dir.js";

function config(dir: string): string {
  const path = join(dir, "config.yaml");
  writeFileSync(path, "mode: stub\nseeds: [1, 2]\ntasks: [internal:numeric_param, internal:multi_param]\ntrainers:\n  - {id: PrioritySearch, params_variants: [{ps_steps: 1, ps_batches: 1}]}\n");
  return path;
}

async function finishedRun(): Promise<{ dir: string; cfg: string; runDir: string }> {
  const dir = tempDir();
  const cfg = config(dir);
  const r = await runCli(["run", "--config", cfg, "--runs-dir", dir, "--run-id", "r"]);
  expect(r.code, r.stderr).toBe(0);
  return { dir, cfg, runDir: join(dir, "r") };
}

const removeLog = (runDir: string) => {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(join(runDir, `events.db${suffix}`), { force: true });
};

describe("a run dir whose events.db is lost while events.jsonl survives", () => {
  it("is refused by every verb with one line naming the repair, left byte-identical, and repair rebuilds a log that verifies and replays to the same reports", async () => {
    const { dir, cfg, runDir } = await finishedRun();
    const reports = filesUnder(runDir);
    const events = eventsOf(runDir);
    removeLog(runDir);
    const mirror = readFileSync(join(runDir, "events.jsonl"));
    const refusal = `${runDir}: events.db is missing but events.jsonl holds the run's events; nothing was written: rebuild the log from it with 'trace-bench repair ${runDir}'`;

    for (const args of [["run", "--config", cfg, "--runs-dir", dir, "--run-id", "r"], ["replay", runDir], ["replay", "--verify", runDir], ["tokens", runDir], ["calls", runDir]]) {
      const r = await runCli(args);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toBe(`trace-bench: ${refusal}\n`);
      expect(existsSync(join(runDir, "events.db")), args.join(" ")).toBe(false);
      expect(readFileSync(join(runDir, "events.jsonl")).equals(mirror)).toBe(true);
    }
    const runs = await runCli(["runs", "--runs-dir", dir]);
    expect(runs.code).toBe(0);
    expect(runs.stderr).toBe(`trace-bench: warning: skipping ${runDir}: ${refusal}\n`);
    expect(readFileSync(join(runDir, "events.jsonl")).equals(mirror)).toBe(true);

    const repair = await runCli(["repair", runDir]);
    expect(repair.code, repair.stderr).toBe(0);
    expect(repair.stdout).toContain(`Rebuilt ${runDir}/events.db from events.jsonl: ${events.length} events, 4 jobs`);
    expect(repair.stdout).toMatch(/The prompt and reply texts of \d+ LLM call\(s\) were kept only in the lost database/);
    expect(eventsOf(runDir)).toEqual(events);
    const verify = await runCli(["replay", "--verify", runDir]);
    expect(verify.code, verify.stdout).toBe(0);
    const replay = await runCli(["replay", runDir]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(filesUnder(runDir)).toEqual(reports);
    // And the run goes on from it: a resume reuses every job.
    const resumed = await runCli(["run", "--config", cfg, "--runs-dir", dir, "--run-id", "r"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("Resuming r: 4/4 jobs done");
  });

  it("repair leaves out a last line cut short, refuses a mirror with a hole or an events.db present, and writes nothing then", async () => {
    const { runDir } = await finishedRun();
    const events = eventsOf(runDir);
    removeLog(runDir);
    const mirrorPath = join(runDir, "events.jsonl");
    const mirror = readFileSync(mirrorPath, "utf8");

    appendFileSync(mirrorPath, '{"seq":999,"v":2,"stream":"run","posi');
    const torn = await runCli(["repair", runDir]);
    expect(torn.code, torn.stderr).toBe(0);
    expect(torn.stdout).toContain("The mirror's last line was cut short (written as the log was lost): that event is left out.");
    expect(eventsOf(runDir)).toEqual(events);

    const again = await runCli(["repair", runDir]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^trace-bench: cannot repair .*r: it has its events\.db; repair only rebuilds a missing one .*; nothing was written\n$/);

    removeLog(runDir);
    const lines = mirror.split("\n");
    writeFileSync(mirrorPath, [...lines.slice(0, 3), ...lines.slice(4)].join("\n"));
    const holed = await runCli(["repair", runDir]);
    expect(holed.code).toBe(2);
    expect(holed.stderr).toMatch(/^trace-bench: cannot repair .*r: .*events\.jsonl line 4: stream job-\w+ has no event at position \d+ .*the mirror misses events too; nothing was written\n$/);
    expect(readdirSync(runDir).filter((n) => n.startsWith("events.db"))).toEqual([]);
  });
});

describe.skipIf(!canMountReadOnly())("a run on a read-only file system", () => {
  /** `tokens --json`'s total of calls and `replay --verify`'s event count, read through the read-only mount. */
  async function readOnlyReads(dir: string, runDir: string): Promise<{ events: number; calls: number }> {
    const verify = await readOnlyCli(dir, ["replay", "--verify", runDir]);
    expect(verify.code, verify.stderr).toBe(0);
    const tokens = await readOnlyCli(dir, ["tokens", runDir, "--json"]);
    expect(tokens.code, tokens.stderr).toBe(0);
    const calls = await readOnlyCli(dir, ["calls", runDir, "--json"]);
    expect(calls.code, calls.stderr).toBe(0);
    const runs = await readOnlyCli(dir, ["runs", "--runs-dir", dir, "--json"]);
    expect(runs.code, runs.stderr).toBe(0);
    expect(runs.stderr).toBe("");
    expect((JSON.parse(runs.stdout) as { runs: { run_id: string }[] }).runs.map((r) => r.run_id)).toEqual(["r"]);
    expect((JSON.parse(calls.stdout) as { calls: unknown[] }).calls.length).toBe((JSON.parse(tokens.stdout) as { totals: { calls: { completed: number } } }).totals.calls.completed);
    return { events: Number(/: (\d+) events/.exec(verify.stdout)![1]), calls: (JSON.parse(calls.stdout) as { calls: unknown[] }).calls.length };
  }

  it("replay --verify, tokens, calls and runs read a log whose -wal and -shm are gone (a copied or checkpointed log); replay says it cannot write", async () => {
    const { dir, runDir } = await finishedRun();
    const db = new Database(join(runDir, "events.db"));
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.close(); // the last connection: the -wal and -shm files go
    expect(readdirSync(runDir).filter((n) => n.startsWith("events.db"))).toEqual(["events.db"]);
    const read = await readOnlyReads(dir, runDir);
    expect(read.events).toBe(eventsOf(runDir).length);
    expect(read.calls).toBeGreaterThan(0);
    const replay = await readOnlyCli(dir, ["replay", runDir]);
    expect(replay.code).toBe(2);
    expect(replay.stderr).toMatch(/^trace-bench: cannot write the event log .*events\.db: .*\n$/);
  });

  it("sees every committed event of a killed run that are only in its -wal, with or without its -shm", async () => {
    const dir = tempDir();
    const cfg = config(dir);
    const killed = await runCli(["run", "--config", cfg, "--runs-dir", dir, "--run-id", "r", "--max-workers", "1"], { env: { TRACE_BENCH_TEST_KILL_AFTER_SEQ: "20" } });
    expect(killed.code).toBeNull(); // SIGKILLed right after seq 20 committed
    const runDir = join(dir, "r");
    const committed = eventsOf(runDir).length;
    expect(committed).toBeGreaterThanOrEqual(20);
    // The database file alone holds fewer: the rest is committed in the -wal, not checkpointed.
    const bare = tempDir();
    writeFileSync(join(bare, "events.db"), readFileSync(join(runDir, "events.db")));
    const fileOnly = new Database(join(bare, "events.db"), { readonly: true });
    const inFile = fileOnly.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'events'").pluck().get() === 1 ? (fileOnly.prepare("SELECT count(*) FROM events").pluck().get() as number) : 0;
    fileOnly.close();
    expect(inFile).toBeLessThan(committed);

    const withShm = await readOnlyCli(dir, ["replay", "--verify", runDir]);
    expect(withShm.code, withShm.stderr).toBe(0);
    expect(withShm.stdout).toContain(`Verified r: ${committed} events`);
    rmSync(join(runDir, "events.db-shm"));
    const withoutShm = await readOnlyCli(dir, ["replay", "--verify", runDir]);
    expect(withoutShm.code, withoutShm.stderr).toBe(0);
    expect(withoutShm.stdout).toContain(`Verified r: ${committed} events`);
    const runs = await readOnlyCli(dir, ["runs", "--runs-dir", dir, "--json"]);
    expect(runs.code, runs.stderr).toBe(0);
    expect((JSON.parse(runs.stdout) as { runs: { status: string; crashed: boolean }[] }).runs).toEqual([expect.objectContaining({ status: "interrupted", crashed: true })]);
  });
});
