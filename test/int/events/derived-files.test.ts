import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DerivedFiles } from "../../../src/events/derived-files.js";
import { EventReader } from "../../../src/events/event-reader.js";
import type { StoredEvent } from "../../../src/events/event-schema.js";
import { EventStore } from "../../../src/events/event-store.js";
import { RunState } from "../../../src/events/run-state.js";
import { openWriterState } from "../../../src/events/writer-state.js";
import { jobMirrorPath, RUN_MIRROR } from "../../../src/events/mirror-writer.js";
import { tempDir } from "../../support/cli.js";
import { appendEvents, finishedJob, RUN_ID, runStarted } from "../../support/events.js";

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0).reverse()) o.close();
  vi.useRealTimers();
});

/** The writer's views of each open store, folded at every commit as a run session folds them. */
const viewsOf = new WeakMap<EventStore, RunState>();

function store(dir: string): EventStore {
  const s = EventStore.open(dir, RUN_ID, { now: () => new Date("2026-01-01T00:00:00.000Z"), command: "test" });
  open.push(s);
  const views = openWriterState(s);
  viewsOf.set(s, views);
  s.onCommit(
    (events) => {
      for (const event of events) views.apply(event);
    },
    () => {},
  );
  return s;
}

/** The derived files of the run `s` writes, rendered from its views. */
function derived(s: EventStore, dir: string, fresh: boolean, reports: string[] = []): DerivedFiles {
  const d = new DerivedFiles({ runDir: dir, state: viewsOf.get(s)!, fresh }, (text) => reports.push(text));
  open.push(d);
  return d;
}

/**
 * The follower's steps run on timers: the tests that wait for its work fake them and run the
 * scheduled steps one by one until `check` holds, so nothing depends on how fast the machine is.
 */
const fakeTimers = () => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
function stepUntil(check: () => boolean): void {
  while (!check()) {
    if (vi.getTimerCount() === 0) throw new Error("no step is scheduled, and what the test waits for has not happened");
    vi.advanceTimersToNextTimer();
  }
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `j${i}`);

/** A finished run of `n` jobs whose derived files were written and whose projections position is recorded. */
function finishedRun(dir: string, n: number): EventStore {
  const s = store(dir);
  const d = derived(s, dir, true);
  appendEvents(s, [runStarted(ids(n))]);
  for (const id of ids(n)) appendEvents(s, finishedJob(id));
  const outcome = d.finish(s.lastSeq());
  s.recordSubscriberPosition("projections", outcome.projectionsAt!);
  return s;
}

describe("DerivedFiles", () => {
  it("writes the files of committed events off the appender's call, and brings every file level at the finish", () => {
    fakeTimers();
    const dir = tempDir();
    const s = store(dir);
    const d = derived(s, dir, true);
    d.handle(appendEvents(s, [runStarted(["a", "b"]), ...finishedJob("a")]));
    expect(existsSync(jobMirrorPath(dir, "a"))).toBe(false); // the append only scheduled the work
    stepUntil(() => existsSync(join(dir, "jobs", "a", "results.json")));
    expect(readFileSync(jobMirrorPath(dir, "a"), "utf8").trim().split("\n")).toHaveLength(finishedJob("a").length);
    appendEvents(s, finishedJob("b"));
    const outcome = d.finish(s.lastSeq());
    expect(outcome).toEqual({ behind: [], projectionsAt: s.lastSeq() });
    expect(readFileSync(join(dir, RUN_MIRROR), "utf8").trim().split("\n")).toHaveLength(s.lastSeq());
    expect(readFileSync(join(dir, "results.csv"), "utf8").trim().split("\n")).toHaveLength(3);
  });

  it("renders the committed events it is handed without reading them back from the log", () => {
    const dir = tempDir();
    const s = store(dir);
    const d = derived(s, dir, true);
    const reads = vi.spyOn(EventReader.prototype, "rowsAfter");
    try {
      d.handle(appendEvents(s, [runStarted(["a", "b"]), ...finishedJob("a")]));
      d.handle(appendEvents(s, finishedJob("b")));
      expect(d.finish(s.lastSeq())).toEqual({ behind: [], projectionsAt: s.lastSeq() });
      expect(reads).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
    }
    expect(readFileSync(join(dir, RUN_MIRROR), "utf8").trim().split("\n")).toHaveLength(s.lastSeq());
    expect(readFileSync(jobMirrorPath(dir, "b"), "utf8").trim().split("\n")).toHaveLength(finishedJob("b").length);
    expect(readFileSync(join(dir, "results.csv"), "utf8").trim().split("\n")).toHaveLength(3);
  });

  it.each([
    ["skips events (committed, never handed over)", (handed: StoredEvent[][]) => handed.filter((_, i) => i !== 1)],
    ["would outgrow its queue (handed over at once)", (handed: StoredEvent[][]) => [handed.flat()]],
  ])("reads the log instead when what it is handed %s", (_, handOver) => {
    const dir = tempDir();
    const s = store(dir);
    const d = derived(s, dir, true);
    const handed = [appendEvents(s, [runStarted(ids(300))]), ...ids(300).map((id) => appendEvents(s, finishedJob(id)))];
    for (const events of handOver(handed)) d.handle(events);
    expect(d.finish(s.lastSeq())).toEqual({ behind: [], projectionsAt: s.lastSeq() });
    expect(readFileSync(join(dir, RUN_MIRROR), "utf8").trim().split("\n")).toHaveLength(s.lastSeq());
    expect(readFileSync(join(dir, "results.csv"), "utf8").trim().split("\n")).toHaveLength(301);
    for (const id of ["j0", "j1", "j299"]) expect(readFileSync(jobMirrorPath(dir, id), "utf8").trim().split("\n")).toHaveLength(finishedJob(id).length);
  });

  it("on a reopened run, checks and mends the mirrors in steps before the finish", () => {
    const dir = tempDir();
    finishedRun(dir, 150).close();
    const mirror = jobMirrorPath(dir, "j140");
    const intact = readFileSync(mirror, "utf8");
    writeFileSync(mirror, intact.slice(0, 40));
    rmSync(jobMirrorPath(dir, "j7"));
    const reports: string[] = [];
    fakeTimers();
    const d = derived(store(dir), dir, false, reports);
    // 1,351 rows: more than one step's worth, folded without a finish.
    stepUntil(() => readFileSync(mirror, "utf8") === intact && existsSync(jobMirrorPath(dir, "j7")));
    const outcome = d.finish(1 + 150 * finishedJob("a").length);
    expect(outcome.behind).toEqual([]);
    expect(reports).toEqual([]);
  });

  it("on a reopened run, renders from the writer's views: a job changed after the recorded position again (every attempt in its log), the others not", () => {
    const dir = tempDir();
    const first = finishedRun(dir, 3);
    // Committed after the files' position was recorded (a kill before they were written): j1's second attempt.
    appendEvents(first, finishedJob("j1", 2, -1));
    first.close();
    const untouched = join(dir, "jobs", "j0", "results.json");
    writeFileSync(untouched, "left alone: its job did not change\n");
    const s = store(dir);
    const views = viewsOf.get(s)!;
    expect([...views.jobs.values()].every((job) => job.released), "the writer's views hold no job's details").toBe(true);
    const d = derived(s, dir, false);
    expect(d.finish(s.lastSeq()).behind).toEqual([]);
    const log = readFileSync(join(dir, "jobs", "j1", "stdout.log"), "utf8");
    expect(log).toContain("attempt 2");
    expect(log.indexOf("attempt 1")).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(readFileSync(join(dir, "jobs", "j1", "results.json"), "utf8")).score_val).toBe(-1);
    expect(readFileSync(untouched, "utf8")).toBe("left alone: its job did not change\n");
    expect(readFileSync(join(dir, "results.csv"), "utf8").trim().split("\n")).toHaveLength(4);
    expect([...views.jobs.values()].every((job) => job.released), "every job's details dropped once written").toBe(true);
  });

  it("closed while a reopened run's log is read part way, lets go of its connection", () => {
    const dir = tempDir();
    finishedRun(dir, 1000).close();
    const [first, last] = [jobMirrorPath(dir, "j0"), jobMirrorPath(dir, "j999")];
    rmSync(first);
    rmSync(last);
    fakeTimers();
    const d = derived(store(dir), dir, false);
    // 10,001 rows, read 1,000 a step: the first job's mirror is mended after the first step, the last one's after the last.
    stepUntil(() => existsSync(first));
    expect(vi.getTimerCount(), "more steps are scheduled when it is closed").toBeGreaterThan(0);
    expect(() => d.close()).not.toThrow();
    expect(existsSync(last)).toBe(false);
    // Nothing is left of it: no step is scheduled after its close, and running every timer mends nothing more.
    expect(vi.getTimerCount()).toBe(0);
    vi.runAllTimers();
    expect(existsSync(last)).toBe(false);
    // Writing the 1,000-job run it reopens took 0.8 s alone and over 5 s beside the other suites on two cores.
  }, 30_000);

  it("a log it cannot read leaves every derived file behind, with one line that says how to rebuild them", () => {
    const dir = tempDir();
    const reports: string[] = [];
    const d = new DerivedFiles({ runDir: dir, state: new RunState(), fresh: true }, (text) => reports.push(text));
    open.push(d);
    expect(d.finish(5)).toEqual({ behind: ["mirrors", "projections"], projectionsAt: null });
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(/^derived files: .*rebuild them with 'trace-bench replay'\)$/);
  });
});
