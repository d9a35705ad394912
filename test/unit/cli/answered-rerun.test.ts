/**
 * When an answer to a re-run is saved, and when a saved one is used (cli/answered-rerun.ts): the
 * conditions the e2e test (test/e2e/rerun-nothing-to-do.test.ts) cannot reach cheaply, on a run
 * dir made of plain files (no run is needed: the stamps are of files, not of their content).
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { answerSavedRerun, logStamp, noteInvocation, saveAnsweredRerun } from "../../../src/cli/answered-rerun.js";

let dir = "";
let runDir = "";
let argv: string[] = [];
const env = { SOME_SETTING: "a", MY_LLM_KEY: "secret" };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "trace-bench-answered-"));
  runDir = join(dir, "runs", "r1");
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, "events.db"), "a log");
  writeFileSync(join(runDir, "summary.json"), "{}");
  const config = join(dir, "c.yaml");
  writeFileSync(config, "mode: stub\nseeds: [1]\ntasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n");
  argv = ["--config", config, "--runs-dir", join(dir, "runs"), "--run-id", "r1"];
});

afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** Saves an answer (one line on stdout, exit 1) as the run verb would after answering `argv`. */
function save(options: { suites?: string[]; argv?: string[]; env?: NodeJS.ProcessEnv } = {}): void {
  noteInvocation(options.argv ?? argv);
  saveAnsweredRerun(
    {
      runDir,
      logBefore: logStamp(runDir),
      files: { "summary.json": [2, statSync(join(runDir, "summary.json")).mtimeMs] },
      record: "the record's answer",
      suites: new Set(options.suites ?? ["internal"]),
      writes: [["stdout", "the answer\n"]],
      exitCode: 1,
    },
    options.env ?? env,
  );
}

/** `answerSavedRerun` with stdout captured: its exit code and what it printed. */
async function answer(options: { argv?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number | null; printed: string }> {
  let printed = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: unknown) => {
    printed += String(chunk);
    return true;
  });
  const code = await answerSavedRerun(options.argv ?? argv, options.env ?? env);
  vi.restoreAllMocks();
  return { code, printed };
}

describe("an answered re-run", () => {
  it("is answered as saved by an identical invocation on the same files", async () => {
    save();
    expect(await answer()).toEqual({ code: 1, printed: "the answer\n" });
  });

  it("is not used by another invocation, environment or config", async () => {
    save();
    expect((await answer({ argv: [...argv, "--json"] })).code).toBeNull();
    expect((await answer({ env: { ...env, SOME_SETTING: "b" } })).code).toBeNull();
    // A secret's value is not part of the key (only whether it is set).
    expect((await answer({ env: { ...env, MY_LLM_KEY: "another" } })).code).toBe(1);
    expect((await answer({ env: { SOME_SETTING: "a" } })).code).toBeNull();
    // What a shell keeps of itself is not part of it.
    expect((await answer({ env: { ...env, SHLVL: "3", OLDPWD: "/elsewhere", _: "/usr/bin/env" } })).code).toBe(1);
    writeFileSync(argv[1]!, "mode: stub\nseeds: [1, 2]\ntasks: [internal:numeric_param]\ntrainers: [NoOpTrainer]\n");
    expect((await answer()).code).toBeNull();
  });

  it("is not used once the log has WAL frames or a journal, or was replaced or written", async () => {
    save();
    writeFileSync(join(runDir, "events.db-wal"), "");
    expect((await answer()).code).toBe(1);
    writeFileSync(join(runDir, "events.db-wal"), "frames");
    expect((await answer()).code).toBeNull();
    rmSync(join(runDir, "events.db-wal"));
    writeFileSync(join(runDir, "events.db-journal"), "");
    expect((await answer()).code).toBeNull();
    rmSync(join(runDir, "events.db-journal"));
    expect((await answer()).code).toBe(1);
    // The same bytes in another file (a copy, a restore): another inode.
    rmSync(join(runDir, "events.db"));
    writeFileSync(join(runDir, "events.db"), "a log");
    expect((await answer()).code).toBeNull();
  });

  it("is not used once a vouched file changed", async () => {
    save();
    writeFileSync(join(runDir, "summary.json"), "{}\n");
    expect((await answer()).code).toBeNull();
  });

  it("is not saved for tasks whose suites read the user's files, task modules of the user's, or --root", async () => {
    save({ suites: ["internal", "llm4ad"] });
    expect((await answer()).code).toBeNull();
    save({ env: { ...env, TRACE_BENCH_TASK_MODULES: "/x/suite.js" } });
    expect((await answer({ env: { ...env, TRACE_BENCH_TASK_MODULES: "/x/suite.js" } })).code).toBeNull();
    const withRoot = [...argv, "--root", dir];
    save({ argv: withRoot });
    expect((await answer({ argv: withRoot })).code).toBeNull();
  });

  it("is not saved when the log changed while the answer was made", async () => {
    noteInvocation(argv);
    const logBefore = logStamp(runDir);
    writeFileSync(join(runDir, "events.db"), "a log, longer");
    saveAnsweredRerun({ runDir, logBefore, files: {}, record: "the record's answer", suites: new Set(["internal"]), writes: [["stdout", "x\n"]], exitCode: 0 }, env);
    expect((await answer()).code).toBeNull();
  });
});
