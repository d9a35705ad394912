/**
 * The TensorBoard run folder in a job's tb/ (named after the job: tensorboard-file.ts) as replay
 * rebuilds and checks it: the job's own folder and event file are its files; anything else in its
 * tb/ (a user's file, another folder, an event file of the layout before run names carried the
 * variant label) is a stray, kept or moved aside like any other.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replayRun } from "../../../src/cli/replay.js";
import type { NewEvent } from "../../../src/events/event-schema.js";
import { EventStore } from "../../../src/events/event-store.js";
import { renderProjections } from "../../../src/events/projection-writer.js";
import { TB_EVENT_FILE, tbRunName } from "../../../src/events/projections/tensorboard-file.js";
import { RunState } from "../../../src/events/run-state.js";
import { tempDir } from "../../support/cli.js";
import { appendEvents, finishedJob, RUN_ID, runStarted } from "../../support/events.js";

/** A run of job `tb` (TensorboardLogger, params `ps_steps: 2`) and job `plain` (default logger), both finished. */
function tbRun(): { dir: string; state: RunState } {
  const dir = tempDir();
  const started = structuredClone(runStarted(["tb", "plain"])) as unknown as { data: { matrix: { job_id: string; raw_params: object; resolved_kwargs: { logger: string | null } }[] } };
  const tbSpec = started.data.matrix.find((spec) => spec.job_id === "tb")!;
  tbSpec.resolved_kwargs.logger = "TensorboardLogger";
  tbSpec.raw_params = { ps_steps: 2 };
  const store = EventStore.open(dir, RUN_ID, { command: "test" });
  appendEvents(store, [started as unknown as NewEvent, ...finishedJob("tb"), ...finishedJob("plain")]);
  const state = RunState.fold(store.readAfter(0));
  store.close();
  return { dir, state };
}

describe("a job's TensorBoard run folder on replay", () => {
  it("is rebuilt as the log renders it; what else the job's tb/ holds is kept and named, and moved aside with --prune", async () => {
    const { dir, state } = tbRun();
    const runName = tbRunName(state.jobs.get("tb")!.spec);
    expect(runName).toContain("__ps_steps=2__");
    const plainName = tbRunName(state.jobs.get("plain")!.spec);
    // Strays: an event file right in tb/ (the layout before), a user's file beside the event file, a folder of another name.
    mkdirSync(join(dir, "jobs", "tb", "tb", runName), { recursive: true });
    writeFileSync(join(dir, "jobs", "tb", "tb", TB_EVENT_FILE), "old layout");
    writeFileSync(join(dir, "jobs", "tb", "tb", runName, "notes.txt"), "mine");
    mkdirSync(join(dir, "jobs", "tb", "tb", "my-run"));
    // Not strays: the folder named after a job that writes no event file now, and an event file there (left from when it did) is removed.
    mkdirSync(join(dir, "jobs", "plain", "tb", plainName), { recursive: true });
    writeFileSync(join(dir, "jobs", "plain", "tb", plainName, TB_EVENT_FILE), "from a TensorboardLogger attempt");

    const { strays, movedTo } = await replayRun(dir);

    const expected = renderProjections(state);
    const eventFile = `jobs/tb/tb/${runName}/${TB_EVENT_FILE}`;
    expect(expected.has(eventFile)).toBe(true);
    for (const [path, content] of expected) expect(readFileSync(join(dir, path)).equals(Buffer.from(content)), path).toBe(true);
    expect(strays).toEqual([`jobs/tb/tb/${TB_EVENT_FILE}`, `jobs/tb/tb/${runName}/notes.txt`, "jobs/tb/tb/my-run/"]);
    expect(movedTo).toBeNull();
    expect(readFileSync(join(dir, "jobs", "tb", "tb", TB_EVENT_FILE), "utf8")).toBe("old layout");
    expect(readdirSync(join(dir, "jobs", "plain", "tb", plainName))).toEqual([]);

    const pruned = await replayRun(dir, true);
    expect(pruned.strays).toEqual(strays);
    expect(readFileSync(join(dir, pruned.movedTo!, "jobs", "tb", "tb", TB_EVENT_FILE), "utf8")).toBe("old layout");
    expect(readFileSync(join(dir, pruned.movedTo!, "jobs", "tb", "tb", runName, "notes.txt"), "utf8")).toBe("mine");
    expect(readdirSync(join(dir, "jobs", "tb", "tb"))).toEqual([runName]);
    expect(readdirSync(join(dir, "jobs", "tb", "tb", runName))).toEqual([TB_EVENT_FILE]);
    expect(existsSync(join(dir, "jobs", "tb", "tb", "my-run"))).toBe(false);
    expect((await replayRun(dir)).strays).toEqual([]);
  });
});
