/**
 * Logs written by older builds stay readable: each run directory of the old-log corpus
 * (test/fixtures/old-logs, one per epoch of the log's format) is replayed from a copy by today's
 * CLI, `replay --verify` passes, and every rebuilt file is byte-identical to the one the old build
 * wrote, or to the committed rendering where today's renderers legitimately differ (the corpus's
 * README says why, file by file).
 */
import { cpSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { EVENT_SCHEMA_VERSION } from "../../src/events/event-schema.js";
import { REPO_ROOT, runCli, tempDir } from "../support/cli.js";
import { csvRows, filesUnder } from "../support/run-dir.js";

const CORPUS = join(REPO_ROOT, "test", "fixtures", "old-logs");
const WRITTEN = join(CORPUS, "written");
const REPLAYED = join(CORPUS, "replayed");
const RUNS = readdirSync(WRITTEN).sort();

/** The schema a run's name says it was written with (`v1-…`, `v2-…`): `user_version` 0 is schema 1. */
const schemaNamed = (run: string) => Number(/^v(\d+)-/.exec(run)![1]);
function schemaOf(runDir: string): number {
  const db = new Database(join(runDir, "events.db"), { fileMustExist: true });
  try {
    return (db.pragma("user_version", { simple: true }) as number) || 1;
  } finally {
    db.close();
  }
}

describe("the old-log corpus", () => {
  it("holds a log of every schema up to today's", () => {
    expect([...new Set(RUNS.map(schemaNamed))].sort()).toEqual(Array.from({ length: EVENT_SCHEMA_VERSION }, (_, i) => i + 1));
  });

  it.each(RUNS)("%s: replay --verify passes and replay rebuilds every file as committed", async (run) => {
    const runDir = join(tempDir(), run);
    cpSync(join(WRITTEN, run), runDir, { recursive: true });
    expect(schemaOf(runDir), "the run's name gives the schema its log was written with").toBe(schemaNamed(run));

    const verify = await runCli(["replay", "--verify", runDir]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/all as the job machine decides/);
    const replay = await runCli(["replay", runDir]);
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);

    const written = filesUnder(join(WRITTEN, run));
    const renderedToday = existsSync(join(REPLAYED, run)) ? filesUnder(join(REPLAYED, run)) : new Map<string, string>();
    for (const [path, text] of renderedToday) {
      expect(text, `replayed/${run}/${path} is kept only where today's rendering differs from the written one`).not.toBe(written.get(path));
    }
    const expected = new Map([...written, ...renderedToday]);
    const rebuilt = filesUnder(runDir);
    expect([...rebuilt.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [path, text] of rebuilt) expect(text, `${run}/${path}`).toBe(expected.get(path));

    // New results.csv columns only ever go after the ones an older build wrote, with the same values.
    const before = csvRows(join(WRITTEN, run, "results.csv"));
    const after = csvRows(join(runDir, "results.csv"));
    expect(after.map((row) => Object.fromEntries(Object.keys(before[0]!).map((column) => [column, row[column]])))).toEqual(before);
    expect(Object.keys(after[0]!).slice(0, Object.keys(before[0]!).length)).toEqual(Object.keys(before[0]!));
  });
});
