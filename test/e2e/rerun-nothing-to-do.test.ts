/**
 * A re-run of a finished run with nothing to do is answered from the run's record
 * (engine/nothing-to-do.ts): the same lines, JSON document and exit code as the full path, and
 * nothing appended to the log. Every condition under which the full path must be taken is tried
 * on a copy of one finished run, and the full path is seen taken (the log grows by an invocation,
 * or the full path's own refusal).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { doctoredRunDirs, tempDir } from "../support/cli.js";
import { describeRun, readEvents, runCliAsync } from "../support/crash-harness.js";

const CHILD_TIMEOUT_MS = 60_000;
const CONFIG_LINES = ["mode: stub", "seeds: [1, 2, 3, 4]", "tasks: [internal:numeric_param]", "trainers: [NoOpTrainer]"];
const RUN_ID = "finished";

let base = "";
let config = "";
/** The working directory of the finished run every case copies (its runs dir is `runs`, relative: a copy elsewhere plans the same run). */
let finishedWork = "";
/** What the first re-run of the finished run printed (answered from its record). */
let answered: Awaited<ReturnType<typeof runCliAsync>>;
let copies = 0;

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (extra.TRACE_BENCH_TEST_KILL_AFTER_SEQ === undefined) delete out.TRACE_BENCH_TEST_KILL_AFTER_SEQ;
  return out;
}

/** `run` of the config in `work` (its runs dir `runs`, the run id `finished`). */
function rerun(work: string, options: { args?: readonly string[]; config?: string; env?: NodeJS.ProcessEnv; killWhen?: () => boolean } = {}) {
  return runCliAsync(["run", "--config", options.config ?? config, "--runs-dir", "runs", "--run-id", RUN_ID, ...(options.args ?? [])], {
    cwd: work,
    env: env(options.env),
    timeoutMs: CHILD_TIMEOUT_MS,
    ...(options.killWhen ? { killWhen: options.killWhen } : {}),
  });
}

/** A copy of the finished run's working directory, times kept to the nanosecond (`cp -a`): its record still holds there. */
function copyOfFinished(): { work: string; runDir: string } {
  const work = join(base, `copy-${++copies}`);
  const copied = spawnSync("cp", ["-a", finishedWork, work]);
  if (copied.status !== 0) throw new Error(`cp -a: ${String(copied.stderr)}`);
  return { work, runDir: join(work, "runs", RUN_ID) };
}

/** A new working directory for a run of its own. */
function freshWork(name: string): { work: string; runDir: string } {
  const work = join(base, name);
  mkdirSync(work);
  return { work, runDir: join(work, "runs", RUN_ID) };
}

const lastSeq = (runDir: string) => readEvents(runDir).at(-1)!.seq;

function sql(runDir: string, statement: string, ...params: unknown[]): void {
  const db = new Database(join(runDir, "events.db"));
  try {
    db.prepare(statement).run(...params);
  } finally {
    db.close();
  }
}

/** Whether the re-run took the full path: it appended an invocation (RunStarted) to the log. */
function tookFullPath(runDir: string, before: number): boolean {
  return readEvents(runDir).some((e) => e.seq > before && e.type === "RunStarted");
}

describe("a re-run with nothing to do", () => {
  beforeAll(async () => {
    base = tempDir("trace-bench-rerun-");
    config = join(base, "rerun.yaml");
    writeFileSync(config, `${CONFIG_LINES.join("\n")}\n`);
    const finished = freshWork("finished");
    finishedWork = finished.work;
    const first = await rerun(finishedWork);
    if (first.code !== 0) throw new Error(describeRun("the first run", first));
    const runDir = finished.runDir;
    const seq = lastSeq(runDir);
    answered = await rerun(finishedWork);
    if (lastSeq(runDir) !== seq) throw new Error("the first re-run of a finished run appended to its log: it was not answered from the record");
  }, 3 * CHILD_TIMEOUT_MS);

  it("is answered from the record with the full path's lines and exit code, appending nothing", async () => {
    expect(answered.code, describeRun("answered re-run", answered)).toBe(0);
    expect(answered.stdout).toMatch(/^Resuming finished: 4\/4 jobs done\nJobs: 4 ok \(4 in the matrix, 0 run now\)\n/);
    // The same run without its record: the full path.
    const { work, runDir } = copyOfFinished();
    sql(runDir, "DELETE FROM snapshots WHERE name = 'finished-run'");
    const before = lastSeq(runDir);
    const full = await rerun(work);
    expect(tookFullPath(runDir, before)).toBe(true);
    expect({ code: full.code, stdout: full.stdout, stderr: full.stderr }).toEqual({ code: answered.code, stdout: answered.stdout, stderr: answered.stderr });
    // The full path recorded the run again: the next re-run is answered, with the same lines.
    const seq = lastSeq(runDir);
    const again = await rerun(work);
    expect(lastSeq(runDir)).toBe(seq);
    expect(again.stdout).toBe(full.stdout);
  }, 3 * CHILD_TIMEOUT_MS);

  it("--json: the same document as the full path's", async () => {
    const fast = copyOfFinished();
    const seq = lastSeq(fast.runDir);
    const json = await rerun(fast.work, { args: ["--json"] });
    expect(json.code, describeRun("--json re-run", json)).toBe(0);
    expect(lastSeq(fast.runDir)).toBe(seq);
    const full = copyOfFinished();
    sql(full.runDir, "DELETE FROM snapshots WHERE name = 'finished-run'");
    const fullJson = await rerun(full.work, { args: ["--json"] });
    expect(tookFullPath(full.runDir, seq)).toBe(true);
    expect(json.stdout).toBe(fullJson.stdout);
    expect(json.stderr).toBe(fullJson.stderr);
  }, 3 * CHILD_TIMEOUT_MS);

  /** Each case changes a copy of the finished run (or the command), then re-runs it: the full path must be taken. */
  const fallThrough: { name: string; change?: (runDir: string) => void; args?: readonly string[]; config?: () => string; check: (out: { code: number | null; stdout: string; stderr: string }, runDir: string, before: number) => void }[] = [
    {
      name: "a flag that changes how the plan runs (--max-workers)",
      args: ["--max-workers", "2"],
      check: (out, runDir, before) => {
        expect(out.stdout).toContain("0 run now");
        expect(tookFullPath(runDir, before)).toBe(true);
      },
    },
    {
      name: "a config changed in a key that is not the experiment's (fail_fast: the same run, another plan)",
      config: () => {
        const path = join(base, "fail-fast.yaml");
        writeFileSync(path, `${[...CONFIG_LINES, "fail_fast: true"].join("\n")}\n`);
        return path;
      },
      check: (out, runDir, before) => {
        expect(out.stdout).toContain("0 run now");
        expect(tookFullPath(runDir, before)).toBe(true);
      },
    },
    {
      name: "a budget cap in the config (the budget line sums the whole log)",
      config: () => {
        const path = join(base, "budget.yaml");
        writeFileSync(path, `${[...CONFIG_LINES, "budget: {max_tokens_per_run: 1000000}"].join("\n")}\n`);
        return path;
      },
      check: (out, runDir, before) => {
        expect(out.stdout).toMatch(/^Budget: max_tokens_per_run 1000000: \d+ spent/m);
        expect(tookFullPath(runDir, before)).toBe(true);
      },
    },
    {
      name: "--force (every job runs again)",
      args: ["--force"],
      check: (out, runDir, before) => {
        expect(out.stdout).toContain("4 run now");
        expect(tookFullPath(runDir, before)).toBe(true);
      },
    },
    {
      name: "--resume failed (another resume mode: another plan)",
      args: ["--resume", "failed"],
      check: (out, runDir, before) => {
        expect(out.stdout).toContain("0 run now");
        expect(tookFullPath(runDir, before)).toBe(true);
      },
    },
    {
      name: "reports recorded behind the log (a replay cut short)",
      change: (runDir) => sql(runDir, "UPDATE subscriber_positions SET position = 0 WHERE name = 'projections'"),
      check: (out, runDir, before) => {
        expect(out.code).toBe(0);
        expect(tookFullPath(runDir, before)).toBe(true);
      },
    },
    {
      name: "a report removed since the run finished (the full path writes it again)",
      change: (runDir) => rmSync(join(runDir, "results.csv")),
      check: (_out, runDir, before) => {
        expect(tookFullPath(runDir, before)).toBe(true);
        expect(readFileSync(join(runDir, "results.csv"), "utf8").trim().split("\n")).toHaveLength(5);
      },
    },
    {
      name: "the run's mirror cut short (the full path mends it from the log)",
      change: (runDir) => {
        const mirror = join(runDir, "events.jsonl");
        const text = readFileSync(mirror, "utf8");
        truncateSync(mirror, Buffer.byteLength(text.slice(0, text.lastIndexOf("\n", text.length - 2) + 1)));
      },
      check: (_out, runDir, before) => {
        expect(tookFullPath(runDir, before)).toBe(true);
        const lines = readFileSync(join(runDir, "events.jsonl"), "utf8").trim().split("\n");
        expect(lines.map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual(readEvents(runDir).map((e) => e.seq));
      },
    },
    {
      name: "a report touched since the run finished (same size, another time)",
      change: (runDir) => utimesSync(join(runDir, "summary.json"), new Date(), new Date(Date.now() + 5_000)),
      check: (out, runDir, before) => {
        expect(out.code).toBe(0);
        expect(tookFullPath(runDir, before)).toBe(true);
      },
    },
    {
      name: "a record written by another trace-bench build",
      change: (runDir) => sql(runDir, "UPDATE snapshots SET format = 'another build' WHERE name = 'finished-run'"),
      check: (out, runDir, before) => {
        expect(out.code).toBe(0);
        expect(tookFullPath(runDir, before)).toBe(true);
      },
    },
    {
      name: "a record saved before the machine rebooted (the files it vouches for were not synced)",
      change: (runDir) => sql(runDir, "UPDATE snapshots SET data = json_set(data, '$.boot', 'an earlier boot') WHERE name = 'finished-run'"),
      check: (out, runDir, before) => {
        expect(out.code).toBe(0);
        expect(tookFullPath(runDir, before)).toBe(true);
      },
    },
    {
      name: "an event removed from the log (the full path refuses the damaged log)",
      change: (runDir) => {
        doctoredRunDirs.add(runDir);
        // A job's first event: its stream has a hole, which the writer refuses.
        sql(runDir, "DELETE FROM events WHERE seq = (SELECT MIN(seq) FROM events WHERE job_id IS NOT NULL)");
      },
      check: (out) => {
        expect(out.code).toBe(2);
        expect(out.stderr).toMatch(/damaged|removed/);
      },
    },
    {
      name: "a live process holding the writer lock (the full path says so)",
      change: (runDir) => sql(runDir, "INSERT OR REPLACE INTO writer (id, pid, host, process_start, started_at, command) VALUES (1, ?, ?, NULL, ?, 'trace-bench run')", process.pid, hostname(), new Date().toISOString()),
      check: (out) => {
        expect(out.code).toBe(2);
        expect(out.stderr).toMatch(/lock|being written|another/i);
      },
    },
  ];

  for (const testCase of fallThrough) {
    it(`takes the full path on ${testCase.name}`, async () => {
      const { work, runDir } = copyOfFinished();
      const before = lastSeq(runDir);
      testCase.change?.(runDir);
      const out = await rerun(work, { ...(testCase.args ? { args: testCase.args } : {}), ...(testCase.config ? { config: testCase.config() } : {}) });
      testCase.check(out, runDir, before);
    }, 2 * CHILD_TIMEOUT_MS);
  }

  describe("answered again on the main thread (cli/answered-rerun.ts)", () => {
    const NOTE = { TRACE_BENCH_TEST_NOTE_ANSWERED_RERUN: "1" };
    const noted = (stderr: string) => stderr.includes("(answered on the main thread)");
    const unnoted = (stderr: string) => stderr.replace("(answered on the main thread)\n", "");

    /** A copy of the finished run re-run once (answered from the record, which saves the answer): the next identical re-run is answered as saved. */
    async function copyAnsweredOnce(args: readonly string[] = []) {
      const copy = copyOfFinished();
      const first = await rerun(copy.work, { args, env: NOTE });
      if (first.code !== 0 || noted(first.stderr)) throw new Error(describeRun("the copy's first re-run", first));
      return { ...copy, first };
    }

    it("answers the first re-run after the run finished (the run saved its answer), as the record answers it", async () => {
      const { work, runDir } = freshWork("answered-first");
      const first = await rerun(work, { env: NOTE });
      expect(first.code, describeRun("the first run", first)).toBe(0);
      const seq = lastSeq(runDir);
      const again = await rerun(work, { env: NOTE });
      expect(noted(again.stderr), describeRun("first re-run", again)).toBe(true);
      // The same run dir, run id and config as the finished run's: the same lines as its record's answer.
      expect({ code: again.code, stdout: again.stdout, stderr: unnoted(again.stderr) }).toEqual({ code: answered.code, stdout: answered.stdout, stderr: answered.stderr });
      expect(lastSeq(runDir)).toBe(seq);
    }, 3 * CHILD_TIMEOUT_MS);

    it("prints what the record's answer printed, text and --json, appending nothing", async () => {
      for (const args of [[], ["--json"]]) {
        const { work, runDir, first } = await copyAnsweredOnce(args);
        const seq = lastSeq(runDir);
        const again = await rerun(work, { args, env: NOTE });
        expect(noted(again.stderr), describeRun("second re-run", again)).toBe(true);
        expect({ code: again.code, stdout: again.stdout, stderr: unnoted(again.stderr) }).toEqual({ code: first.code, stdout: first.stdout, stderr: first.stderr });
        expect(lastSeq(runDir)).toBe(seq);
      }
      // Each is the full path's output (the first test compares the record's answer with it).
      expect(answered.stdout).toMatch(/^Resuming finished: 4\/4 jobs done\n/);
    }, 4 * CHILD_TIMEOUT_MS);

    /** Each case changes what the saved answer was made from: the run verb decides again (its answer, or the full path). */
    const changes: { name: string; change?: (runDir: string, work: string) => void; args?: readonly string[]; env?: NodeJS.ProcessEnv; config?: () => string; fullPath?: boolean }[] = [
      { name: "another flag (--json)", args: ["--json"] },
      { name: "an environment variable changed", env: { TRACE_BENCH_SOME_SETTING: "x" } },
      {
        name: "the config's bytes changed (a comment: the same plan, answered from the record)",
        config: () => {
          mkdirSync(join(base, "commented"), { recursive: true });
          const path = join(base, "commented", "rerun.yaml");
          writeFileSync(path, `# a comment\n${CONFIG_LINES.join("\n")}\n`);
          return path;
        },
      },
      { name: "a report touched (same size, another time)", change: (runDir) => utimesSync(join(runDir, "summary.json"), new Date(), new Date(Date.now() + 5_000)), fullPath: true },
      {
        name: "the log written to (reports recorded behind it)",
        change: (runDir) => sql(runDir, "UPDATE subscriber_positions SET position = 0 WHERE name = 'projections'"),
        fullPath: true,
      },
      {
        name: "the saved answer made for another run dir",
        change: (runDir) => {
          const folder = join(runDir, ".rerun-answers");
          for (const name of readdirSync(folder).filter((n) => n.startsWith("answered-rerun-"))) {
            const path = join(folder, name);
            writeFileSync(path, JSON.stringify({ ...(JSON.parse(readFileSync(path, "utf8")) as object), runDir: "/elsewhere" }));
          }
        },
      },
    ];

    for (const testCase of changes) {
      it(`decides again on ${testCase.name}`, async () => {
        const { work, runDir, first } = await copyAnsweredOnce();
        const before = lastSeq(runDir);
        testCase.change?.(runDir, work);
        const out = await rerun(work, { ...(testCase.args ? { args: testCase.args } : {}), ...(testCase.config ? { config: testCase.config() } : {}), env: { ...NOTE, ...testCase.env } });
        expect(noted(out.stderr), describeRun("re-run", out)).toBe(false);
        expect(out.code).toBe(0);
        expect(tookFullPath(runDir, before)).toBe(testCase.fullPath === true);
        if (testCase.args === undefined) expect(out.stdout).toBe(first.stdout);
      }, 3 * CHILD_TIMEOUT_MS);
    }

    it("decides again when a live writer holds the lock (the full path says so)", async () => {
      const { work, runDir } = await copyAnsweredOnce();
      sql(runDir, "INSERT OR REPLACE INTO writer (id, pid, host, process_start, started_at, command) VALUES (1, ?, ?, NULL, ?, 'trace-bench run')", process.pid, hostname(), new Date().toISOString());
      const out = await rerun(work, { env: NOTE });
      expect(noted(out.stderr)).toBe(false);
      expect(out.code).toBe(2);
    }, 3 * CHILD_TIMEOUT_MS);
    /** The saved answers' files and their times to the nanosecond (a re-run that checks the log again saves its answer again). */
    const savedAnswers = (runDir: string) => {
      const answers = join(runDir, ".rerun-answers");
      return readdirSync(answers).map((name) => ({ name, text: readFileSync(join(answers, name), "utf8"), mtime: statSync(join(answers, name), { bigint: true }).mtimeNs }));
    };

    it("answers from the stats alone after a replay wrote the log: the replay checked the log as the re-run would, and saved the answer again", async () => {
      const { work, runDir, first } = await copyAnsweredOnce();
      const seq = lastSeq(runDir);
      const savedBefore = savedAnswers(runDir);
      const replayed = await runCliAsync(["replay", join("runs", RUN_ID)], { cwd: work, env: env(), timeoutMs: CHILD_TIMEOUT_MS });
      expect(replayed.code, describeRun("replay", replayed)).toBe(0);
      expect(replayed.stdout).not.toMatch(/Kept/);
      // Saved again by the replay, under the log as it left it.
      const savedByReplay = savedAnswers(runDir);
      expect(savedByReplay.map((a) => a.name)).toEqual(savedBefore.map((a) => a.name));
      expect(savedByReplay.map((a) => a.text)).not.toEqual(savedBefore.map((a) => a.text));
      const again = await rerun(work, { env: NOTE });
      expect(noted(again.stderr), describeRun("re-run after the replay", again)).toBe(true);
      expect({ code: again.code, stdout: again.stdout, stderr: unnoted(again.stderr) }).toEqual({ code: first.code, stdout: first.stdout, stderr: first.stderr });
      expect(lastSeq(runDir)).toBe(seq);
      // From the stats: a re-run that checked the log again would have saved its answer again.
      expect(savedAnswers(runDir)).toEqual(savedByReplay);
    }, 4 * CHILD_TIMEOUT_MS);

    /** Each case changes the run dir after a replay saved the answers again: the re-run does the work or refuses. */
    const changedAfterReplay: { name: string; change: (runDir: string) => void; fullPath: boolean; code?: number }[] = [
      { name: "a report touched", change: (runDir) => utimesSync(join(runDir, "summary.json"), new Date(), new Date(Date.now() + 5_000)), fullPath: true },
      {
        name: "an event removed",
        change: (runDir) => {
          doctoredRunDirs.add(runDir);
          sql(runDir, "DELETE FROM events WHERE seq = (SELECT MIN(seq) FROM events WHERE job_id IS NOT NULL)");
        },
        fullPath: false,
        code: 2,
      },
      { name: "reports recorded behind the log", change: (runDir) => sql(runDir, "UPDATE subscriber_positions SET position = 0 WHERE name = 'projections'"), fullPath: true },
    ];
    for (const testCase of changedAfterReplay) {
      it(`decides again when, after a replay, ${testCase.name}`, async () => {
        const { work, runDir } = await copyAnsweredOnce();
        const replayed = await runCliAsync(["replay", join("runs", RUN_ID)], { cwd: work, env: env(), timeoutMs: CHILD_TIMEOUT_MS });
        expect(replayed.code, describeRun("replay", replayed)).toBe(0);
        const before = lastSeq(runDir);
        testCase.change(runDir);
        const out = await rerun(work, { env: NOTE });
        expect(noted(out.stderr), describeRun("re-run", out)).toBe(false);
        expect(out.code).toBe(testCase.code ?? 0);
        expect(tookFullPath(runDir, before)).toBe(testCase.fullPath);
      }, 4 * CHILD_TIMEOUT_MS);
    }

    it("a replay of a run whose log no longer vouches for the saved answer does not save it again", async () => {
      const { work, runDir } = await copyAnsweredOnce();
      // Another closing block in the record: the saved answer was made from another.
      sql(runDir, "UPDATE snapshots SET data = json_set(data, '$.summary.doctored', 1) WHERE name = 'finished-run'");
      const savedBefore = savedAnswers(runDir);
      const replayed = await runCliAsync(["replay", join("runs", RUN_ID)], { cwd: work, env: env(), timeoutMs: CHILD_TIMEOUT_MS });
      expect(replayed.code, describeRun("replay", replayed)).toBe(0);
      expect(savedAnswers(runDir)).toEqual(savedBefore);
      const out = await rerun(work, { env: NOTE });
      expect(noted(out.stderr), describeRun("re-run", out)).toBe(false);
      expect(out.code).toBe(0);
    }, 4 * CHILD_TIMEOUT_MS);

    /** Each case writes the log (its times change) and changes what the answer stands on: the check from the log refuses it. */
    const writtenAndChanged: { name: string; change: (runDir: string) => void; fullPath: boolean; code?: number }[] = [
      { name: "the log touched, nothing else changed (answered)", change: () => {}, fullPath: false },
      { name: "a report touched", change: (runDir) => utimesSync(join(runDir, "summary.json"), new Date(), new Date(Date.now() + 5_000)), fullPath: true },
      { name: "the record's answer changed (another closing block)", change: (runDir) => sql(runDir, "UPDATE snapshots SET data = json_set(data, '$.summary.doctored', 1) WHERE name = 'finished-run'"), fullPath: false },
      { name: "an event removed", change: (runDir) => {
          doctoredRunDirs.add(runDir);
          sql(runDir, "DELETE FROM events WHERE seq = (SELECT MIN(seq) FROM events WHERE job_id IS NOT NULL)");
        }, fullPath: false, code: 2 },
    ];
    for (const testCase of writtenAndChanged) {
      it(`checks the log again when it was written: ${testCase.name}`, async () => {
        const { work, runDir, first } = await copyAnsweredOnce();
        const before = lastSeq(runDir);
        testCase.change(runDir);
        utimesSync(join(runDir, "events.db"), new Date(), new Date(Date.now() + 5_000));
        const out = await rerun(work, { env: NOTE });
        const answeredAgain = testCase.name.endsWith("(answered)");
        expect(noted(out.stderr), describeRun("re-run", out)).toBe(answeredAgain);
        expect(out.code).toBe(testCase.code ?? 0);
        expect(tookFullPath(runDir, before)).toBe(testCase.fullPath);
        if (answeredAgain) expect(out.stdout).toBe(first.stdout);
      }, 3 * CHILD_TIMEOUT_MS);
    }
  });

  it("takes the full path on a run killed right after RunFinished committed (no record was written)", async () => {
    const { work, runDir } = copyOfFinished();
    // The same run again, killed as its second invocation's RunFinished commits.
    const finishedAt = lastSeq(runDir) + 2;
    sql(runDir, "DELETE FROM snapshots WHERE name = 'finished-run'");
    const killed = await rerun(work, { env: { TRACE_BENCH_TEST_KILL_AFTER_SEQ: String(finishedAt) } });
    expect(killed.signal, describeRun("killed re-run", killed)).toBe("SIGKILL");
    expect(readEvents(runDir).at(-1)).toMatchObject({ seq: finishedAt, type: "RunFinished" });
    const out = await rerun(work);
    expect(out.code, describeRun("re-run after the kill", out)).toBe(0);
    expect(tookFullPath(runDir, finishedAt)).toBe(true);
    // The mirror line the kill left unwritten is there now.
    const mirror = readFileSync(join(runDir, "events.jsonl"), "utf8").trim().split("\n");
    expect(mirror).toHaveLength(readEvents(runDir).length);
  }, 4 * CHILD_TIMEOUT_MS);

  it("takes the full path on a run whose last invocation was interrupted", async () => {
    const { work, runDir } = freshWork("interrupted");
    // Killed as its third event commits, one job at a time: the invocation is left unfinished.
    const killed = await rerun(work, { args: ["--max-workers", "1"], env: { TRACE_BENCH_TEST_KILL_AFTER_SEQ: "3" } });
    expect(killed.signal, describeRun("killed run", killed)).toBe("SIGKILL");
    // Its jobs may all have finished in the groups committed with it; the invocation did not.
    expect(readEvents(runDir).some((e) => e.type === "RunFinished")).toBe(false);
    const before = lastSeq(runDir);
    const out = await rerun(work);
    expect(out.code, describeRun("resumed run", out)).toBe(0);
    expect(tookFullPath(runDir, before)).toBe(true);
    expect(out.stdout).toMatch(/Jobs: 4 ok \(4 in the matrix, [0-4] run now\)/);
  }, 3 * CHILD_TIMEOUT_MS);
});
