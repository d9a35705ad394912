/**
 * `replayRun` on a log of two invocations whose jobs interleave: it settles each job at its last
 * event, yet every file is what rendering the whole log's fold produces (a job that finished
 * before a later invocation started shows that invocation's LLM columns), and it keeps no job's
 * details once settled.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { replayRun } from "../../../src/cli/replay.js";
import type { NewEvent } from "../../../src/events/event-schema.js";
import { EventStore } from "../../../src/events/event-store.js";
import { mirrorLine } from "../../../src/events/log-database.js";
import { jobMirrorPath, RUN_MIRROR } from "../../../src/events/mirror-writer.js";
import { PROJECTIONS } from "../../../src/events/projection-subscriber.js";
import { PROJECTION_TEMP_DIR, renderProjections } from "../../../src/events/projection-writer.js";
import { RunState } from "../../../src/events/run-state.js";
import { tempDir } from "../../support/cli.js";
import { appendEvents, finishedJob, RUN_ID, runStarted } from "../../support/events.js";

const stores: EventStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

/** Invocation 1 (model m1): a finishes, c is queued and never finishes. Invocation 2 (model m2): b and d run interleaved. */
function twoInvocations(): { dir: string } {
  const dir = tempDir();
  const store = EventStore.open(dir, RUN_ID, { command: "test" });
  const jobs = ["a", "b", "c", "d"];
  const withModel = (event: NewEvent, model: string): NewEvent => ({ ...event, data: { ...event.data, llm: { llm_provider: "stub", llm_model: model, llm_base_url: "" } } } as NewEvent);
  const [b, d] = [finishedJob("b"), finishedJob("d")];
  const interleaved = b.flatMap((event, i) => [event, d[i]!]);
  appendEvents(store, [
    withModel(runStarted(jobs, 1), "m1"),
    ...finishedJob("a"),
    { type: "JobQueued", job_id: "c", data: { attempt: 1, invocation: 1 } },
    withModel(runStarted(jobs, 2), "m2"),
    ...interleaved,
  ]);
  store.close();
  return { dir };
}

describe("replayRun", () => {
  it("writes every file as the whole log's fold renders it, mirrors included, and keeps and lists what the log does not produce", async () => {
    const { dir } = twoInvocations();
    mkdirSync(join(dir, "jobs", "a", "artifacts"), { recursive: true });
    writeFileSync(join(dir, "jobs", "a", "artifacts", "notes.txt"), "not from the log");
    writeFileSync(join(dir, "jobs", "a", "events.jsonl"), "garbage\n");
    writeFileSync(join(dir, RUN_MIRROR), "garbage\n");
    writeFileSync(join(dir, "NOTES.md"), "my notes");
    mkdirSync(join(dir, "plots"));
    writeFileSync(join(dir, "plots", "curve.png"), "png");

    const { state, strays, movedTo } = await replayRun(dir);

    const reader = EventStore.open(dir, RUN_ID, { command: "test" });
    stores.push(reader);
    const rows = reader.rowsAfter(0);
    const expected = renderProjections(RunState.fold(reader.readAfter(0)));
    for (const [path, content] of expected) {
      const actual = readFileSync(join(dir, path));
      expect(actual.equals(Buffer.from(content)), path).toBe(true);
    }
    expect(JSON.parse(readFileSync(join(dir, "jobs", "a", "job_meta.json"), "utf8")).llm.llm_model).toBe("m2");
    expect(readFileSync(join(dir, RUN_MIRROR), "utf8")).toBe(rows.map(mirrorLine).join(""));
    for (const job of ["a", "b", "c", "d"]) expect(readFileSync(jobMirrorPath(dir, job), "utf8")).toBe(rows.filter((r) => r.job_id === job).map(mirrorLine).join(""));
    // What the user put there is left as it is, and named (a folder once, ending in '/').
    expect(readFileSync(join(dir, "jobs", "a", "artifacts", "notes.txt"), "utf8")).toBe("not from the log");
    expect(readFileSync(join(dir, "NOTES.md"), "utf8")).toBe("my notes");
    expect(readFileSync(join(dir, "plots", "curve.png"), "utf8")).toBe("png");
    expect(strays).toEqual(["NOTES.md", "jobs/a/artifacts/notes.txt", "plots/"]);
    expect(movedTo).toBeNull();
    // The temp folder is left empty.
    expect(readdirSync(join(dir, PROJECTION_TEMP_DIR))).toEqual([]);
    // Each job's details were dropped once its files were written.
    expect([...state.jobs.values()].map((j) => [j.job_id, j.released, j.log])).toEqual([
      ["a", true, ""],
      ["b", true, ""],
      ["c", true, ""],
      ["d", true, ""],
    ]);
  });

  it("a job folder that cannot be written fails the replay with the system error, and the projections stay marked behind", async () => {
    const { dir } = twoInvocations();
    // A file where job b's artifacts folder goes (its mirror, next to it, can be checked).
    mkdirSync(join(dir, "jobs", "b"), { recursive: true });
    writeFileSync(join(dir, "jobs", "b", "artifacts"), "not a folder");

    const failure = await replayRun(dir).then(
      () => null,
      (error: unknown) => error as Error & { code?: string },
    );
    expect(failure?.message).toMatch(/^ENOTDIR/);
    expect(failure?.code).toBe("ENOTDIR");

    const reader = EventStore.open(dir, RUN_ID, { command: "test" });
    stores.push(reader);
    expect(reader.subscriberPosition(PROJECTIONS)).toBe(0);
  });

  it("a file where a job's folder goes (jobs/ is looked up a job at a time) fails the replay with the system error, and the projections stay marked behind", async () => {
    const { dir } = twoInvocations();
    mkdirSync(join(dir, "jobs"), { recursive: true });
    rmSync(join(dir, "jobs", "b"), { recursive: true, force: true });
    writeFileSync(join(dir, "jobs", "b"), "not a folder");

    const failure = await replayRun(dir).then(
      () => null,
      (error: unknown) => error as Error & { code?: string },
    );
    expect(failure?.code).toBe("ENOTDIR");
    expect(readFileSync(join(dir, "jobs", "b"), "utf8")).toBe("not a folder");

    const reader = EventStore.open(dir, RUN_ID, { command: "test" });
    stores.push(reader);
    expect(reader.subscriberPosition(PROJECTIONS)).toBe(0);
  });

  it("with prune, moves what the log does not produce to .replay-strays/<timestamp>/ under the same paths, and deletes nothing", async () => {
    const { dir } = twoInvocations();
    await replayRun(dir);
    const reports = new Map(["results.csv", "jobs/a/results.json", RUN_MIRROR].map((p) => [p, readFileSync(join(dir, p))]));
    writeFileSync(join(dir, "NOTES.md"), "my notes");
    mkdirSync(join(dir, "plots"));
    writeFileSync(join(dir, "plots", "curve.png"), "png");
    writeFileSync(join(dir, "jobs", "b", "artifacts", "mine.txt"), "mine");
    mkdirSync(join(dir, "jobs", "000000000000"));
    writeFileSync(join(dir, "jobs", "000000000000", "results.json"), "{}");

    const { strays, movedTo } = await replayRun(dir, true);

    expect(strays).toEqual(["NOTES.md", "jobs/000000000000/", "jobs/b/artifacts/mine.txt", "plots/"]);
    expect(movedTo).toMatch(/^\.replay-strays\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z$/);
    const aside = join(dir, movedTo!);
    expect(readFileSync(join(aside, "NOTES.md"), "utf8")).toBe("my notes");
    expect(readFileSync(join(aside, "plots", "curve.png"), "utf8")).toBe("png");
    expect(readFileSync(join(aside, "jobs", "b", "artifacts", "mine.txt"), "utf8")).toBe("mine");
    expect(readFileSync(join(aside, "jobs", "000000000000", "results.json"), "utf8")).toBe("{}");
    for (const gone of ["NOTES.md", "plots", "jobs/b/artifacts/mine.txt", "jobs/000000000000"]) expect(existsSync(join(dir, gone)), gone).toBe(false);
    for (const [path, bytes] of reports) expect(readFileSync(join(dir, path)).equals(bytes), path).toBe(true);
    // What was moved aside is no stray the next time, and a second prune moves nothing.
    const again = await replayRun(dir, true);
    expect(again.strays).toEqual([]);
    expect(again.movedTo).toBeNull();
    expect(readdirSync(join(dir, ".replay-strays"))).toEqual([movedTo!.slice(".replay-strays/".length)]);
  });

  it("a second replay finds every file right and changes nothing", async () => {
    const { dir } = twoInvocations();
    await replayRun(dir);
    const before = new Map([RUN_MIRROR, "jobs/b/events.jsonl", "results.csv"].map((p) => [p, readFileSync(join(dir, p), "utf8")]));
    rmSync(join(dir, "jobs", "d"), { recursive: true });
    await replayRun(dir);
    for (const [path, text] of before) expect(readFileSync(join(dir, path), "utf8")).toBe(text);
    expect(existsSync(join(dir, "jobs", "d", "results.json"))).toBe(true);
  });

  it("leaves a file that already holds the right bytes as it is and replaces one that does not", async () => {
    const { dir } = twoInvocations();
    await replayRun(dir);
    const files = ["jobs/a/results.json", "jobs/b/artifacts/final_state.json", "jobs/b/events.jsonl", "results.csv"];
    const inodes = new Map(files.map((p) => [p, statSync(join(dir, p)).ino]));
    const right = readFileSync(join(dir, "jobs", "b", "results.json"));
    // The same length, one byte changed: only a comparison of the bytes finds it.
    const wrong = Buffer.from(right);
    wrong[wrong.length - 2] = wrong[wrong.length - 2] === 0x20 ? 0x21 : 0x20;
    writeFileSync(join(dir, "jobs", "b", "results.json"), wrong);

    await replayRun(dir);

    // A rewrite goes through a temp file renamed over the old one: the same inode is the same file.
    for (const [path, ino] of inodes) expect(statSync(join(dir, path)).ino, path).toBe(ino);
    expect(readFileSync(join(dir, "jobs", "b", "results.json")).equals(right)).toBe(true);
  });
});
