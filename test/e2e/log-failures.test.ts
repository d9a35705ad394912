/**
 * Every failure of the event log is one line and exit 2 (1 for `replay --verify`, a check), never
 * an internal error, and nothing recorded is lost or changed: runs racing on a new run dir, an
 * empty or foreign `events.db`, events removed from the log, a page-corrupted database, a runs
 * dir on a read-only file system. Through the real CLI and real SQLite.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { doctoredRunDirs, REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { runCliAsync } from "../support/crash-harness.js";
import { canMountReadOnly, readOnlyCli } from "../support/read-only-mount.js";
import { repeats } from "../support/repeats.js";
import { eventsOf } from "../support/run-dir.js";

function config(dir: string, seeds = 1): string {
  const path = join(dir, "config.yaml");
  writeFileSync(path, `mode: stub\nseeds: [${Array.from({ length: seeds }, (_, i) => i + 1).join(", ")}]\ntasks: [internal:numeric_param, internal:multi_param]\ntrainers: [NoOpTrainer]\n`);
  return path;
}

/** One finished run `r` of 8 seeds × 2 trivial jobs (enough for a page of job events in the middle of its log), made once per file. */
let finished = "";
beforeAll(async () => {
  finished = tempDir();
  // Not spawnSync: a worker blocked that long on a busy machine misses vitest's calls.
  const r = await runCliAsync(["run", "--config", config(finished, 8), "--runs-dir", finished, "--run-id", "r"], { cwd: REPO_ROOT, env: process.env, timeoutMs: 120_000 });
  expect(r.code, r.stderr).toBe(0);
});

/** A copy of the finished run `r`, with its config, under a fresh runs dir: each test doctors its own. */
function finishedRun(): { dir: string; cfg: string; runDir: string } {
  const dir = tempDir();
  cpSync(finished, dir, { recursive: true });
  return { dir, cfg: join(dir, "config.yaml"), runDir: join(dir, "r") };
}

/** The one line a user error prints: `trace-bench: ...` and nothing else, no stack. */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split("\n");
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^trace-bench: /);
  expect(lines[0]).not.toMatch(/internal error/);
  return lines[0]!;
}

const sql = (runDir: string, statement: string) => {
  const db = new Database(join(runDir, "events.db"));
  try {
    db.exec(statement);
  } finally {
    db.close();
  }
};

describe("runs racing on a new run dir", () => {
  // A race: each round gives the old fault (a racer reading the winner's half-made log) a chance.
  const rounds = repeats(5, 2);
  it(`started at the same instant, one wins and the others exit 2 with one line (${rounds} rounds)`, { timeout: 600_000 }, async () => {
    for (let round = 0; round < rounds; round++) {
      const dir = tempDir();
      const cfg = config(dir);
      const racers = await Promise.all(
        Array.from({ length: 6 }, () => runCliAsync(["run", "--config", cfg, "--runs-dir", dir, "--run-id", "race"], { cwd: REPO_ROOT, env: process.env, timeoutMs: 120_000 })),
      );
      for (const racer of racers) {
        expect([0, 2], racer.stderr).toContain(racer.code);
        if (racer.code === 2) expect(oneLine(racer.stderr)).toMatch(/race is being written by pid \d+|race was started by another trace-bench process while this one was starting/);
      }
      expect(racers.filter((r) => r.code === 0).length).toBeGreaterThan(0);
      // Each job ran once: a racer that came after the winner finished resumed it and ran nothing.
      expect(eventsOf(join(dir, "race")).filter((e) => e.type === "JobFinished")).toHaveLength(2);
    }
  });
});

describe("an events.db that is no trace-bench log", () => {
  for (const [what, make] of [
    ["an empty (0-byte) file", (path: string) => writeFileSync(path, "")],
    [
      "a foreign SQLite database",
      (path: string) => {
        const db = new Database(path);
        db.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')");
        db.close();
      },
    ],
  ] as const) {
    it(`${what} is refused by every verb with one line naming it, and left untouched`, async () => {
      const dir = tempDir();
      const cfg = config(dir);
      const runDir = join(dir, "x");
      const log = join(runDir, "events.db");
      mkdirSync(runDir);
      make(log);
      doctoredRunDirs.add(runDir);
      const before = readFileSync(log);
      const problem = what.startsWith("an empty") ? /x\/events\.db: the file is empty \(0 bytes.*\), not an event log; nothing was changed: move it away/ : /x\/events\.db: not a trace-bench event log/;
      for (const args of [["run", "--config", cfg, "--runs-dir", dir, "--run-id", "x"], ["replay", runDir], ["replay", "--verify", runDir], ["tokens", runDir], ["calls", runDir]]) {
        const r = await runCli(args);
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
        expect(oneLine(r.stderr)).toMatch(problem);
        expect(readFileSync(log).equals(before)).toBe(true);
        expect(readdirSync(runDir)).toEqual(["events.db"]);
      }
      const runs = await runCli(["runs", "--runs-dir", dir]);
      expect(runs.code).toBe(0);
      expect(runs.stderr).toMatch(new RegExp(`warning: skipping .*x: .*${problem.source}`));
      expect(readFileSync(log).equals(before)).toBe(true);
    });
  }
});

describe("events removed from the log", () => {
  const jobRow = (runDir: string, type: string) => {
    const db = new Database(join(runDir, "events.db"), { readonly: true });
    try {
      return db.prepare("SELECT seq, stream, position FROM events WHERE type = ? AND job_id IS NOT NULL ORDER BY seq LIMIT 1").get(type) as { seq: number; stream: string; position: number };
    } finally {
      db.close();
    }
  };

  for (const type of ["JobQueued", "EvaluationCompleted"]) {
    it(`a ${type} row deleted: a hole in its stream, said in one line naming the stream and position (replay 2, --verify 1)`, async () => {
      const { runDir } = await finishedRun();
      doctoredRunDirs.add(runDir);
      const row = jobRow(runDir, type);
      sql(runDir, `DELETE FROM events WHERE seq = ${row.seq}`);
      const results = readFileSync(join(runDir, "results.csv"));
      const hole = `stream ${row.stream} has no event at position ${row.position} (the log holds position ${row.position + 1} next): an event was removed and the log is damaged`;

      const replay = await runCli(["replay", runDir]);
      expect(replay.code, replay.stderr).toBe(2);
      expect(oneLine(replay.stderr)).toContain(`events.db: ${hole}; restore it from a backup, or move it away`);
      expect(readFileSync(join(runDir, "results.csv")).equals(results)).toBe(true); // nothing rewritten from a damaged log

      const verify = await runCli(["replay", "--verify", runDir]);
      expect(verify.code, verify.stderr).toBe(1);
      expect(verify.stderr).toBe("");
      expect(verify.stdout).toBe(`event ${row.seq + 1} (job ${row.stream.slice(4)}): ${hole}\n1 problem(s) in r\n`);

      for (const verb of ["tokens", "calls"]) {
        const r = await runCli([verb, runDir]);
        expect(r.code, r.stderr).toBe(2);
        expect(oneLine(r.stderr)).toContain(hole);
      }
    });
  }

  it("the last event deleted (RunFinished): the log had given out its seq, so it is said to be damaged", async () => {
    const { runDir } = await finishedRun();
    doctoredRunDirs.add(runDir);
    const last = eventsOf(runDir).at(-1)!;
    expect(last.type).toBe("RunFinished");
    sql(runDir, `DELETE FROM events WHERE seq = ${last.seq}`);
    const tail = `the log ends at seq ${last.seq - 1} but had recorded up to seq ${last.seq}: its last event(s) were removed and the log is damaged`;
    const verify = await runCli(["replay", "--verify", runDir]);
    expect(verify.code).toBe(1);
    expect(verify.stdout).toContain(`event ${last.seq}: ${tail}`);
    const replay = await runCli(["replay", runDir]);
    expect(replay.code).toBe(2);
    expect(oneLine(replay.stderr)).toContain(tail);
  });
});

describe("a page-corrupted events.db", () => {
  it("is never resumed: the writer's quick_check refuses it with one line and writes nothing", async () => {
    const { dir, cfg, runDir } = await finishedRun();
    doctoredRunDirs.add(runDir);
    const log = join(runDir, "events.db");
    // Everything in the database file itself, then the cell pointers of a leaf page in the middle of
    // the events table broken: a page of job events that neither the resume scan nor the resume reads.
    const db = new Database(log);
    db.pragma("wal_checkpoint(TRUNCATE)");
    const leaves = db.prepare("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY path").pluck().all() as number[];
    const pageSize = db.pragma("page_size", { simple: true }) as number;
    db.close();
    expect(leaves.length).toBeGreaterThanOrEqual(3);
    const page = leaves[Math.floor(leaves.length / 2)]!;
    const bytes = readFileSync(log);
    bytes.fill(0xab, (page - 1) * pageSize + 8, (page - 1) * pageSize + 72);
    writeFileSync(log, bytes);
    const events = readFileSync(join(runDir, "events.jsonl"));

    const again = await runCli(["run", "--config", cfg, "--runs-dir", dir, "--run-id", "r"]);
    expect(again.code, again.stdout + again.stderr).toBe(2);
    expect(oneLine(again.stderr)).toMatch(/r\/events\.db: the database is damaged \(SQLite's quick_check: .*\); nothing was written: restore it from a backup, or move it away \(with its -wal and -shm files\) and rebuild it from its mirror with 'trace-bench repair .*r'$/);
    expect(readFileSync(log).equals(bytes)).toBe(true);
    expect(readFileSync(join(runDir, "events.jsonl")).equals(events)).toBe(true);
  });
});

describe.skipIf(!canMountReadOnly())("a runs dir on a read-only file system", () => {
  it("a new run, or one with --run-id, is one line and exit 2", async () => {
    const dir = tempDir();
    const cfg = config(dir);
    const runsDir = join(dir, "runs");
    await runCli(["run", "--config", cfg, "--runs-dir", runsDir, "--run-id", "first"]);
    for (const args of [
      ["run", "--config", cfg, "--runs-dir", runsDir, "--force"],
      ["run", "--config", cfg, "--runs-dir", runsDir, "--run-id", "second"],
      ["run", "--config", cfg, "--runs-dir", join(runsDir, "not-yet")],
    ]) {
      const r = await readOnlyCli(dir, args);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(oneLine(r.stderr)).toMatch(/read-only|EROFS/);
    }
  });
});
