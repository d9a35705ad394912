/**
 * `listRun` (what `trace-bench runs` shows) asks SQLite for the run-level rows, each job's latest
 * outcome and the LLM totals instead of folding the whole log: on logs with several invocations,
 * matrices that differ, re-run jobs, failures, unfinished attempts and LLM calls (replayed, failed,
 * unpriced, several models), it lists what the fold of the same log lists.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { NewEvent } from "../../../src/events/event-schema.js";
import { EventReader } from "../../../src/events/event-reader.js";
import { EventStore } from "../../../src/events/event-store.js";
import { listRun, runListing } from "../../../src/events/run-listing.js";
import { RunState } from "../../../src/events/run-state.js";
import { tempDir } from "../../support/cli.js";
import { appendEvents, finishedJob, runStarted } from "../../support/events.js";

const RUN = "20260101-000000-listing1";
const stores: EventStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

function folded(dir: string) {
  const reader = EventReader.open(dir);
  try {
    return runListing(dir, RunState.fold(reader.readAfter(0)), reader.liveWriter());
  } finally {
    reader.close();
  }
}

const call = (jobId: string, data: Record<string, unknown>, type: NewEvent["type"] = "LlmCallCompleted"): NewEvent =>
  ({ type, job_id: jobId, data: { attempt: 1, role: "optimizer", model: "m1", prompt_tokens: 3, completion_tokens: 2, total_tokens: 5, latency_ms: 1, estimated: false, ...data } }) as NewEvent;

/** A job's events without the builder's unpriced call. */
const priced = (events: NewEvent[]) => events.filter((e) => e.type !== "LlmCallCompleted");

/** The listing with the keys of its job counts sorted (SQL groups them in its own order). */
const comparable = (listing: ReturnType<typeof listRun>) => listing && { ...listing, jobs: Object.fromEntries(Object.entries(listing.jobs).sort()) };

describe("listRun", () => {
  it("lists a run as the fold of its log does: invocations, re-runs, failures, unfinished jobs and billed LLM use", () => {
    const dir = tempDir();
    const store = EventStore.open(dir, RUN, { command: "test" });
    stores.push(store);
    const started2 = runStarted(["a", "b", "c", "e"], 2);
    appendEvents(store, [
      { ...runStarted(["a", "b", "c", "d"], 1), data: { ...runStarted(["a", "b", "c", "d"], 1).data, config_name: "first.yaml", tags: ["x", "y"] } } as NewEvent,
      ...finishedJob("a"),
      call("a", { cost_usd: 0.125 }),
      ...finishedJob("b", 1, -5, "failed"),
      call("b", { model: "m2", cost_usd: 0.5, prompt_tokens: 7 }),
      call("b", { cost_usd: 0.25, replayed: true }),
      { type: "LlmCallFailed", job_id: "b", data: { attempt: 1, call: 3, role: "optimizer", model: "m3", error_class: "server", http_status: 500, retries: 0, message: "boom", latency_ms: 1 } },
      ...finishedJob("d"),
      { type: "JobQueued", job_id: "c", data: { attempt: 1, invocation: 1 } },
      { type: "RunInterrupted", data: { invocation: 1, signal: "SIGINT", running_jobs: ["c"], not_run: {} } },
      started2,
      // b runs again and is ok now; e starts and never finishes; c never finishes.
      ...finishedJob("b", 2, -1, "ok"),
      call("b", { attempt: 2, cost_usd: null }),
      { type: "JobQueued", job_id: "e", data: { attempt: 1, invocation: 2 } },
    ]);
    const listing = listRun(dir);
    expect(listing).not.toBeNull();
    expect(comparable(listing)).toEqual(comparable(folded(dir)));
    expect(listing!.jobs).toMatchObject({ matrix: 4, ok: 3, not_executed: 2 });
    expect(listing!.config_name).toBe("first.yaml");
    expect(listing!.cost_usd).toBeNull(); // one billed call had no price
  });

  it("lists a finished run with priced calls as its fold does, cost and all", () => {
    const dir = tempDir();
    const store = EventStore.open(dir, RUN, { command: "test" });
    stores.push(store);
    appendEvents(store, [
      runStarted(["a", "b"], 1),
      ...priced(finishedJob("a")),
      call("a", { cost_usd: 0.1 }),
      call("a", { model: "m2", cost_usd: 0.2 }),
      ...priced(finishedJob("b")),
      call("b", { cost_usd: 0.3 }),
      { type: "LlmCallAborted", job_id: "b", data: { attempt: 1, call: 2, role: "optimizer", model: "m3", reason: "timeout", latency_ms: 1 } },
      { type: "RunFinished", data: { invocation: 1, counts: { ok: 2 }, not_run: {} } },
    ]);
    const listing = listRun(dir);
    expect(comparable(listing)).toEqual(comparable(folded(dir)));
    expect(listing).toMatchObject({ status: "finished", crashed: false, jobs: { matrix: 2, ok: 2 } });
    expect(listing!.cost_usd).toBeCloseTo(0.6, 8);
    expect(listing!.llm_calls).toBe(3);
  });

  it("lists nothing for a log in which no run started", () => {
    const dir = tempDir();
    stores.push(EventStore.open(dir, RUN, { command: "test" }));
    expect(listRun(dir)).toBeNull();
  });
});
