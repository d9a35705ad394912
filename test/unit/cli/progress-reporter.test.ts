import { describe, expect, it } from "vitest";
import { ProgressReporter, resultLine } from "../../../src/cli/progress-reporter.js";
import type { NewEvent, StoredEvent } from "../../../src/events/event-schema.js";
import { RunState } from "../../../src/events/run-state.js";
import { finishedJob, RUN_ID, runStarted, specRecord } from "../../support/events.js";
import { framesOf, screenOf } from "../../support/terminal.js";

class FakeStream {
  text = "";
  constructor(
    readonly isTTY: boolean,
    readonly columns?: number,
  ) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

/** Feeds events to the state (as the projections do first) and then to the console subscriber, one commit each. */
function feeder(reporter: ProgressReporter) {
  const state = new RunState();
  const subscriber = reporter.subscriber(state);
  let seq = 0;
  return (events: readonly NewEvent[]) => {
    for (const e of events) {
      seq += 1;
      const stored = { seq, v: 2, stream: e.job_id ? `job-${e.job_id}` : "run", position: 0, run_id: RUN_ID, job_id: e.job_id ?? null, ts: "2026-01-01T00:00:00.000Z", type: e.type, data: e.data } as StoredEvent;
      state.apply(stored);
      subscriber.handle([stored]);
    }
  };
}

/** The helper's LLM calls, with a price. */
const priced = (events: NewEvent[]): NewEvent[] => events.map((e) => (e.type === "LlmCallCompleted" ? ({ ...e, data: { ...e.data, cost_usd: 0.0015 } } as NewEvent) : e));

const finished = (events: NewEvent[]) => events.at(-1)!.data as Extract<NewEvent, { type: "JobFinished" }>["data"];

describe("a job's result line", () => {
  it("rounds the score and says why a job did not end ok, on one line", () => {
    const ok = { ...finished(finishedJob("a")), score_val: -0.052999999999999936 };
    expect(resultLine(1, 2, specRecord("a"), ok)).toBe("[1/2] ok a internal:numeric_param x NoOpTrainer (seed=1) score_val=-0.053 0.50s");
    const failed = { ...ok, status: "failed" as const, feedback: "training_error: (Error) boom\n  at x.js:1" };
    expect(resultLine(2, 2, specRecord("a"), failed)).toBe("[2/2] failed a internal:numeric_param x NoOpTrainer (seed=1) score_val=-0.053 0.50s — training_error: (Error) boom …");
    const skipped = { ...ok, status: "skipped" as const, score_val: null, feedback: "tool not installed" };
    expect(resultLine(2, 2, specRecord("a"), skipped)).toBe("[2/2] skipped a internal:numeric_param x NoOpTrainer (seed=1) score_val=none 0.50s — tool not installed");
  });

  it("colours the status word only when asked", () => {
    const f = { ...finished(finishedJob("a")), status: "failed" as const, feedback: "x" };
    expect(resultLine(1, 1, specRecord("a"), f, null, true)).toContain("] \x1b[31mfailed\x1b[39m a ");
    expect(resultLine(1, 1, specRecord("a"), f, null, false)).not.toContain("\x1b");
  });
});

describe("the console reporter", () => {
  it("piped: one plain line per finished job, no live line, no escape sequence", () => {
    const out = new FakeStream(false);
    const reporter = new ProgressReporter(out, 2, { env: {} });
    const feed = feeder(reporter);
    reporter.start();
    feed([runStarted(["a", "b"]), ...finishedJob("a", 1, -0.06499999999999995), ...finishedJob("b", 1, -3, "failed")]);
    reporter.note("trace-bench: warning: something");
    reporter.stop();
    expect(out.text).toBe(
      [
        "[1/2] ok a internal:numeric_param x NoOpTrainer (seed=1) score_val=-0.065 0.50s",
        "[2/2] failed b internal:multi_param x NoOpTrainer (seed=2) score_val=-3.0 0.50s — fb",
        "trace-bench: warning: something",
        "",
      ].join("\n"),
    );
  });

  it("on a terminal: result lines and notes scroll above the live line, which is cleared at the end", () => {
    let now = 1_000_000;
    const out = new FakeStream(true, 200);
    const reporter = new ProgressReporter(out, 3, { env: { NO_COLOR: "1" }, now: () => now });
    const feed = feeder(reporter);
    feed([runStarted(["a", "b", "c"])]);
    reporter.start();
    expect(out.text).toBe("\r\x1b[2K0/3 done, 0 failed, 0 running | 0s elapsed, ETA ?");

    const a = priced(finishedJob("a", 1, -0.052999999999999936));
    const b = priced(finishedJob("b", 1, -3, "failed"));
    feed([a[0]!, b[0]!]); // both queued
    expect(framesOf(out.text).at(-1)).toBe("0/3 done, 0 failed, 2 running | 0s elapsed, ETA ?");
    now += 10_000;
    feed(a.slice(1));
    expect(framesOf(out.text).at(-1)).toBe("1/3 done, 0 failed, 1 running | 10s elapsed, ETA 20s | 15 tokens, $0.0015");
    reporter.note("trace-bench: warning: careful");
    now += 10_000;
    feed(b.slice(1));
    expect(framesOf(out.text).at(-1)).toBe("2/3 done, 1 failed, 0 running | 20s elapsed, ETA 10s | 30 tokens, $0.0030");
    reporter.stop();
    reporter.stop(); // twice (run's finally): nothing more is written
    expect(out.text.endsWith("\r\x1b[2K")).toBe(true);
    expect(out.text).not.toMatch(/\x1b\[\d+m/); // NO_COLOR

    const screen = screenOf(out.text);
    expect(screen.lines).toEqual([
      "[1/3] ok a internal:numeric_param x NoOpTrainer (seed=1) score_val=-0.053 0.50s",
      "trace-bench: warning: careful",
      "[2/3] failed b internal:multi_param x NoOpTrainer (seed=2) score_val=-3.0 0.50s — fb",
    ]);
    expect(screen.current).toBe("");
  });

  it("colours the status word on a terminal without NO_COLOR", () => {
    const out = new FakeStream(true, 200);
    const feed = feeder(new ProgressReporter(out, 1, { env: {} }));
    feed([runStarted(["a"]), ...finishedJob("a")]);
    expect(out.text).toContain("[1/1] \x1b[32mok\x1b[39m a ");
  });

  it("cuts the live line to the terminal's width", () => {
    const out = new FakeStream(true, 30);
    const reporter = new ProgressReporter(out, 1, { env: {} });
    feeder(reporter)([runStarted(["a"]), finishedJob("a")[0]!]);
    reporter.start();
    reporter.stop();
    const frame = framesOf(out.text).at(-1)!;
    expect(frame).toBe("0/1 done, 0 failed, 1 runnin…");
    expect(frame.length).toBe(29);
  });

  it("counts from the jobs an earlier invocation finished, and says when the cost is unknown", () => {
    const out = new FakeStream(true, 200);
    const reporter = new ProgressReporter(out, 4, { env: {}, now: () => 0 });
    reporter.alreadyDone(2);
    const feed = feeder(reporter);
    const call: NewEvent = { type: "LlmCallCompleted", job_id: "c", data: { attempt: 1, role: "optimizer", model: "gpt-x", prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, latency_ms: 1, estimated: false, cost_usd: null } } as NewEvent;
    feed([runStarted(["a", "b", "c", "d"]), { type: "JobQueued", job_id: "c", data: { attempt: 1, invocation: 2 } }, call]);
    reporter.start();
    reporter.stop();
    expect(framesOf(out.text).at(-1)).toBe("2/4 done, 0 failed, 1 running | 0s elapsed, ETA ? | 10 tokens, cost unknown");
  });
});
