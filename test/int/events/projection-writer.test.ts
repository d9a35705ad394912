/**
 * The projection writer on a real directory: a large run-level file (the manifest, written in
 * pieces) replaces the file on disk only when its bytes differ, and holds what rendering it whole
 * holds.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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
