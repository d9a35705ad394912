import { describe, expect, it } from "vitest";
import { summaryLines } from "../../../src/cli/run.js";
import { cliCommand } from "../../../src/fs/cli-command.js";
import type { RunReport } from "../../../src/engine/run-invocation.js";
import type { StoredEvent } from "../../../src/events/event-schema.js";
import { RunState } from "../../../src/events/run-state.js";
import { finishedJob, RUN_ID, runStarted } from "../../support/events.js";

function report(behind: string[], interrupted = false): RunReport {
  const events = [runStarted(["a"]), ...finishedJob("a")].map((e, i) => ({ seq: i + 1, v: 2, stream: e.job_id ? `job-${e.job_id}` : "run", position: 0, run_id: RUN_ID, job_id: e.job_id ?? null, ts: "2026-01-01T00:00:00.000Z", type: e.type, data: e.data }) as StoredEvent);
  const plan = { runDir: "runs/r", runId: "r", jobs: [{ job_id: "a" }] } as unknown as RunReport["plan"];
  return { plan, state: RunState.fold(events), interrupted, ranJobs: 1, behind };
}

describe("run's closing lines", () => {
  it("say nothing about the files when they are level with the log", () => {
    expect(summaryLines(report([]), "c.yaml").join("\n")).not.toMatch(/behind/);
  });

  it("say which files are behind the log and how to rebuild them, finished or interrupted", () => {
    for (const interrupted of [false, true]) {
      expect(summaryLines(report(["projections"], interrupted), "c.yaml").at(-1)).toBe(`Reports behind the log (projections): rebuild them with ${cliCommand("replay runs/r")}`);
    }
  });
});
