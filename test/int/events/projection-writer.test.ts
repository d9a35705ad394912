/**
 * The projection writer on a real directory: a large run-level file (the manifest, written in
 * pieces) replaces the file on disk only when its bytes differ, and holds what rendering it whole
 * holds.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ProjectionWriter, renderProjections } from "../../../src/events/projection-writer.js";
import { RunState } from "../../../src/events/run-state.js";
import { finishedJob, runStarted } from "../../support/events.js";
import { storedEvents } from "../../support/llm-events.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const jobs = ["j1", "j2", "j3"];
const state = () => RunState.fold(storedEvents([runStarted(jobs), ...jobs.flatMap((id, i) => finishedJob(id, 1, -i))]));
const MANIFEST = "meta/manifest.json";

describe("ProjectionWriter and a large file", () => {
  it("writes the manifest as rendering it whole does, and leaves an identical one in place", () => {
    const dir = mkdtempSync(join(tmpdir(), "trace-bench-writer-"));
    dirs.push(dir);
    new ProjectionWriter(dir, true).writeAll(state());
    const expected = renderProjections(state()).get(MANIFEST) as string;
    expect(readFileSync(join(dir, MANIFEST), "utf8")).toBe(expected);
    expect(JSON.parse(expected).jobs.map((j: { job_id: string }) => j.job_id)).toEqual(jobs);

    // A later writer (a resumed run) finds the same bytes: the file is not replaced.
    const before = statSync(join(dir, MANIFEST)).ino;
    new ProjectionWriter(dir).writeAll(state());
    expect(statSync(join(dir, MANIFEST)).ino).toBe(before);

    // Different bytes are replaced, with the rendered ones.
    writeFileSync(join(dir, MANIFEST), "{}\n");
    new ProjectionWriter(dir).writeAll(state());
    expect(readFileSync(join(dir, MANIFEST), "utf8")).toBe(expected);
  });
});

describe("ProjectionWriter and a large file on disk that differs (compared as it is rendered)", () => {
  // 300 jobs: the manifest spans several of the 64 KiB parts it is rendered and compared in.
  const many = Array.from({ length: 300 }, (_, i) => `job${i}`);
  const bigState = () => RunState.fold(storedEvents([runStarted(many), ...many.flatMap((id, i) => finishedJob(id, 1, -i))]));
  const cases: ReadonlyArray<readonly [string, (expected: string) => string | null]> = [
    ["a byte changed in a later part", (e) => `${e.slice(0, 150_000)}X${e.slice(150_001)}`],
    ["a byte changed in the first part", (e) => `X${e.slice(1)}`],
    ["more bytes after the text", (e) => `${e}trailing`],
    ["the text cut short mid-part", (e) => e.slice(0, 100_000)],
    ["the text cut short at a part's end", (e) => e.slice(0, 65_536)],
    ["no file", () => null],
  ];
  for (const [name, damage] of cases) {
    it(`replaces it whole, as a new file: ${name}`, () => {
      const dir = mkdtempSync(join(tmpdir(), "trace-bench-writer-"));
      dirs.push(dir);
      new ProjectionWriter(dir, true).writeAll(bigState());
      const path = join(dir, MANIFEST);
      const expected = readFileSync(path, "utf8");
      expect(expected.length).toBeGreaterThan(3 * 65_536);
      const damaged = damage(expected);
      if (damaged === null) rmSync(path);
      else writeFileSync(path, damaged);
      const before = damaged === null ? null : statSync(path).ino;

      new ProjectionWriter(dir).writeAll(bigState());
      expect(readFileSync(path, "utf8")).toBe(expected);
      expect(statSync(path).ino).not.toBe(before); // renamed over, never written in place
      expect(readdirSync(join(dir, ".tmp"))).toEqual([]);
    });
  }
});

describe("ProjectionWriter.assumeCurrent (a reopened run whose files are recorded current)", () => {
  it("renders again only the jobs whose events or LLM columns change afterwards", () => {
    const dir = mkdtempSync(join(tmpdir(), "trace-bench-writer-"));
    dirs.push(dir);
    const events = storedEvents([runStarted(jobs), ...jobs.flatMap((id, i) => finishedJob(id, 1, -i))]);
    new ProjectionWriter(dir, true).writeAll(RunState.fold(events));
    // Marks no projection writes: a file changed behind the writer's back stays as it is (replay repairs it).
    writeFileSync(join(dir, "jobs/j1/results.json"), "tampered");
    writeFileSync(join(dir, "jobs/j2/results.json"), "tampered");

    const reopened = RunState.fold(events);
    const writer = new ProjectionWriter(dir);
    writer.assumeCurrent(reopened);
    const second = runStarted(jobs, 2);
    const rerun = finishedJob("j2", 2, -7);
    for (const event of storedEvents([runStarted(jobs), ...jobs.flatMap((id, i) => finishedJob(id, 1, -i)), second, ...rerun]).slice(events.length)) reopened.apply(event);
    writer.writeAll(reopened);
    expect(readFileSync(join(dir, "jobs/j1/results.json"), "utf8")).toBe("tampered");
    expect(readFileSync(join(dir, "jobs/j2/results.json"), "utf8")).toBe(renderProjections(reopened).get("jobs/j2/results.json"));

    // A later start with other LLM columns changes every job's files: all are rendered again.
    const otherModel = { ...runStarted(jobs, 3), data: { ...runStarted(jobs, 3).data, llm: { llm_provider: "stub", llm_model: "other", llm_base_url: "" } } } as typeof second;
    const all = storedEvents([runStarted(jobs), ...jobs.flatMap((id, i) => finishedJob(id, 1, -i)), second, ...rerun, otherModel]);
    reopened.apply(all.at(-1)!);
    writer.writeAll(reopened);
    expect(readFileSync(join(dir, "jobs/j1/results.json"), "utf8")).toBe(renderProjections(reopened).get("jobs/j1/results.json"));
  });
});
